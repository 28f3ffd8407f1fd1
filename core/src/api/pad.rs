//! `F.pad(x, pad, mode, value)`: constant padding (negative amounts crop) by concatenation, and reflect, replicate
//! and circular padding by an index_select along each padded dim with positions computed on the host — so the
//! gradient of every mode comes from cat and gather.

use crate::api::gather::index_select_unchecked;
use crate::api::join::cat;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// How `pad` fills the new elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

impl PadMode {
    pub fn parse(name: &str) -> Result<PadMode> {
        match name {
            "constant" => Ok(PadMode::Constant),
            "reflect" => Ok(PadMode::Reflect),
            "replicate" => Ok(PadMode::Replicate),
            "circular" => Ok(PadMode::Circular),
            m => Err(Error::Value(format!(
                "Unrecognised padding mode {m}: expected constant, reflect, replicate or circular"
            ))),
        }
    }
}

/// `pad` holds (before, after) pairs starting from the last dim, as torch's.
pub fn pad(x: &Tensor, pad: &[i64], mode: PadMode, value: f64) -> Result<Tensor> {
    if !pad.len().is_multiple_of(2) {
        return Err(Error::Runtime("Padding length must be divisible by 2".into()));
    }
    let dims = pad.len() / 2;
    if dims > x.ndim() {
        return Err(Error::Runtime(format!(
            "Padding length should be less than or equal to two times the input dimension but got padding length {} \
             and input of dimension {}",
            pad.len(),
            x.ndim()
        )));
    }
    if mode != PadMode::Constant && !(x.ndim() == dims + 1 || x.ndim() == dims + 2) {
        return Err(Error::Unsupported(format!(
            "Padding size {} is not supported for {}D input tensor: non-constant padding pads the last 1, 2 or 3 dims \
             of an input with 1 or 2 more (batch and channel) dims",
            pad.len(),
            x.ndim()
        )));
    }
    let mut y = x.clone();
    for k in 0..dims {
        let d = x.ndim() - 1 - k;
        let (before, after) = (pad[2 * k], pad[2 * k + 1]);
        y = match mode {
            PadMode::Constant => constant(&y, d, before, after, value)?,
            m => indexed(&y, d, before, after, m)?,
        };
    }
    Ok(y)
}

/// Constant padding along `d`: negative amounts cut elements off, positive ones add `value`s.
fn constant(x: &Tensor, d: usize, before: i64, after: i64, value: f64) -> Result<Tensor> {
    let n = x.shape()[d] as i64;
    let (cut_b, cut_a) = (before.min(0).abs(), after.min(0).abs());
    if cut_b + cut_a > n {
        return Err(Error::Runtime(format!(
            "The input size {n}, plus negative padding {before} and {after} resulted in a negative output size"
        )));
    }
    let x = x.narrow(d as i64, cut_b, n - cut_b - cut_a)?;
    let fill = |len: i64| -> Result<Tensor> {
        let mut shape = x.shape().to_vec();
        shape[d] = len as usize;
        let v = if x.dtype().is_float() { Scalar::Float(value) } else { Scalar::Int(value as i64) };
        Tensor::full(&shape, v, x.dtype(), x.device())
    };
    let mut parts = Vec::new();
    if before > 0 {
        parts.push(fill(before)?);
    }
    parts.push(x.clone());
    if after > 0 {
        parts.push(fill(after)?);
    }
    if parts.len() == 1 {
        return Ok(x);
    }
    cat(&parts, d as i64)
}

/// The source position of each output position along a dim of `n` padded by (before, after) in `mode`.
fn positions(n: i64, before: i64, after: i64, mode: PadMode) -> Vec<i64> {
    (-before..n + after)
        .map(|i| match mode {
            PadMode::Reflect => {
                let i = i.abs();
                if i >= n {
                    2 * (n - 1) - i
                } else {
                    i
                }
            }
            PadMode::Replicate => i.clamp(0, n - 1),
            PadMode::Circular | PadMode::Constant => i.rem_euclid(n),
        })
        .collect()
}

fn indexed(x: &Tensor, d: usize, before: i64, after: i64, mode: PadMode) -> Result<Tensor> {
    let n = x.shape()[d] as i64;
    let ok = match mode {
        PadMode::Reflect => before < n && after < n && before > -n && after > -n,
        PadMode::Circular => before <= n && after <= n,
        PadMode::Replicate | PadMode::Constant => n > 0 || (before <= 0 && after <= 0),
    };
    if !ok {
        return Err(Error::Runtime(match mode {
            PadMode::Circular => "Padding value causes wrapping around more than once.".into(),
            _ => format!(
                "Padding size should be less than the corresponding input dimension, but got: padding ({before}, \
                 {after}) at dimension {d} of input {:?}",
                x.shape()
            ),
        }));
    }
    let idx = positions(n, before, after, mode);
    let len = idx.len();
    let bytes = idx.into_iter().flat_map(i64::to_le_bytes).collect();
    let idx = Tensor::from_bytes(bytes, &[len], DType::I64, x.device())?;
    index_select_unchecked(x, d, &idx)
}
