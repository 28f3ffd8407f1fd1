//! vkml-backend-cpu: the host's two devices. `cpu:reference` is the oracle: strided, readable and deterministic
//! (fixed reduction orders), right first, and every other backend is checked against it. `cpu` is the fast device:
//! the same kernels except where a faster one keeps the op's contract (float products, `gemm.rs`).

mod binary;
mod cast;
mod column;
mod create;
mod fused;
mod gemm;
mod heap;
mod index;
mod matmul;
mod movement;
mod reduce;
mod scan;
mod softmax;
mod sort;
mod threads;
mod unary;
mod values;
mod window;

use std::sync::{Arc, RwLock};

use vkml_core::backend::memory::{Memory, Tracker};
use vkml_core::backend::profile::{self, KernelRecord};
use vkml_core::backend::{Backend, DeviceInfo, DeviceType, Kernel};
use vkml_core::base::buffer::{Buffer, DeviceId};
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::Op;
use vkml_core::util::error::{Error, Result};
use vkml_core::util::future::{ready, BoxFuture};
use vkml_core::util::host;

/// Allocations from this size up are reserved once before they are made (the probe costs a map and an unmap).
const PROBE_BYTES: usize = 1 << 30;

/// Host memory in NumPy layout; written once by the kernel that produces it. Its `size` bytes count as allocated
/// while it lives.
pub(crate) struct CpuBuffer {
    bytes: RwLock<Vec<u8>>,
    size: u64,
    memory: Arc<Tracker>,
}

impl CpuBuffer {
    fn new(bytes: Vec<u8>, size: usize, memory: &Arc<Tracker>) -> CpuBuffer {
        memory.hold(size as u64, false);
        CpuBuffer { bytes: RwLock::new(bytes), size: size as u64, memory: memory.clone() }
    }
}

impl Drop for CpuBuffer {
    fn drop(&mut self) {
        self.memory.release(self.size, false);
    }
}

/// A CPU device: the fast one or the reference.
pub struct CpuBackend {
    info: DeviceInfo,
    /// The reference kernels everywhere (the oracle, `cpu:reference`).
    reference: bool,
    /// Bytes of live buffers: the host has no pool, so reserved is allocated.
    memory: Arc<Tracker>,
}

impl CpuBackend {
    /// The fast device, `cpu`.
    pub fn new() -> CpuBackend {
        CpuBackend::with(false)
    }

    /// The oracle, `cpu:reference`.
    pub fn reference() -> CpuBackend {
        CpuBackend::with(true)
    }

    fn with(reference: bool) -> CpuBackend {
        heap::keep_freed_memory();
        CpuBackend {
            info: DeviceInfo {
                label: if reference { "cpu:reference" } else { "cpu" }.into(),
                kind: "cpu",
                index: 0,
                min_spec: false,
                adapter: "host CPU".into(),
                driver: if reference { "vkml reference kernels" } else { "vkml kernels" }.into(),
                device_type: DeviceType::Cpu,
                f16_matrix_units: false,
            },
            reference,
            memory: Arc::default(),
        }
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::new()
    }
}

fn bytes_of(buf: &Buffer) -> Result<std::sync::RwLockReadGuard<'_, Vec<u8>>> {
    let b = buf.downcast::<CpuBuffer>().ok_or_else(|| Error::Backend("not a CPU buffer".into()))?;
    Ok(b.bytes.read().unwrap_or_else(|e| e.into_inner()))
}

