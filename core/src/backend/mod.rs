//! Layer 3: the contract between the engine and a device. A backend allocates and fills buffers and runs batches
//! of kernels; readback and execution return futures, because a browser cannot block.

pub mod memory;
pub mod profile;

use crate::base::buffer::{Buffer, DeviceId};
use crate::base::dtype::DType;
use crate::base::view::View;
use crate::graph::op::Op;
use crate::util::error::Result;
use crate::util::future::BoxFuture;

/// What kind of hardware a device is; `best_device` prefers real GPUs over software renderers and the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceType {
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    /// A software implementation such as Mesa's lavapipe.
    SoftwareGpu,
    Cpu,
}

impl DeviceType {
    pub fn describe(self) -> &'static str {
        match self {
            DeviceType::DiscreteGpu => "discrete",
            DeviceType::IntegratedGpu => "integrated",
            DeviceType::VirtualGpu => "virtual",
            DeviceType::SoftwareGpu => "software renderer",
            DeviceType::Cpu => "cpu",
        }
    }
}

/// Facts about a device that front ends show and the dispatcher uses.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The device string users write: "cpu", "vulkan:0", "vulkan:0:floor".
    pub label: String,
    /// "cpu", "vulkan" or "webgpu" (the same shaders; op support is declared once, under "vulkan").
    pub kind: &'static str,
    /// Adapter index for GPUs, 0 for the CPU.
    pub index: usize,
    /// True when only the Vulkan 1.3 ∩ WebGPU floor was requested.
    pub min_spec: bool,
    /// Adapter name, e.g. "NVIDIA H200" or "llvmpipe (LLVM 19.1.7, 256 bits)".
    pub adapter: String,
    /// Driver name and version as reported.
    pub driver: String,
    pub device_type: DeviceType,
    /// Whether float16 products run on matrix units (cooperative matrices): float32 products may go there when
    /// asked (`api::precision`).
    pub f16_matrix_units: bool,
}

/// One input of a kernel: a buffer read through a view.
#[derive(Clone, Debug)]
pub struct Arg {
    pub buffer: Buffer,
    pub view: View,
}

/// One unit of device work: compute `op` from `args` into the contiguous `out` of `shape`.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub op: Op,
    pub args: Vec<Arg>,
    pub out: Buffer,
    pub shape: Vec<usize>,
}

/// A device. Implementations live in the backend crates and are registered by front ends.
pub trait Backend: Send + Sync {
    fn info(&self) -> &DeviceInfo;

    /// Err(Unsupported) naming op, dtype and device when this device cannot run `op` producing or reading `dtype`.
    fn check(&self, op: &Op, dtype: DType) -> Result<()>;

    /// A buffer of `len` elements (contents unspecified).
    fn alloc(&self, id: DeviceId, dtype: DType, len: usize) -> Result<Buffer>;

    /// A buffer holding `bytes` (NumPy layout for `dtype`).
    fn upload(&self, id: DeviceId, dtype: DType, bytes: &[u8]) -> Result<Buffer>;

    /// Whether the device was lost (a GPU's driver gave it up); a lost device refuses every call, and registering
    /// its label again replaces it.
    fn is_lost(&self) -> bool;

    /// The device's memory: bytes held by tensors, reserved by its pool, and the peak.
    fn memory(&self) -> memory::Memory;

    /// Start the peak of [`Backend::memory`] again from what is allocated now.
    fn reset_peak_memory(&self);

    /// Give the buffers a pool keeps for reuse back to the device (torch's `empty_cache`).
    fn empty_cache(&self);

    /// Run the kernels in order as one batch (one submission on a GPU). Resolves when errors are known.
    fn run(&self, kernels: Vec<Kernel>) -> BoxFuture<()>;

    /// The buffer's contents in NumPy layout.
    fn read(&self, buffer: &Buffer) -> BoxFuture<Vec<u8>>;

    /// Submit recorded work now. `run` may keep work recorded so that the readback that usually follows joins the
    /// same submission; eager mode flushes after every op.
    fn flush(&self);

    /// Make progress on pending futures; with `wait`, block until some GPU work completes. Only native front ends
    /// call this (a browser makes progress on its own).
    fn drive(&self, wait: bool);
}
