//! Shared set-up for the Rust cross-backend tests: register the CPU oracle and the Vulkan devices (full and floor)
//! once per process, and read tensors back as f32/f64 values or raw bytes.

use std::sync::{Arc, OnceLock};

use vkml_backend_cpu::CpuBackend;
use vkml_backend_vulkan::VulkanBackend;
use vkml_core::api::realize::read_bytes;
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::dispatch;
use vkml_core::Result;

/// The devices under test: cpu first (the oracle), then every Vulkan device that opened.
pub struct Devices {
    pub cpu: DeviceId,
    pub gpus: Vec<(DeviceId, Arc<VulkanBackend>)>,
}

static DEVICES: OnceLock<Devices> = OnceLock::new();

/// Open the devices once. Vulkan must be present: these tests exist to check it.
pub fn devices() -> &'static Devices {
    DEVICES.get_or_init(|| {
        let cpu = dispatch::register(Arc::new(CpuBackend::new()));
        let mut gpus = Vec::new();
        for min_spec in [false, true] {
            match VulkanBackend::new(0, min_spec, false) {
                Ok(b) => {
                    let b = Arc::new(b);
                    gpus.push((dispatch::register(b.clone()), b));
                }
                Err(e) => panic!("Vulkan device 0 (min_spec={min_spec}) did not open: {e}"),
            }
        }
        Devices { cpu, gpus }
    })
}

/// Raw bytes of a tensor (NumPy layout).
pub fn bytes(t: &Tensor) -> Result<Vec<u8>> {
    read_bytes(t)
}

/// Values of a float tensor as f64 (via f32 for the 16-bit types).
pub fn floats(t: &Tensor) -> Result<Vec<f64>> {
    let t = if t.dtype() == DType::F64 { t.clone() } else { t.to_dtype(DType::F32)? };
    let b = read_bytes(&t)?;
    Ok(if t.dtype() == DType::F64 {
        b.chunks_exact(8).map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect()
    } else {
        b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64).collect()
    })
}

/// A small deterministic generator for test inputs (xorshift), independent of the engine's Philox.
pub struct Gen(pub u64);

impl Gen {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// An f32 tensor of `shape` with values in [lo, hi) on `device`.
pub fn random_f32(g: &mut Gen, shape: &[usize], lo: f32, hi: f32, device: DeviceId) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let bytes: Vec<u8> = (0..n).flat_map(|_| g.uniform(lo, hi).to_le_bytes()).collect();
    Tensor::from_bytes(bytes, shape, DType::F32, device)
}
