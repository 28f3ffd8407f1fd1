//! Creation: tensors from host bytes, full/zeros/ones, arange (computed on the host in f64 as torch does) and the
//! Philox-based rand/randn with a process-wide generator (`manual_seed`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::base::buffer::DeviceId;
use crate::base::dtype::{Category, DType};
use crate::base::scalar::Scalar;
use crate::base::view::numel;
use crate::graph::op::{HostData, Op};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// torch's default seed, so a fresh process draws a fixed stream.
const DEFAULT_SEED: u64 = 67_280_421_310_721;

static SEED: AtomicU64 = AtomicU64::new(DEFAULT_SEED);
static OFFSET: AtomicU64 = AtomicU64::new(0);

/// Reset the generator (torch.manual_seed).
pub fn manual_seed(seed: u64) {
    SEED.store(seed, Ordering::SeqCst);
    OFFSET.store(0, Ordering::SeqCst);
}

/// Reserve `blocks` Philox blocks of the stream; returns (seed, first block).
fn draw(blocks: u64) -> (u64, u64) {
    (SEED.load(Ordering::SeqCst), OFFSET.fetch_add(blocks, Ordering::SeqCst))
}

impl Tensor {
    /// A tensor holding `bytes` (NumPy layout of `dtype`) with `shape`.
    pub fn from_bytes(bytes: Vec<u8>, shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
        let expected = numel(shape) * dtype.itemsize();
        if bytes.len() != expected {
            return Err(Error::Value(format!(
                "{} bytes do not hold a {} tensor of shape {shape:?} ({expected} bytes)",
                bytes.len(),
                dtype.name()
            )));
        }
        let data = Arc::new(HostData { dtype, bytes });
        Tensor::make(Op::Data(data), &[], shape.to_vec(), dtype, device)
    }

    pub fn full(shape: &[usize], value: Scalar, dtype: DType, device: DeviceId) -> Result<Tensor> {
        crate::base::scalar::check_fits(value, dtype)?;
        Tensor::make(Op::Full(value), &[], shape.to_vec(), dtype, device)
    }

