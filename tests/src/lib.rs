//! Shared set-up for the Rust cross-backend tests: register the CPU oracle (`cpu:reference`), the fast CPU device and
//! the Vulkan devices (full and floor) once per process, read tensors back as f32/f64 values or raw bytes, build
//! inputs, and `check` a computation on the fast CPU and every GPU against the oracle under an op's declared
//! tolerance.

use std::sync::{Arc, OnceLock};

use vkml_backend_cpu::CpuBackend;
use vkml_backend_vulkan::VulkanBackend;
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::dispatch;
use vkml_core::graph::table::{row, Tolerance};
use vkml_core::tensor::realize::read_bytes;
use vkml_core::Result;

/// The devices under test: the oracle (`cpu:reference`), the fast CPU device, then every Vulkan device that opened.
pub struct Devices {
    pub cpu: DeviceId,
    pub fast_cpu: DeviceId,
    pub gpus: Vec<(DeviceId, Arc<VulkanBackend>)>,
}

impl Devices {
    /// Every device checked against the oracle: the fast CPU and the GPUs.
    pub fn checked(&self) -> Vec<DeviceId> {
        std::iter::once(self.fast_cpu).chain(self.gpus.iter().map(|(id, _)| *id)).collect()
    }
}

static DEVICES: OnceLock<Devices> = OnceLock::new();

/// Open the devices once. Vulkan must be present: these tests exist to check it.
pub fn devices() -> &'static Devices {
    DEVICES.get_or_init(|| {
        let cpu = dispatch::register(Arc::new(CpuBackend::reference()));
        let fast_cpu = dispatch::register(Arc::new(CpuBackend::new()));
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
        Devices { cpu, fast_cpu, gpus }
    })
}

