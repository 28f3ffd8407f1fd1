//! Network math written once over the primitives, so its gradients come from the primitives' rules: linear,
//! sigmoid, the softmax family and the losses, with torch's signatures and semantics.

use crate::api::elementwise::{binary, div, mul, s, sub, t, where_};
use crate::api::gather;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::graph::op::{BinaryOp, Op};
use crate::tensor::check::{compute_dtype, declared, out_dtype};
use crate::tensor::host::host_i64;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// How a loss reduces its per-element values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    pub fn parse(name: &str) -> Result<Reduction> {
        match name {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            _ => Err(Error::Value(format!("{name} is not a valid value for reduction"))),
        }
    }
}

/// `linear(x, weight, bias)`: x @ weightᵀ + bias, weight of shape (out, in).
pub fn linear(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if weight.ndim() != 2 && weight.ndim() != 1 {
        return Err(Error::Shape(format!("linear: weight must be 1-D or 2-D, got shape {:?}", weight.shape())));
    }
    declared("linear", x)?;
    let y = x.matmul_acc(&weight.t()?)?;
    match bias {
        Some(b) => binary(&t(&y), &t(&b.to_dtype(y.dtype())?), BinaryOp::Add)?.to_dtype(x.dtype()),
        None => y.to_dtype(x.dtype()),
    }
}

/// sigmoid(x) = 1 / (1 + exp(−x)); exp(−x) = inf gives 0, as torch.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    let d = compute_dtype(x, "sigmoid", true)?;
    let e = x.to_dtype(d)?.neg()?.exp()?;
    let r = binary(&s(1.0), &binary(&s(1.0), &t(&e), BinaryOp::Add)?.into(), BinaryOp::Div)?;
    r.to_dtype(out_dtype(x))
}

/// The shift that keeps exp in range: the max over `dim` (kept), with no history (its gradient cancels exactly),
/// and 0 where the max is infinite, so rows of −inf give −inf and +inf gives +inf, as torch's logsumexp.
fn shift(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let m = x.detach().amax(Some(dims), true)?;
    let inf = binary(&t(&m.unary(crate::graph::op::UnaryOp::Abs)?), &s(f64::INFINITY), BinaryOp::Eq)?;
    where_(&inf, &Operand::Scalar(Scalar::Int(0)), &t(&m))
}

/// `logsumexp(x, dims, keepdim)`: m + log Σ exp(x − m).
pub fn logsumexp(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let d = compute_dtype(x, "logsumexp", true)?;
    let xc = x.to_dtype(d)?;
    let reduced = xc.reduce_dims((!dims.is_empty()).then_some(dims))?;
    if reduced.iter().any(|&d| xc.shape()[d] == 0) {
        // An empty sum is 0, so its log is −inf (amax, the shift, has no value there); −inf added to the empty sum
        // keeps the result in the graph, as torch's is (its gradient is empty).
        let empty = xc.sum((!dims.is_empty()).then_some(dims), keepdim)?;
        return binary(&t(&empty), &s(f64::NEG_INFINITY), BinaryOp::Add)?.to_dtype(out_dtype(x));
    }
    let m = shift(&xc, dims)?;
    let e = sub(&t(&xc), &t(&m))?.exp()?;
    let l = binary(&t(&e.sum(Some(dims), true)?.log()?), &t(&m), BinaryOp::Add)?;
    let l = if keepdim { l } else { l.squeeze(Some(dims))? };
    l.to_dtype(out_dtype(x))
}

/// softmax or log_softmax along `dim` through the row primitive (`Op::Softmax`), which works along the last dim: x
/// in its compute dtype, `dim` swapped last and back (the result contiguous, as torch's). A 0-d x is one element
/// along a dim of its own, as torch treats it; 16-bit inputs compute in f32 and round once.
fn softmax_along(x: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    let op = Op::Softmax { log };
    if x.numel() == 0 && !x.dtype().is_float() {
        return x.copy(); // as torch: an empty integer tensor comes back before the dtype is looked at
    }
    let xs = if x.ndim() == 0 { x.unsqueeze(0)? } else { x.clone() };
    // torch checks the dim before the dtype.
    let dim = wrap_dim(dim, xs.ndim())?;
    let d = compute_dtype(&xs, op.name(), false)?;
    let last = xs.ndim() - 1;
    let xc = xs.to_dtype(d)?;
    let xt = if dim == last { xc } else { xc.transpose(dim as i64, last as i64)? };
    let y = Tensor::make(op, &[&xt], xt.shape().to_vec(), d, x.device())?;
    let y = if dim == last { y } else { y.transpose(dim as i64, last as i64)?.contiguous()? };
    let y = if x.ndim() == 0 { y.squeeze(None)? } else { y };
    y.to_dtype(x.dtype())
}

