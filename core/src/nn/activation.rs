//! Activation functions written once over the primitives (torch.nn.functional's names and defaults). 16-bit inputs
//! compute in f32 and round once, as torch's kernels do. Where torch's gradient at a kink differs from what the
//! composite's primitives would give (clamp, hardtanh, hardsigmoid), the value is taken detached outside the smooth
//! region; a branch `where` discards is fed a harmless input so that 0·inf never reaches the gradient.

/// The activations whose only argument is the input, each a function of this module of the same name: the
/// front ends expand their bindings from this one list (`plain_activations!(cb)` expands `cb!(relu6, ...)`).
#[macro_export]
macro_rules! plain_activations {
    ($callback:ident) => {
        $callback!(relu6, selu, silu, mish, logsigmoid, softsign, hardsigmoid, hardswish);
    };
}

use crate::api::elementwise::{binary, plus, s, scale, t, where_};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::nn::functional::sigmoid;
use crate::tensor::check::compute_dtype;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn cmp(x: &Tensor, op: BinaryOp, v: f64) -> Result<Tensor> {
    binary(&t(x), &s(v), op)
}

fn and(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(&t(a), &t(b), BinaryOp::BitAnd)
}

/// `x` where `keep` is false, 0 where it is true: the input of a branch that `keep` discards, kept finite.
fn outside(keep: &Tensor, x: &Tensor) -> Result<Tensor> {
    where_(keep, &s(0.0), &t(x))
}

/// Float-only activations: the compute dtype and the result dtype, or torch's error for other dtypes.
fn floats(x: &Tensor, op: &str) -> Result<(Tensor, DType)> {
    let d = compute_dtype(x, op, false)?;
    Ok((x.to_dtype(d)?, x.dtype()))
}

/// `hardtanh(x, min_val, max_val)`: clamp with torch's gradient (0 at and beyond the bounds, 1 elsewhere, NaN
/// included).
pub fn hardtanh(x: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(Error::Unsupported("\"hardtanh\" not implemented for 'Bool'".into()));
    }
    // Integer inputs keep their dtype: the bounds convert to it, as torch's Scalars do.
    let bound = |v: f64| if x.dtype().is_float() { s(v) } else { Operand::Scalar(Scalar::Int(v as i64)) };
    let clamped = clamp_values(&x.detach(), Some(&bound(lo)), Some(&bound(hi)), false)?;
    let outside = binary(&t(&cmp(x, BinaryOp::Le, lo)?), &t(&cmp(x, BinaryOp::Ge, hi)?), BinaryOp::BitOr)?;
    where_(&outside, &t(&clamped), &t(x))
}

pub fn relu6(x: &Tensor) -> Result<Tensor> {
    hardtanh(x, 0.0, 6.0)
}

/// min(max(x, lo), hi) with torch's NaN propagation and promotion; no gradient rule of its own. Between equal zeros
/// torch's clamp returns the bound and its hardtanh the input (maximum returns its first operand on ties).
fn clamp_values(x: &Tensor, lo: Option<&Operand>, hi: Option<&Operand>, bound_wins: bool) -> Result<Tensor> {
    let pick = |a: &Operand, b: &Operand, op| if bound_wins { binary(b, a, op) } else { binary(a, b, op) };
    let mut r = x.clone();
    if let Some(lo) = lo {
        r = pick(&t(&r), lo, BinaryOp::Maximum)?;
    }
    if let Some(hi) = hi {
        r = pick(&t(&r), hi, BinaryOp::Minimum)?;
    }
    Ok(r)
}

