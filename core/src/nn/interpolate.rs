//! `F.interpolate` in modes nearest, (bi)linear over the spatial dims of (N, C, L) or (N, C, H, W) inputs: source
//! positions and weights computed on the host in f32 exactly as torch's CPU kernel computes them, rows picked by
//! index_select (so gradients come from gather) and blended in torch's order.

use crate::api::elementwise::{binary, mul, t};
use crate::api::gather::index_select_unchecked;
use crate::base::dtype::DType;
use crate::graph::op::BinaryOp;
use crate::nn::args::PerDim;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// How `interpolate` samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Nearest,
    /// linear for 3-d inputs, bilinear for 4-d ones.
    Linear,
}

/// The output size of each spatial dim and the scale torch uses for it (input/output, or 1/scale_factor).
fn sizes(input: &[usize], size: Option<&[usize]>, scale_factor: Option<&[f64]>) -> Result<Vec<(usize, f32)>> {
    // (output size as torch computes it, possibly ≤ 0, and the source step per output element).
    let plan: Vec<(f64, f32)> = match (size, scale_factor) {
        (Some(s), None) if s.len() == input.len() => {
            input.iter().zip(s).map(|(&i, &o)| (o as f64, if o > 0 { i as f32 / o as f32 } else { 0.0 })).collect()
        }
        (None, Some(f)) if f.len() == input.len() => {
            input.iter().zip(f).map(|(&i, &s)| ((i as f64 * s).floor(), (1.0 / s) as f32)).collect()
        }
        (Some(_), Some(_)) => return Err(Error::Value("only one of size or scale_factor should be defined".into())),
        (None, None) => return Err(Error::Value("either size or scale_factor should be defined".into())),
        _ => {
            return Err(Error::Value(format!(
                "Input and output must have the same number of spatial dimensions, but got input with spatial \
                 dimensions of {input:?}"
            )))
        }
    };
    if let Some(&(o, _)) = plan.iter().find(|&&(o, _)| o > u32::MAX as f64) {
        return Err(Error::Value(format!("interpolate: an output size of {o} is too large")));
    }
    if input.contains(&0) || plan.iter().any(|&(o, _)| o.is_nan() || o < 1.0) {
        let names = &["D", "H", "W"][3usize.saturating_sub(input.len())..];
        let show =
            |v: Vec<String>| names.iter().zip(v).map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join(", ");
        return Err(Error::Runtime(format!(
            "Input and output sizes should be greater than 0, but got input ({}) output ({})",
            show(input.iter().map(|i| i.to_string()).collect()),
            show(plan.iter().map(|(o, _)| format!("{o}")).collect())
        )));
    }
    Ok(plan.into_iter().map(|(o, step)| (o as usize, step)).collect())
}

fn index(v: Vec<i64>, device: crate::base::buffer::DeviceId) -> Result<Tensor> {
    let n = v.len();
    Tensor::from_bytes(v.into_iter().flat_map(i64::to_le_bytes).collect(), &[n], DType::I64, device)
}

/// Nearest: source = min(floor(dst·scale), in − 1), in f32 as torch.
fn nearest(x: &Tensor, d: usize, out: usize, scale: f32) -> Result<Tensor> {
    let n = x.shape()[d] as i64;
    let src: Vec<i64> = (0..out).map(|o| ((o as f32 * scale).floor() as i64).min(n - 1)).collect();
    index_select_unchecked(x, d, &index(src, x.device())?)
}