/// `log_softmax(x, dim)`: (x − m) − log Σ exp(x − m), in torch's order of operations.
pub fn log_softmax(x: &Tensor, dim: i64) -> Result<Tensor> {
    softmax_along(x, dim, true)
}

/// `softmax(x, dim)`: exp(x − m) / Σ exp(x − m).
pub fn softmax(x: &Tensor, dim: i64) -> Result<Tensor> {
    softmax_along(x, dim, false)
}

fn reduce(loss: Tensor, reduction: Reduction) -> Result<Tensor> {
    match reduction {
        Reduction::None => Ok(loss),
        Reduction::Sum => loss.sum(None, false),
        Reduction::Mean => loss.mean(None, false),
    }
}

/// The class dim moved last: (N, C, d1, …) → (N, d1, …, C); (C,) stays.
fn classes_last(x: &Tensor) -> Result<Tensor> {
    if x.ndim() <= 2 {
        return Ok(x.clone());
    }
    let mut perm: Vec<i64> = vec![0];
    perm.extend(2..x.ndim() as i64);
    perm.push(1);
    x.permute(&perm)
}

/// Class-index targets checked on the host: int64, the input's batch shape, each in [0, C) or `ignore_index`.
/// Targets made from host data are read from that data (no device round trip); others are read back.
fn check_targets(target: &Tensor, batch: &[usize], classes: usize, ignore_index: i64) -> Result<()> {
    if target.dtype() != DType::I64 {
        return Err(Error::Runtime(format!(
            "expected scalar type Long but found {} (class-index targets must be int64)",
            target.dtype().name()
        )));
    }
    if let (Some(&n), Some(&m)) = (batch.first(), target.shape().first()) {
        if n != m {
            return Err(Error::Value(format!("Expected input batch_size ({n}) to match target batch_size ({m}).")));
        }
    }
    if target.shape() != batch {
        return Err(Error::Shape(format!(
            "Expected target of shape {batch:?} for an input with {classes} classes, got {:?}",
            target.shape()
        )));
    }
    let values = host_i64(target)?;
    if let Some(bad) = values.iter().find(|&&v| v != ignore_index && (v < 0 || v >= classes as i64)) {
        return Err(Error::Index(format!("Target {bad} is out of bounds.")));
    }
    Ok(())
}

/// Per-element class weights `w[target]` (0 where the target is ignored) and the picked log-probabilities
/// `logp[target]`, for `logp` with classes last.
fn pick(
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let c = *logp.shape().last().unwrap_or(&1);
    let classes = Tensor::arange(Scalar::Int(0), Scalar::Int(c as i64), Scalar::Int(1), DType::I64, logp.device())?;
    let onehot = binary(&t(&target.unsqueeze(-1)?), &t(&classes), BinaryOp::Eq)?;
    let valid = binary(&t(target), &Operand::Scalar(Scalar::Int(ignore_index)), BinaryOp::Ne)?;
    let zero = Operand::Scalar(Scalar::Int(0));
    let picked = where_(&onehot, &t(logp), &zero)?.sum(Some(&[-1]), false)?;
    let w = match weight {
        Some(w) => {
            let w = where_(&onehot, &t(&w.to_dtype(logp.dtype())?), &zero)?.sum(Some(&[-1]), false)?;
            where_(&valid, &t(&w), &zero)?
        }
        // A weight of 1 where the target counts is the mask itself: one kernel, not a tensor of ones and a select.
        None => valid.to_dtype(logp.dtype())?,
    };
    Ok((picked, w, valid))
}

fn check_weight(weight: Option<&Tensor>, classes: usize) -> Result<()> {
    if let Some(w) = weight {
        if w.shape() != [classes] {
            return Err(Error::Shape(format!(
                "weight tensor should be defined either for all {classes} classes or no classes but got weight \
                 tensor of shape: {:?}",
                w.shape()
            )));
        }
    }
    Ok(())
}