/// `f` on the oracle and on every checked device (the fast CPU, each GPU) from the same seed: identical bytes.
pub fn same(seed: u64, f: impl Fn(&mut Gen, DeviceId) -> Result<Tensor>) -> Result<()> {
    let d = devices();
    let want = bytes(&f(&mut Gen(seed), d.cpu)?)?;
    for id in d.checked() {
        assert_eq!(bytes(&f(&mut Gen(seed), id)?)?, want, "seed {seed} on {id:?}");
    }
    Ok(())
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

/// Matmul operands in [-1, 1) read through views: a (batch, m, k) as a transpose of (batch, k, m), b (k, n) to
/// broadcast over the batch, and c (batch, k, n) as a transpose of (batch, n, k) (use it as `c.transpose(1, 2)`).
pub fn matmul_operands(g: &mut Gen, dev: DeviceId, batch: usize, m: usize, k: usize, n: usize) -> Result<Vec<Tensor>> {
    let a = random_f32(g, &[batch, k, m], -1.0, 1.0, dev)?.transpose(1, 2)?;
    Ok(vec![a, random_f32(g, &[k, n], -1.0, 1.0, dev)?, random_f32(g, &[batch, n, k], -1.0, 1.0, dev)?])
}

/// A tensor of `dtype` holding integer `values` (I32, I64 or Bool), built from bytes so no kernel is involved.
pub fn from_i64(values: &[i64], shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
    let bytes: Vec<u8> = match dtype {
        DType::I32 => values.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect(),
        DType::Bool => values.iter().map(|&v| (v != 0) as u8).collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    };
    Tensor::from_bytes(bytes, shape, dtype, device)
}

/// An f32 tensor holding `values`.
pub fn from_f32(values: &[f32], shape: &[usize], device: DeviceId) -> Result<Tensor> {
    Tensor::from_bytes(values.iter().flat_map(|v| v.to_le_bytes()).collect(), shape, DType::F32, device)
}

/// f32 values at the edges kernels branch on: signed zeros, subnormals, the smallest normals, the thresholds of the
/// special functions, the largest finite values, the infinities and NaN of both signs.
pub fn edge_f32() -> Vec<f32> {
    let mut v = vec![f32::NAN, -f32::NAN, f32::INFINITY, f32::MAX, 3.0e38, 1.0e38, 8.5e37, 1.0e30, 1.0e20];
    v.extend([1.0e10, 1.6e7, 16777217.0, 4194304.5, 65520.0, 65504.0, 2000.0, 1500.5, 1499.0, 128.5, 100.0]);
    v.extend([90.5, 89.5, 88.8, 88.7, 30.0, 20.5, 19.5, 12.0, 10.5, 10.0, 9.6, 9.4, 4.5, 4.0, 3.5, 2.414, 2.5]);
    v.extend([2.0, 1.9, 1.5, 1.25, 1.0, 0.99, 0.7, 0.625, 0.6, 0.5, 0.45, 0.4142, 0.4, 0.3, 0.1, 0.01, 1.0e-3]);
    v.extend([3.0e-4, 2.4e-4, 1.0e-5, 2.9e-8, 3.0e-8, 1.0e-20, 1.0e-31, 2.0e-38, f32::MIN_POSITIVE]);
    v.extend([1.1e-38, 1.0e-40, 1.0e-44, f32::from_bits(1), 0.0]);
    // NaNs whose payload is the smallest and the largest signalling one: a NaN test that looks at the exponent and
    // the payload's top bit only would take them for infinities or numbers.
    v.extend([f32::from_bits(0x7f80_0001), f32::from_bits(0x7fbf_ffff)]);
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// The subnormals of an f32 or bf16 tensor replaced by zeros of their sign (other tensors as they are), on the host.
fn flush(t: &Tensor) -> Result<Tensor> {
    let b = read_bytes(t)?;
    let out: Vec<u8> = match t.dtype() {
        DType::F32 => b
            .chunks_exact(4)
            .flat_map(|c| {
                let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let x = if x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
                x.to_le_bytes()
            })
            .collect(),
        DType::BF16 => b
            .chunks_exact(2)
            .flat_map(|c| {
                let x = u16::from_le_bytes([c[0], c[1]]);
                let x = if x & 0x7f80 == 0 { x & 0x8000 } else { x };
                x.to_le_bytes()
            })
            .collect(),
        _ => return Ok(t.clone()),
    };
    Tensor::from_bytes(out, t.shape(), t.dtype(), t.device())
}

/// One element read back on the host: a float as f64 (the 16-bit types decoded here, not by a cast kernel), or the
/// raw bits of an integer or bool.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    F(f64),
    Bits(u64),
}

fn elems(t: &Tensor) -> Result<Vec<Elem>> {
    let b = read_bytes(t)?;
    let w = t.dtype().itemsize();
    Ok(b.chunks_exact(w)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..w].copy_from_slice(c);
            let bits = u64::from_le_bytes(a);
            match t.dtype() {
                DType::F32 => Elem::F(f32::from_bits(bits as u32) as f64),
                DType::F64 => Elem::F(f64::from_bits(bits)),
                DType::F16 => Elem::F(half::f16::from_bits(bits as u16).to_f64()),
                DType::BF16 => Elem::F(half::bf16::from_bits(bits as u16).to_f64()),
                DType::I32 | DType::I64 | DType::Bool => Elem::Bits(bits),
            }
        })
        .collect())
}

/// Does `got` meet `tol` against the oracle's `want`? Both sides are within the bound of the exact value, so they
/// may be twice the bound apart. `x` is the magnitude the bound's `per_abs_x` scales (the input's, where the op is
/// elementwise over it), `n` the largest input size (for the Backward bound).
fn agree(tol: Tolerance, got: Elem, want: Elem, x: f64, n: f64) -> bool {
    let (Elem::F(a), Elem::F(b)) = (got, want) else {
        return got == want;
    };
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        Tolerance::Exact { .. } => a.to_bits() == b.to_bits(),
        Tolerance::Ulp { ulp, per_abs_x, abs, .. } => {
            let u = (b as f32).abs().max(f32::MIN_POSITIVE);
            let one_ulp = (f32::from_bits(u.to_bits() + 1) - u) as f64;
            a == b || (a - b).abs() <= 2.0 * ((ulp + per_abs_x * x.min(100.0)) * one_ulp).max(abs)
        }
        Tolerance::Absolute { abs, .. } => (a - b).abs() <= 2.0 * abs,
        Tolerance::Relative { rel, .. } => a == b || (a - b).abs() <= 2.0 * rel * b.abs(),
        Tolerance::Backward { .. } => {
            // Inputs are in [-1, 1): Σ|terms| ≤ n, so γ(n)·n bounds both sides.
            let gamma = n * f64::from(f32::EPSILON) / 2.0;
            a == b || (a - b).abs() <= 2.0 * (gamma * n + f64::from(f32::EPSILON))
        }
    }
}