/// `clamp(x, min, max)` (tensors or scalars): the gradient reaches x where lo ≤ x ≤ hi, as in torch.
pub fn clamp(x: &Tensor, lo: Option<&Operand>, hi: Option<&Operand>) -> Result<Tensor> {
    if lo.is_none() && hi.is_none() {
        return Err(Error::Value("torch.clamp: At least one of 'min' or 'max' must not be None".into()));
    }
    let values = clamp_values(&x.detach(), lo, hi, true)?;
    if !x.requires_grad() || !crate::tensor::grad::is_grad_enabled() {
        return Ok(values);
    }
    let mut inside: Option<Tensor> = None;
    for (bound, op) in [(lo, BinaryOp::Ge), (hi, BinaryOp::Le)] {
        if let Some(b) = bound {
            let m = binary(&t(x), b, op)?;
            inside = Some(match inside {
                Some(prev) => and(&prev, &m)?,
                None => m,
            });
        }
    }
    match inside {
        Some(mask) => where_(&mask, &t(&x.to_dtype(values.dtype())?), &t(&values)),
        None => Ok(values),
    }
}

/// `leaky_relu(x, negative_slope)`: x where x > 0, else x·slope.
pub fn leaky_relu(x: &Tensor, slope: f64) -> Result<Tensor> {
    let (xc, out) = floats(x, "leaky_relu")?;
    let pos = cmp(&xc, BinaryOp::Gt, 0.0)?;
    where_(&pos, &t(&xc), &t(&scale(&xc, slope)?))?.to_dtype(out)
}

/// α·expm1(x) for x ≤ 0 (x itself above), with x > 0 kept out of the discarded branch.
fn elu_core(xc: &Tensor, alpha: f64, input_scale: f64) -> Result<Tensor> {
    let pos = cmp(xc, BinaryOp::Gt, 0.0)?;
    let neg = scale(&scale(&outside(&pos, xc)?, input_scale)?.unary(UnaryOp::Expm1)?, alpha)?;
    where_(&pos, &t(xc), &t(&neg))
}

pub fn elu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    let (xc, out) = floats(x, "elu")?;
    elu_core(&xc, alpha, 1.0)?.to_dtype(out)
}

/// `selu(x)` = scale·elu(x, α) with the constants of Klambauer et al. (torch's values).
pub fn selu(x: &Tensor) -> Result<Tensor> {
    const ALPHA: f64 = 1.6732632423543772848170429916717;
    const SCALE: f64 = 1.0507009873554804934193349852946;
    let (xc, out) = floats(x, "selu")?;
    scale(&elu_core(&xc, ALPHA, 1.0)?, SCALE)?.to_dtype(out)
}

/// `celu(x, α)` = max(0, x) + min(0, α·expm1(x/α)).
pub fn celu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    if alpha == 0.0 {
        return Err(Error::Runtime("ZeroDivisionError".into()));
    }
    let (xc, out) = floats(x, "celu")?;
    elu_core(&xc, alpha, 1.0 / alpha)?.to_dtype(out)
}

/// `gelu(x, approximate)`: "none" is x·Φ(x) = x·erfc(−x/√2)/2 (erfc, not 1 + erf, which cancels for negative x);
/// "tanh" is x·(1 + tanh(√(2/π)(x + 0.044715x³)))/2 = x·sigmoid(2·√(2/π)(x + 0.044715x³)), likewise.
pub fn gelu(x: &Tensor, approximate: &str) -> Result<Tensor> {
    let (xc, out) = floats(x, "GeluKernelImpl")?;
    let phi = match approximate {
        "none" => scale(&scale(&xc, -std::f64::consts::FRAC_1_SQRT_2)?.unary(UnaryOp::Erfc)?, 0.5)?,
        "tanh" => {
            let cube = binary(&t(&xc), &t(&binary(&t(&xc), &t(&xc), BinaryOp::Mul)?), BinaryOp::Mul)?;
            let inner = binary(&t(&xc), &t(&scale(&cube, 0.044715)?), BinaryOp::Add)?;
            sigmoid(&scale(&inner, 2.0 * (2.0 / std::f64::consts::PI).sqrt())?)?
        }
        other => return Err(Error::Value(format!("approximate argument must be either none or tanh, got {other}"))),
    };
    binary(&t(&xc), &t(&phi), BinaryOp::Mul)?.to_dtype(out)
}

/// `silu(x)` = x·sigmoid(x).
pub fn silu(x: &Tensor) -> Result<Tensor> {
    let (xc, out) = floats(x, "silu")?;
    binary(&t(&xc), &t(&sigmoid(&xc)?), BinaryOp::Mul)?.to_dtype(out)
}