/// The (N, C, d…) / (C,) layout check shared by the losses over class scores.
fn split_classes(input: &Tensor) -> Result<(usize, Vec<usize>)> {
    match input.ndim() {
        0 => Err(Error::Shape("cross_entropy/nll_loss: input must have at least 1 dimension".into())),
        1 => Ok((input.shape()[0], vec![])),
        _ => {
            let mut batch = vec![input.shape()[0]];
            batch.extend_from_slice(&input.shape()[2..]);
            Ok((input.shape()[1], batch))
        }
    }
}

/// `nll_loss(logp, target, weight, ignore_index, reduction)` over log-probabilities (N, C, d…) or (C,).
pub fn nll_loss(
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let (classes, batch) = split_classes(logp)?;
    check_weight(weight, classes)?;
    check_targets(target, &batch, classes, ignore_index)?;
    if !logp.dtype().is_float() {
        return Err(Error::Unsupported(format!(
            "\"nll_loss_out_frame\" not implemented for '{}'",
            logp.dtype().name()
        )));
    }
    let (picked, w, _) = pick(&classes_last(logp)?, target, weight, ignore_index)?;
    let loss = mul(&picked, &w)?.neg()?;
    match reduction {
        Reduction::Mean => div(&loss.sum(None, false)?, &w.sum(None, false)?),
        r => reduce(loss, r),
    }
}

/// `cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)`: class indices (int64, the
/// batch shape) or class probabilities (the input's shape).
pub fn cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&label_smoothing) {
        return Err(Error::Value(format!("label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")));
    }
    let (classes, batch) = split_classes(input)?;
    check_weight(weight, classes)?;
    let cdim = if input.ndim() == 1 { 0 } else { 1 };
    let logp = classes_last(&log_softmax(input, cdim)?)?;
    let wvec = match weight {
        Some(w) => w.to_dtype(logp.dtype())?,
        None => Tensor::full(&[classes], Scalar::Int(1), logp.dtype(), logp.device())?,
    };
    let eps = label_smoothing;
    if target.dtype().is_float() {
        // Class probabilities: −Σ_c w_c · p_c · logp_c, with p smoothed towards uniform; mean divides by the batch.
        if target.shape() != input.shape() {
            return Err(Error::Shape(format!(
                "Expected target of shape {:?} (class probabilities), got {:?}",
                input.shape(),
                target.shape()
            )));
        }
        let p = classes_last(&target.to_dtype(logp.dtype())?)?;
        let p = if eps > 0.0 {
            binary(&binary(&t(&p), &s(1.0 - eps), BinaryOp::Mul)?.into(), &s(eps / classes as f64), BinaryOp::Add)?
        } else {
            p
        };
        let loss = mul(&mul(&p, &logp)?, &wvec)?.sum(Some(&[-1]), false)?.neg()?;
        return match reduction {
            Reduction::Mean if input.ndim() > 1 => {
                binary(&t(&loss.sum(None, false)?), &s(batch.iter().product::<usize>() as f64), BinaryOp::Div)
            }
            r => reduce(loss, r),
        };
    }
    check_targets(target, &batch, classes, ignore_index)?;
    let (picked, w, valid) = pick(&logp, target, weight, ignore_index)?;
    let mut loss = mul(&picked, &w)?.neg()?;
    if eps > 0.0 {
        let zero = Operand::Scalar(Scalar::Int(0));
        let smooth = mul(&logp, &wvec)?.sum(Some(&[-1]), false)?.neg()?;
        let smooth = where_(&valid, &t(&smooth), &zero)?;
        loss = binary(
            &binary(&t(&loss), &s(1.0 - eps), BinaryOp::Mul)?.into(),
            &binary(&t(&smooth), &s(eps / classes as f64), BinaryOp::Mul)?.into(),
            BinaryOp::Add,
        )?;
    }
    match reduction {
        Reduction::Mean => div(&loss.sum(None, false)?, &w.sum(None, false)?),
        r => reduce(loss, r),
    }
}

/// `mse_loss(input, target, reduction)`: (input − target)², broadcast as torch does.
pub fn mse_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    let rt = crate::tensor::promote::result_type(&[&t(input), &t(target)]);
    if !rt.is_float() {
        return Err(Error::Unsupported(format!("\"mse_cpu\" not implemented for '{}'", rt.name())));
    }
    let d = sub(&t(&input.to_dtype(rt)?), &t(&target.to_dtype(rt)?))?;
    reduce(mul(&d, &d)?, reduction)
}