    pub fn zeros(shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(0), dtype, device)
    }

    pub fn ones(shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
        Tensor::full(shape, Scalar::Int(1), dtype, device)
    }

    /// torch.arange: ⌈(end − start)/step⌉ values start + i·step, computed in f64 (floats) or i64 (integers).
    pub fn arange(start: Scalar, end: Scalar, step: Scalar, dtype: DType, device: DeviceId) -> Result<Tensor> {
        if dtype == DType::Bool {
            return Err(Error::Unsupported("\"arange_cpu\" not implemented for 'Bool'".into()));
        }
        let (s, e, st) = (start.as_f64(), end.as_f64(), step.as_f64());
        if st == 0.0 {
            return Err(Error::Runtime("step must be nonzero".into()));
        }
        if !(s.is_finite() && e.is_finite()) {
            return Err(Error::Value(format!("unsupported range: {s} -> {e}")));
        }
        if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
            return Err(Error::Runtime("upper bound and larger bound inconsistent with step sign".into()));
        }
        let len = match (start, end, step) {
            // All-integer ranges are sized exactly (f64 loses precision past 2^53).
            (Scalar::Int(a), Scalar::Int(b), Scalar::Int(c)) => {
                let (a, b, c) = (a as i128, b as i128, c as i128);
                ((b - a + c - c.signum()) / c).max(0) as usize
            }
            _ => ((e - s) / st).ceil().max(0.0) as usize,
        };
        // Sizes are checked before anything is allocated (a range of 2^62 values must be an error, not a hang).
        crate::base::view::checked_numel(&[len])?;
        let mut bytes = crate::util::host::reserve(len, dtype.itemsize())?;
        let ints = dtype.category() != Category::Float;
        for i in 0..len {
            if ints {
                let v = start.as_i64() + i as i64 * step.as_i64();
                push_int(&mut bytes, v, dtype);
            } else {
                push_float(&mut bytes, s + i as f64 * st, dtype);
            }
        }
        Tensor::from_bytes(bytes, &[len], dtype, device)
    }

    /// torch.linspace: `steps` values from start to end, as torch's kernel computes them — in the dtype's
    /// precision (f32 for 16-bit dtypes, then rounded once), step = (end − start)/(steps − 1), the first half as
    /// fma(step, i, start) and the second as fma(−step, steps − 1 − i, end), so both ends are exact. Integer dtypes
    /// truncate start and end first and the values computed in f64 after.
    pub fn linspace(start: f64, end: f64, steps: i64, dtype: DType, device: DeviceId) -> Result<Tensor> {
        if steps < 0 {
            return Err(Error::Runtime("linspace(): number of steps must be non-negative".into()));
        }
        if dtype == DType::Bool && steps > 0 {
            return Err(Error::Unsupported("\"linspace_cpu\" not implemented for 'Bool'".into()));
        }
        let limit = match dtype {
            DType::F16 => Some(("c10::Half", 65504.0)),
            DType::BF16 => Some(("c10::BFloat16", 3.3895313892515355e38)),
            DType::I32 => Some(("int32_t", 2147483647.0)),
            DType::I64 => Some(("int64_t", 9.2e18)),
            _ => None,
        };
        if let Some((name, max)) = limit {
            if start.abs() > max || end.abs() > max {
                return Err(Error::Runtime(format!("value cannot be converted to type {name} without overflow")));
            }
        }
        let n = steps as usize;
        crate::base::view::checked_numel(&[n])?;
        // One step gives start; otherwise the first half counts up from start and the rest down from end.
        let half = if n == 1 { 1 } else { n / 2 };
        let mut bytes = crate::util::host::reserve(n, dtype.itemsize())?;
        match dtype {
            DType::F64 | DType::I32 | DType::I64 | DType::Bool => {
                let ints = dtype != DType::F64;
                let (s, e) = if ints { (start.trunc(), end.trunc()) } else { (start, end) };
                let step = if n > 1 { (e - s) / (n - 1) as f64 } else { 0.0 };
                for i in 0..n {
                    let v = if i < half { step.mul_add(i as f64, s) } else { (-step).mul_add((n - 1 - i) as f64, e) };
                    if ints {
                        push_int(&mut bytes, v as i64, dtype);
                    } else {
                        push_float(&mut bytes, v, dtype);
                    }
                }
            }
            DType::F32 => {
                let (s, e) = (start as f32, end as f32);
                let step = if n > 1 { (e - s) / (n - 1) as f32 } else { 0.0 };
                for i in 0..n {
                    let v = if i < half { step.mul_add(i as f32, s) } else { (-step).mul_add((n - 1 - i) as f32, e) };
                    push_float(&mut bytes, f64::from(v), dtype);
                }
            }
            // 16-bit types: every operation rounds to the type, as torch's Half/BFloat16 arithmetic does.
            DType::F16 | DType::BF16 => {
                let r = |x: f32| -> f32 {
                    if dtype == DType::F16 {
                        half::f16::from_f32(x).to_f32()
                    } else {
                        half::bf16::from_f32(x).to_f32()
                    }
                };
                let (s, e) = (r(start as f32), r(end as f32));
                let step = if n > 1 { r(r(e - s) / (n - 1) as f32) } else { 0.0 };
                for i in 0..n {
                    let v = if i < half { r(s + r(step * i as f32)) } else { r(e - r(step * (n - 1 - i) as f32)) };
                    push_float(&mut bytes, f64::from(v), dtype);
                }
            }
        }
        Tensor::from_bytes(bytes, &[n], dtype, device)
    }

    /// torch.eye: ones where row = column, built on the device from two index ranges.
    pub fn eye(n: usize, m: usize, dtype: DType, device: DeviceId) -> Result<Tensor> {
        let idx = |len: usize| -> Result<Tensor> {
            Tensor::arange(Scalar::Int(0), Scalar::Int(len as i64), Scalar::Int(1), DType::I64, device)
        };
        let rows = idx(n)?.unsqueeze(1)?;
        let cols = idx(m)?.unsqueeze(0)?;
        crate::api::elementwise::binary(&rows.into(), &cols.into(), crate::graph::op::BinaryOp::Eq)?.to_dtype(dtype)
    }

    pub fn rand(shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
        Tensor::random(shape, dtype, device, false)
    }

    pub fn randn(shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
        Tensor::random(shape, dtype, device, true)
    }

    /// rand/randn are generated in f32 and rounded to 16-bit dtypes by a cast node.
    fn random(shape: &[usize], dtype: DType, device: DeviceId, normal: bool) -> Result<Tensor> {
        // torch skips the dtype check of normal_ on empty tensors, but not uniform_'s.
        if !dtype.is_float() && (!normal || numel(shape) > 0) {
            let name = if normal { "normal_kernel_cpu" } else { "check_uniform_bounds" };
            return Err(Error::Unsupported(format!("\"{name}\" not implemented for '{}'", dtype.name())));
        }
        let n = numel(shape) as u64;
        // rand: one element per Philox word (4 per block); randn: two words per element (2 per block).
        let (seed, offset) = draw(if normal { n.div_ceil(2) } else { n.div_ceil(4) });
        let digits = match dtype {
            DType::F16 => 11,
            DType::BF16 => 8,
            _ => 24,
        };
        let op = if normal { Op::Randn { seed, offset } } else { Op::Rand { seed, offset, digits } };
        let gen = if dtype == DType::F64 { DType::F64 } else { DType::F32 };
        Tensor::make(op, &[], shape.to_vec(), gen, device)?.to_dtype(dtype)
    }
}

fn push_int(bytes: &mut Vec<u8>, v: i64, dtype: DType) {
    match dtype {
        DType::Bool => bytes.push((v != 0) as u8),
        DType::I32 => bytes.extend_from_slice(&(v as i32).to_le_bytes()),
        _ => bytes.extend_from_slice(&v.to_le_bytes()),
    }
}

/// Round an f64 to `dtype` once (f64 → f32 rounds to nearest even in hardware; 16-bit types go from f64 directly
/// via `half`, avoiding double rounding).
fn push_float(bytes: &mut Vec<u8>, v: f64, dtype: DType) {
    match dtype {
        DType::F64 => bytes.extend_from_slice(&v.to_le_bytes()),
        DType::F16 => bytes.extend_from_slice(&half::f16::from_f64(v).to_bits().to_le_bytes()),
        DType::BF16 => bytes.extend_from_slice(&half::bf16::from_f64(v).to_bits().to_le_bytes()),
        _ => bytes.extend_from_slice(&(v as f32).to_le_bytes()),
    }
}