fn run_one(k: &Kernel, fast: bool) -> Result<Vec<u8>> {
    let args: Vec<_> = k.args.iter().map(|a| bytes_of(&a.buffer)).collect::<Result<_>>()?;
    let ins: Vec<(&[u8], DType, &vkml_core::base::view::View)> =
        k.args.iter().zip(&args).map(|(a, b)| (b.as_slice(), a.buffer.dtype, &a.view)).collect();
    let out = k.out.dtype;
    Ok(match &k.op {
        Op::Data(h) => h.bytes.clone(),
        Op::Transfer => return Err(Error::Backend("transfers are uploads, not kernels".into())),
        Op::Full(s) => create::full(*s, out, &k.shape),
        Op::Rand { seed, offset, digits } => create::rand(*seed, *offset, *digits, out, &k.shape),
        Op::Randn { seed, offset } => create::randn(*seed, *offset, out, &k.shape),
        Op::Unary(u) => unary::unary(*u, ins[0], out),
        Op::Binary(b) => binary::binary(*b, ins[0], ins[1], out),
        Op::Where => binary::where_(ins[0], ins[1], ins[2], out),
        Op::Fused(steps) => fused::fused(steps, &ins, k.shape.iter().product(), out),
        Op::Cast => cast::cast(ins[0], out),
        Op::Copy => movement::copy(ins[0]),
        Op::Reduce { op, axes } => reduce::reduce(*op, *axes, ins[0], out, fast),
        Op::Matmul => matmul::matmul(ins[0], ins[1], out, fast),
        Op::Assign { view } => movement::assign(ins[0], view, ins[1]),
        Op::Gather { dim } => index::gather(ins[0], ins[1], *dim, &k.shape),
        Op::Scatter { dim, add } => index::scatter(ins[0], ins[1], ins[2], *dim, *add, out),
        Op::ArgSort { descending } => sort::argsort(ins[0], *descending),
        Op::Scan(op) => scan::scan(*op, ins[0], out),
        Op::Softmax { log } => softmax::softmax(ins[0], *log, out),
        Op::Unfold(w) => window::unfold(ins[0], w),
        Op::Fold(w) => window::fold(ins[0], w, &k.shape, out),
        Op::MaxPool(w) => window::max_pool(ins[0], w),
        Op::MaxPoolGrad(w) => window::max_pool_grad(ins[0], ins[1], w, out, fast),
    })
}

impl Backend for CpuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn check(&self, op: &Op, dtype: DType) -> Result<()> {
        vkml_core::graph::table::check_supported(op.name(), "cpu", dtype, &self.info.label, None)
    }

    fn alloc(&self, id: DeviceId, dtype: DType, len: usize) -> Result<Buffer> {
        // Every kernel output is allocated here and then replaced whole by the kernel's result (`run`), so the
        // placeholder holds nothing: zeroing and copying one was a fifth of a CNN training step. A large one is
        // reserved once first, so that a size past the machine's memory is refused here rather than aborting in
        // the kernel.
        if len.saturating_mul(dtype.itemsize()) >= PROBE_BYTES {
            drop(host::reserve(len, dtype.itemsize())?);
        }
        let size = len.saturating_mul(dtype.itemsize());
        host::check_cap(self.memory.memory().allocated, size as u64)?;
        Ok(Buffer::new(id, dtype, len, Arc::new(CpuBuffer::new(Vec::new(), size, &self.memory))))
    }

    fn upload(&self, id: DeviceId, dtype: DType, bytes: &[u8]) -> Result<Buffer> {
        let len = bytes.len() / dtype.itemsize();
        host::check_cap(self.memory.memory().allocated, bytes.len() as u64)?;
        Ok(Buffer::new(id, dtype, len, Arc::new(CpuBuffer::new(bytes.to_vec(), bytes.len(), &self.memory))))
    }

    /// The host is never lost.
    fn is_lost(&self) -> bool {
        false
    }

    fn memory(&self) -> Memory {
        self.memory.memory()
    }

    fn reset_peak_memory(&self) {
        self.memory.reset_peak();
    }

    /// Nothing to give back: freed host buffers return to the system at once.
    fn empty_cache(&self) {}

    fn run(&self, kernels: Vec<Kernel>) -> BoxFuture<()> {
        // While the profiler records, each kernel is timed on the host clock: here the host is the device.
        let profiled = profile::is_on().then(|| {
            let batch = profile::next_batch();
            profile::record(kernels.iter().map(|k| KernelRecord::new(&self.info.label, k, "cpu", batch)).collect())
        });
        let mut times = Vec::new();
        let result = (|| {
            for k in &kernels {
                let start = profiled.filter(|_| profile::has_clock()).map(|_| profile::now_us());
                // A bug in a kernel must surface as an error, never unwind into a front end.
                let bytes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(k, !self.reference)))
                    .map_err(|_| {
                    Error::Backend(format!("internal error in the CPU kernel for {}", k.op.name()))
                })??;
                let dst = k.out.downcast::<CpuBuffer>().ok_or_else(|| Error::Backend("not a CPU buffer".into()))?;
                *dst.bytes.write().unwrap_or_else(|e| e.into_inner()) = bytes;
                times.extend(start.map(|t| (t * 1e3, (profile::now_us() - t) * 1e3)));
            }
            Ok(())
        })();
        match profiled {
            Some(first) if profile::has_clock() => profile::set_times(first, &times),
            Some(_) => profile::note(format!("{} is timed by a host clock this runtime lacks", self.info.label)),
            None => {}
        }
        ready(result)
    }

    fn read(&self, buffer: &Buffer) -> BoxFuture<Vec<u8>> {
        ready(bytes_of(buffer).map(|b| b.clone()))
    }

    fn flush(&self) {}

    fn drive(&self, _wait: bool) {}
}