/// `dropout(x, p, training)`: zero each element with probability p and scale the rest by 1/(1−p).
/// torch's `F.pad(input, pad, mode, value)`: (before, after) amounts from the last dim (negative ones crop), modes
/// "constant" (value, else 0), "reflect", "replicate" and "circular".
pub fn pad(x: &Tensor, pad: Vec<i64>, mode: &str, value: Option<f64>) -> Result<Tensor> {
    crate::api::pad::pad(x, &pad, crate::api::pad::PadMode::parse(mode)?, value.unwrap_or(0.0))
}

pub fn dropout(x: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::Value(format!("dropout probability has to be between 0 and 1, but got {p}")));
    }
    if !training || p == 0.0 {
        return Ok(x.clone());
    }
    if x.numel() == 0 {
        return x.copy(); // as torch: nothing to drop, whatever the dtype
    }
    if !x.dtype().is_float() {
        return Err(Error::Runtime(format!(
            "result type Float can't be cast to the desired output type {}",
            x.dtype().name()
        )));
    }
    if p == 1.0 {
        return mul(x, &Tensor::full(x.shape(), Scalar::Int(0), x.dtype(), x.device())?);
    }
    // torch: input · mask · (1/(1−p)), the scalar product computed as for any Python scalar.
    let keep = binary(&t(&Tensor::rand(x.shape(), DType::F32, x.device())?), &s(1.0 - p), BinaryOp::Lt)?;
    let kept = mul(x, &keep.to_dtype(x.dtype())?)?;
    binary(&t(&kept), &s(1.0 / (1.0 - p)), BinaryOp::Mul)
}

/// `uniform_(a, b)`: fill in place with a + (b − a)·U[0, 1), no history (an initialiser).
pub fn uniform_(x: &Tensor, a: f64, b: f64) -> Result<()> {
    let u = Tensor::rand(x.shape(), DType::F32, x.device())?;
    let v = binary(&binary(&t(&u), &s(b - a), BinaryOp::Mul)?.into(), &s(a), BinaryOp::Add)?;
    crate::tensor::grad::no_grad(|| x.assign(&v))
}

/// `normal_(mean, std)`: fill in place with mean + std·N(0, 1), no history.
pub fn normal_(x: &Tensor, mean: f64, std: f64) -> Result<()> {
    let n = Tensor::randn(x.shape(), DType::F32, x.device())?;
    let v = binary(&binary(&t(&n), &s(std), BinaryOp::Mul)?.into(), &s(mean), BinaryOp::Add)?;
    crate::tensor::grad::no_grad(|| x.assign(&v))
}

/// `one_hot(x, num_classes)`: int64 indices to rows of 0/1 (int64); num_classes = −1 takes max + 1. The values are
/// checked against the class count as torch's CPU kernel does, which reads them (`gather::read_bounds`: host data
/// directly, else a realization point).
pub fn one_hot(x: &Tensor, num_classes: i64) -> Result<Tensor> {
    one_hot_with(x, num_classes, gather::read_bounds(x)?.into())
}

/// one_hot under a `gather::Check`: known bounds are checked now; a deferred check (a browser's device index, with
/// a class count) is raised at the next read, and values outside [0, num_classes) give rows of zeros meanwhile.
pub fn one_hot_with(x: &Tensor, num_classes: i64, check: gather::Check) -> Result<Tensor> {
    if x.dtype() != DType::I64 {
        return Err(Error::Runtime("one_hot is only applicable to index tensor of type LongTensor.".into()));
    }
    let classes = match (num_classes, &check) {
        (-1, gather::Check::Known(None)) => {
            return Err(Error::Runtime("Can not infer total number of classes from empty tensor.".into()));
        }
        (-1, gather::Check::Known(Some((_, hi)))) => hi + 1,
        (-1, gather::Check::Defer(_)) => {
            return Err(Error::Runtime("one_hot: inferring num_classes needs the values read first".into()));
        }
        (c, _) if c < -1 => return Err(Error::Runtime("num_classes should be positive".into())),
        (c, _) => c,
    };
    gather::check_or_defer(check, classes as usize, gather::Wording::Classes)?;
    let range = Tensor::arange(Scalar::Int(0), Scalar::Int(classes), Scalar::Int(1), DType::I64, x.device())?;
    binary(&t(&x.unsqueeze(-1)?), &t(&range), BinaryOp::Eq)?.to_dtype(DType::I64)
}
