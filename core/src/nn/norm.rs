//! Normalisation layers over primitives (so gradients come from the primitives' rules): batch_norm (training
//! statistics with running-average updates, or the running statistics in eval), layer_norm and group_norm.

use crate::api::elementwise::{binary, s, sub, t};
use crate::base::dtype::{opmath, DType};
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::tensor::grad::no_grad;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn op(a: &Tensor, b: &Tensor, o: BinaryOp) -> Result<Tensor> {
    binary(&t(a), &t(b), o)
}

/// The dtype statistics are computed in: f32 for 16-bit inputs (as torch), else the input's; floats only.
fn stat_dtype(x: &Tensor, name: &str) -> Result<DType> {
    match x.dtype() {
        d if d.is_float() => Ok(opmath(d)),
        d => Err(Error::Unsupported(format!("\"{name}\" not implemented for '{}'", d.name()))),
    }
}

/// (x − mean) / √(var + eps) over `dims` (biased variance), with the mean and the biased variance (kept dims).
fn normalize(x: &Tensor, dims: &[i64], eps: f64) -> Result<(Tensor, Tensor, Tensor)> {
    let mean = x.mean(Some(dims), true)?;
    let centered = sub(&t(x), &t(&mean))?;
    let var = op(&centered, &centered, BinaryOp::Mul)?.mean(Some(dims), true)?;
    let inv = binary(&t(&var), &s(eps), BinaryOp::Add)?.unary(UnaryOp::Rsqrt)?;
    Ok((op(&centered, &inv, BinaryOp::Mul)?, mean, var))
}

/// y · weight + bias with the per-channel parameters shaped to broadcast as `shape`.
fn affine(y: Tensor, weight: Option<&Tensor>, bias: Option<&Tensor>, shape: &[i64]) -> Result<Tensor> {
    let y = match weight {
        Some(w) => op(&y, &w.to_dtype(y.dtype())?.reshape(shape)?, BinaryOp::Mul)?,
        None => y,
    };
    match bias {
        Some(b) => op(&y, &b.to_dtype(y.dtype())?.reshape(shape)?, BinaryOp::Add),
        None => Ok(y),
    }
}

/// A per-channel parameter must have one value per channel. batch_norm reports a wrong one as torch does, from the
/// index it fails on; the others with torch's RuntimeError.
fn check_param(p: Option<&Tensor>, n: usize, what: &str) -> Result<()> {
    match p {
        Some(p) if p.shape() != [n] => Err(Error::Runtime(format!(
            "Expected {what} to be a vector of size equal to the number of channels in input ({n}), but got {what} \
             of shape {:?}",
            p.shape()
        ))),
        _ => Ok(()),
    }
}

/// batch_norm's per-channel tensors, with torch's message.
fn check_channels(p: Option<&Tensor>, c: usize, what: &str) -> Result<()> {
    match p {
        Some(p) if p.shape() != [c] => {
            Err(Error::Runtime(format!("{what} should contain {c} elements not {}", p.numel())))
        }
        _ => Ok(()),
    }
}