/// Linear along dim `d`: (1 − λ)·x[i0] + λ·x[i1] with torch's source positions (align_corners or half-pixel).
fn linear(x: &Tensor, d: usize, out: usize, scale: f32, align_corners: bool) -> Result<Tensor> {
    let n = x.shape()[d];
    let scale = if align_corners {
        if out > 1 {
            (n as f32 - 1.0) / (out as f32 - 1.0)
        } else {
            0.0
        }
    } else {
        scale
    };
    let (mut i0, mut i1, mut w1) = (Vec::new(), Vec::new(), Vec::new());
    for o in 0..out {
        let src = if align_corners { scale * o as f32 } else { (scale * (o as f32 + 0.5) - 0.5).max(0.0) };
        let lo = (src as usize).min(n.saturating_sub(1));
        let hi = if lo + 1 < n { lo + 1 } else { lo };
        i0.push(lo as i64);
        i1.push(hi as i64);
        w1.push(src - lo as f32);
    }
    let a = index_select_unchecked(x, d, &index(i0, x.device())?)?;
    let b = index_select_unchecked(x, d, &index(i1, x.device())?)?;
    let mut shape = vec![1usize; x.ndim()];
    shape[d] = out;
    let weights = |v: &[f32]| -> Result<Tensor> {
        let t = Tensor::from_bytes(v.iter().flat_map(|w| w.to_le_bytes()).collect(), &shape, DType::F32, x.device())?;
        t.to_dtype(x.dtype())
    };
    let w0: Vec<f32> = w1.iter().map(|w| 1.0 - w).collect();
    binary(&t(&mul(&a, &weights(&w0)?)?), &t(&mul(&b, &weights(&w1)?)?), BinaryOp::Add)
}

/// torch's `F.interpolate(x, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)`: modes
/// "nearest", "linear" (3-d) and "bilinear" (4-d); recompute_scale_factor takes the output size from the factor,
/// then the scale from the sizes.
pub fn interpolate(
    x: &Tensor,
    size: PerDim,
    scale_factor: PerDim,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> Result<Tensor> {
    let n = x.ndim().saturating_sub(2);
    let mode = match (mode, n) {
        ("nearest", _) => Mode::Nearest,
        ("linear", 1) | ("bilinear", 2) => Mode::Linear,
        _ => {
            return Err(Error::Value(format!(
                "interpolate: mode {mode:?} is not supported for {}-d input (nearest for 3-d and 4-d, linear for \
                 3-d, bilinear for 4-d)",
                x.ndim()
            )))
        }
    };
    if antialias {
        return Err(Error::Value("interpolate: antialias=True is not supported".into()));
    }
    if mode == Mode::Nearest && align_corners.is_some() {
        return Err(Error::Value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | \
             trilinear"
                .into(),
        ));
    }
    let mut scale = scale_factor.per_dim("scale_factor", n)?;
    let mut size = match size.per_dim("size", n)? {
        Some(v) if v.iter().any(|s| s.fract() != 0.0) => {
            return Err(Error::Dtype(format!("interpolate: size must be ints, got {v:?}")))
        }
        // A negative size is torch's "greater than 0" error below.
        v => v.map(|v| v.iter().map(|&s| s.max(0.0) as usize).collect::<Vec<_>>()),
    };
    if recompute_scale_factor == Some(true) {
        if let Some(f) = scale.take() {
            size =
                Some(x.shape()[2..].iter().zip(&f).map(|(&i, &s)| (i as f64 * s).floor().max(0.0) as usize).collect());
        }
    }
    resample(x, size.as_deref(), scale.as_deref(), mode, align_corners.unwrap_or(false))
}

/// `interpolate` over the dims after the first two, the sizes or factors one per dim.
fn resample(
    x: &Tensor,
    size: Option<&[usize]>,
    scale_factor: Option<&[f64]>,
    mode: Mode,
    align_corners: bool,
) -> Result<Tensor> {
    if !matches!(x.ndim(), 3 | 4) {
        return Err(Error::Unsupported(format!(
            "interpolate: inputs of 3 (N, C, L) or 4 (N, C, H, W) dims are supported, got {:?}",
            x.shape()
        )));
    }
    // torch's CPU kernels take floats only (and uint8, which vkml does not have).
    if !x.dtype().is_float() {
        let name = if mode == Mode::Linear { "upsample_linear" } else { "upsample_nearest" };
        return Err(Error::Unsupported(format!("\"{name}\" not implemented for '{}'", x.dtype().name())));
    }
    let plan = sizes(&x.shape()[2..], size, scale_factor)?;
    // Linear modes compute in f32 for 16-bit inputs and round once, as torch.
    let work = if mode == Mode::Linear { x.to_dtype(crate::base::dtype::opmath(x.dtype()))? } else { x.clone() };
    let mut y = work;
    for (k, &(out, scale)) in plan.iter().enumerate() {
        let d = 2 + k;
        y = match mode {
            Mode::Nearest => nearest(&y, d, out, scale)?,
            Mode::Linear => linear(&y, d, out, scale, align_corners)?,
        };
    }
    y.to_dtype(x.dtype())
}