/// Run `f` on the oracle and on every GPU with the same inputs and compare under `op`'s contract (an op missing
/// from the table must be bit-identical). `make` builds the inputs on a device from a seed; `f` is the computation.
/// Where the contract lets a GPU flush subnormals (`gpu_ftz`), an element also passes when it matches the oracle run
/// on flushed inputs, or is the zero that a subnormal oracle result flushes to. A `Backward` contract is taken over
/// the largest input's size, a loose bound for a reduction over fewer terms: `check_terms` names the count.
pub fn check(
    op: &str,
    seed: u64,
    make: impl Fn(&mut Gen, DeviceId) -> Result<Vec<Tensor>>,
    f: impl Fn(&[Tensor]) -> Result<Tensor>,
) -> Result<()> {
    check_terms(op, None, seed, make, f)
}

/// `check` with a `Backward` contract over `terms` summed terms per output (K for a matmul), each of magnitude at
/// most 1: the bound γ(K)·K that the contract gives, not the largest input's γ(n)·n.
pub fn check_terms(
    op: &str,
    terms: Option<usize>,
    seed: u64,
    make: impl Fn(&mut Gen, DeviceId) -> Result<Vec<Tensor>>,
    f: impl Fn(&[Tensor]) -> Result<Tensor>,
) -> Result<()> {
    let d = devices();
    let inputs = make(&mut Gen(seed), d.cpu)?;
    let want = f(&inputs)?;
    let tol = row(op).map(|r| r.tolerance).unwrap_or(Tolerance::Exact { gpu_ftz: false, reason: "" });
    let ftz = matches!(
        tol,
        Tolerance::Exact { gpu_ftz: true, .. }
            | Tolerance::Ulp { gpu_ftz: true, .. }
            | Tolerance::Backward { gpu_ftz: true, .. }
    );
    let mut oracles = vec![elems(&want)?];
    if ftz {
        oracles.push(elems(&f(&inputs.iter().map(flush).collect::<Result<Vec<_>>>()?)?)?);
    }
    let n = terms.unwrap_or_else(|| inputs.iter().map(|t| t.numel()).max().unwrap_or(1)).max(1) as f64;
    // The contracts' |x| is the input's: elementwise over the first input, its magnitudes; else the result's.
    let xs = match inputs.first() {
        Some(t) if t.shape() == want.shape() && t.dtype().is_float() => Some(elems(t)?),
        _ => None,
    };
    for id in d.checked() {
        let got = f(&make(&mut Gen(seed), id)?)?;
        assert_eq!(got.shape(), want.shape(), "{op}: shape");
        assert_eq!(got.dtype(), want.dtype(), "{op}: dtype");
        for (i, g) in elems(&got)?.into_iter().enumerate() {
            let w = oracles[0][i];
            // A nonzero subnormal result may come back as a zero (of either sign); a zero result keeps its sign.
            let tiny = |b: f64| b != 0.0 && b.abs() < f64::from(f32::MIN_POSITIVE);
            let flushed = matches!((g, w), (Elem::F(a), Elem::F(b)) if a == 0.0 && tiny(b));
            let x = match (xs.as_ref().map(|x| x[i]), w) {
                (Some(Elem::F(x)), _) | (None, Elem::F(x)) => x.abs(),
                _ => 0.0,
            };
            let ok = oracles.iter().any(|o| agree(tol, g, o[i], x, n)) || (ftz && flushed);
            assert!(ok, "{op} on {id:?}, element {i}: {g:?} vs oracle {w:?}");
        }
    }
    Ok(())
}

/// `f` as the oracle computes it in `wide` (F64, or an integer type) and rounds back to the inputs' dtype, as the
/// GPUs compute it in the inputs' own dtype: checks the CPU-only paths (f64 runs on the CPU alone) against the GPU's
/// f32 ones. The rounding of a result computed wide equals the result computed narrow for correctly rounded ops,
/// and stays within the op's tolerance for the others.
pub fn oracle_in(wide: DType, f: impl Fn(&[Tensor]) -> Result<Tensor>) -> impl Fn(&[Tensor]) -> Result<Tensor> {
    move |t: &[Tensor]| {
        if t.first().map(|x| x.device()) != Some(devices().cpu) {
            return f(t);
        }
        let narrow = t[0].dtype();
        let wide_inputs = t.iter().map(|x| x.to_dtype(wide)).collect::<Result<Vec<_>>>()?;
        let r = f(&wide_inputs)?;
        if r.dtype() == wide {
            r.to_dtype(narrow)
        } else {
            Ok(r)
        }
    }
}