/// softplus in the compute dtype: x where β·x > threshold, else log1p(exp(β·x))/β.
fn softplus_core(xc: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    let bx = scale(xc, beta)?;
    let linear = cmp(&bx, BinaryOp::Gt, threshold)?;
    let soft = binary(&t(&outside(&linear, &bx)?.exp()?.unary(UnaryOp::Log1p)?), &s(beta), BinaryOp::Div)?;
    where_(&linear, &t(xc), &t(&soft))
}

pub fn softplus(x: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    let (xc, out) = floats(x, "softplus")?;
    softplus_core(&xc, beta, threshold)?.to_dtype(out)
}

/// `mish(x)` = x·tanh(softplus(x)).
pub fn mish(x: &Tensor) -> Result<Tensor> {
    let (xc, out) = floats(x, "mish")?;
    let sp = softplus_core(&xc, 1.0, 20.0)?;
    binary(&t(&xc), &t(&sp.unary(UnaryOp::Tanh)?), BinaryOp::Mul)?.to_dtype(out)
}

/// `logsigmoid(x)` = min(x, 0) − log1p(exp(−|x|)): no overflow either way.
pub fn logsigmoid(x: &Tensor) -> Result<Tensor> {
    let (xc, out) = floats(x, "log_sigmoid_forward")?;
    let tail = xc.unary(UnaryOp::Abs)?.neg()?.exp()?.unary(UnaryOp::Log1p)?;
    let m = binary(&t(&xc), &s(0.0), BinaryOp::Minimum)?;
    binary(&t(&m), &t(&tail.neg()?), BinaryOp::Add)?.to_dtype(out)
}

/// `softsign(x)` = x / (1 + |x|).
pub fn softsign(x: &Tensor) -> Result<Tensor> {
    // |x| first: torch refuses bool there.
    let a = x.unary(UnaryOp::Abs)?;
    let d = if x.dtype().is_float() { x.dtype() } else { DType::F32 };
    binary(&t(&x.to_dtype(d)?), &t(&plus(&a.to_dtype(d)?, 1.0)?), BinaryOp::Div)
}

/// `hardsigmoid(x)` = clamp(x + 3, 0, 6)/6, gradient 1/6 strictly inside (−3, 3).
pub fn hardsigmoid(x: &Tensor) -> Result<Tensor> {
    let (xc, out) = floats(x, "hardsigmoid_cpu")?;
    let inside = and(&cmp(&xc, BinaryOp::Gt, -3.0)?, &cmp(&xc, BinaryOp::Lt, 3.0)?)?;
    let smooth = binary(&t(&plus(&xc, 3.0)?), &s(6.0), BinaryOp::Div)?;
    let flat = binary(
        &t(&clamp_values(&plus(&xc.detach(), 3.0)?, Some(&s(0.0)), Some(&s(6.0)), false)?),
        &s(6.0),
        BinaryOp::Div,
    )?;
    where_(&inside, &t(&smooth), &t(&flat))?.to_dtype(out)
}

/// `hardswish(x)` = x·clamp(x + 3, 0, 6)/6: x·(x + 3)/6 strictly inside (−3, 3) with gradient (2x + 3)/6, x from 3
/// up (torch's x·6/6 overflows for huge x), x·0 from −3 down (−0 for negative x, as torch) with no gradient.
pub fn hardswish(x: &Tensor) -> Result<Tensor> {
    let (xc, out) = floats(x, "hardswish_cpu")?;
    let below = cmp(&xc, BinaryOp::Le, -3.0)?;
    let inside = cmp(&xc, BinaryOp::Lt, 3.0)?;
    let mid = binary(&t(&binary(&t(&xc), &t(&plus(&xc, 3.0)?), BinaryOp::Mul)?), &s(6.0), BinaryOp::Div)?;
    let upper = where_(&inside, &t(&mid), &t(&xc))?;
    where_(&below, &t(&scale(&xc.detach(), 0.0)?), &t(&upper))?.to_dtype(out)
}