/// `batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)` over (N, C, …): statistics
/// per channel C. In training the running statistics (when given) are updated in place as torch does: the mean,
/// and the unbiased variance, averaged with `momentum`.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    x: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<Tensor> {
    if x.ndim() < 2 {
        return Err(Error::Runtime(format!(
            "batch_norm: expected at least 2-D input (N, C, ...), got {:?}",
            x.shape()
        )));
    }
    let c = x.shape()[1];
    if x.numel() == 0 {
        // As torch: an empty batch comes back empty before sizes or the dtype are looked at, though torch reads
        // weight[0] and bias[0] where they are given.
        if let Some(p) = [weight, bias].into_iter().flatten().find(|p| p.numel() == 0) {
            return Err(Error::Index(format!(
                "select(): index 0 out of range for tensor of size {:?} at dimension 0",
                p.shape()
            )));
        }
        return x.copy();
    }
    for (p, what) in [(running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"), (bias, "bias")]
    {
        check_channels(p, c, what)?;
    }
    let d = stat_dtype(x, "batch_norm")?;
    let mut shape = vec![1i64; x.ndim()];
    shape[1] = c as i64;
    let dims: Vec<i64> = (0..x.ndim() as i64).filter(|&i| i != 1).collect();
    let xc = x.to_dtype(d)?;
    let y = if training {
        let per_channel = x.numel() / c.max(1);
        if per_channel <= 1 {
            return Err(Error::Value(format!(
                "Expected more than 1 value per channel when training, got input size {:?}",
                x.shape()
            )));
        }
        let (y, mean, var) = normalize(&xc, &dims, eps)?;
        if let (Some(rm), Some(rv)) = (running_mean, running_var) {
            no_grad(|| -> Result<()> {
                let n = per_channel as f64;
                let unbiased = binary(&t(&var.reshape(&[c as i64])?), &s(n / (n - 1.0)), BinaryOp::Mul)?;
                let blend = |r: &Tensor, v: &Tensor| -> Result<Tensor> {
                    let keep = binary(&t(r), &s(1.0 - momentum), BinaryOp::Mul)?;
                    let add = binary(&t(&v.to_dtype(r.dtype())?), &s(momentum), BinaryOp::Mul)?;
                    op(&keep, &add, BinaryOp::Add)
                };
                rm.assign(&blend(rm, &mean.detach().reshape(&[c as i64])?)?)?;
                rv.assign(&blend(rv, &unbiased.detach())?)
            })?;
        }
        y
    } else {
        let (Some(rm), Some(rv)) = (running_mean, running_var) else {
            return Err(Error::Value("batch_norm in eval mode needs running_mean and running_var".into()));
        };
        let mean = rm.to_dtype(d)?.reshape(&shape)?;
        let inv = binary(&t(&rv.to_dtype(d)?.reshape(&shape)?), &s(eps), BinaryOp::Add)?.unary(UnaryOp::Rsqrt)?;
        op(&sub(&t(&xc), &t(&mean))?, &inv, BinaryOp::Mul)?
    };
    affine(y, weight, bias, &shape)?.to_dtype(x.dtype())
}

/// `layer_norm(x, normalized_shape, weight, bias, eps)`: statistics over the trailing `normalized_shape` dims.
pub fn layer_norm(
    x: &Tensor,
    normalized_shape: Vec<usize>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let k = normalized_shape.len();
    if k == 0 || x.ndim() < k || x.shape()[x.ndim() - k..] != normalized_shape[..] {
        return Err(Error::Runtime(format!(
            "Given normalized_shape={normalized_shape:?}, expected input with shape [*, {}], but got input of size \
             {:?}",
            normalized_shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "),
            x.shape()
        )));
    }
    for (p, what) in [(weight, "weight"), (bias, "bias")] {
        if let Some(p) = p {
            if p.shape() != normalized_shape {
                return Err(Error::Runtime(format!(
                    "{what} should have shape {normalized_shape:?}, got {:?}",
                    p.shape()
                )));
            }
        }
    }
    let d = stat_dtype(x, "layer_norm")?;
    let dims: Vec<i64> = ((x.ndim() - k) as i64..x.ndim() as i64).collect();
    let (y, _, _) = normalize(&x.to_dtype(d)?, &dims, eps)?;
    let shape: Vec<i64> = normalized_shape.iter().map(|&v| v as i64).collect();
    affine(y, weight, bias, &shape)?.to_dtype(x.dtype())
}

/// `group_norm(x, num_groups, weight, bias, eps)` over (N, C, …): statistics per sample and group of channels.
pub fn group_norm(
    x: &Tensor,
    num_groups: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    if x.ndim() < 2 || num_groups == 0 || !x.shape()[1].is_multiple_of(num_groups) {
        return Err(Error::Runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {:?} and \
             num_groups={num_groups}",
            x.shape()
        )));
    }
    let c = x.shape()[1];
    check_param(weight, c, "weight")?;
    check_param(bias, c, "bias")?;
    let d = stat_dtype(x, "group_norm")?;
    let n = x.shape()[0] as i64;
    let grouped = x.to_dtype(d)?.reshape(&[n, num_groups as i64, -1])?;
    let (y, _, _) = normalize(&grouped, &[2], eps)?;
    let full: Vec<i64> = x.shape().iter().map(|&v| v as i64).collect();
    let mut shape = vec![1i64; x.ndim()];
    shape[1] = c as i64;
    affine(y.reshape(&full)?, weight, bias, &shape)?.to_dtype(x.dtype())
}
