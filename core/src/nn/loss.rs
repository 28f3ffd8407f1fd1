//! The elementwise losses, written once over primitives with torch's formulas and arguments: l1, smooth_l1, huber,
//! binary cross-entropy (on probabilities and on logits) and kl_div. (cross_entropy, nll_loss and mse_loss live in
//! nn.rs beside the softmax family.)

use crate::api::elementwise::{binary, mul, plus, s, scale, sub, t, where_};
use crate::base::dtype::{opmath, DType};
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::nn::activation::logsigmoid;
use crate::nn::functional::Reduction;
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The dtype a loss returns, which varies across torch's losses.
#[derive(Clone, Copy)]
enum Rule {
    /// torch.result_type of both, which must be float.
    Promote,
    /// The input's, which must be float; the target is converted to it.
    Input,
    /// Both the same float dtype.
    Same,
    /// The target's (binary_cross_entropy_with_logits); both float.
    Target,
}

/// input and target in the dtype the loss computes in (f32 for 16-bit types, rounded once at the end, as torch's
/// kernels do), and the dtype it returns; with torch's shape rule for the losses that refuse broadcasting.
fn operands(
    op: &str,
    input: &Tensor,
    target: &Tensor,
    same_shape: bool,
    rule: Rule,
) -> Result<(Tensor, Tensor, DType)> {
    if same_shape && input.shape() != target.shape() {
        return Err(Error::Value(format!(
            "Using a target size ({:?}) that is different to the input size ({:?}) is deprecated. Please ensure they \
             have the same size.",
            target.shape(),
            input.shape()
        )));
    }
    let (a, b) = (input.dtype(), target.dtype());
    let out = match rule {
        Rule::Promote => result_type(&[&t(input), &t(target)]),
        Rule::Input => a,
        Rule::Same if a != b => {
            return Err(Error::Runtime(format!(
                "{op}: expected input and target of the same dtype, got {} and {}",
                a.name(),
                b.name()
            )))
        }
        Rule::Same => a,
        Rule::Target => b,
    };
    // Which operands must be float besides the result: torch's kernels differ here.
    let need_a = !matches!(rule, Rule::Promote) || op == "kl_div";
    let need_b = matches!(rule, Rule::Same | Rule::Target) || op == "kl_div";
    if !out.is_float() || (need_a && !a.is_float()) || (need_b && !b.is_float()) {
        let bad = if a.is_float() { b } else { a };
        return Err(Error::Unsupported(format!("\"{op}\" not implemented for '{}'", bad.name())));
    }
    let c = opmath(out);
    Ok((input.to_dtype(c)?, target.to_dtype(c)?, out))
}

/// The reduced loss, rounded once to the dtype the loss returns.
fn reduce(loss: Tensor, reduction: Reduction, out: DType) -> Result<Tensor> {
    match reduction {
        Reduction::None => loss.to_dtype(out),
        Reduction::Sum => loss.sum(None, false)?.to_dtype(out),
        Reduction::Mean => loss.mean(None, false)?.to_dtype(out),
    }
}

fn weighted(loss: Tensor, weight: Option<&Tensor>) -> Result<Tensor> {
    match weight {
        Some(w) => mul(&loss, &w.to_dtype(loss.dtype())?),
        None => Ok(loss),
    }
}

/// `l1_loss`: |input − target|.
pub fn l1_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    if input.dtype() == DType::Bool || target.dtype() == DType::Bool {
        // torch computes input − target, which refuses bool operands.
        return sub(&t(input), &t(target));
    }
    let (a, b, out) = operands("l1_loss", input, target, false, Rule::Promote)?;
    reduce(sub(&t(&a), &t(&b))?.unary(UnaryOp::Abs)?, reduction, out)
}

/// `smooth_l1_loss`: 0.5·d²/β where d = |input − target| < β, else d − 0.5·β; β = 0 is l1.
pub fn smooth_l1_loss(input: &Tensor, target: &Tensor, reduction: Reduction, beta: f64) -> Result<Tensor> {
    if beta < 0.0 {
        return Err(Error::Runtime("smooth_l1_loss does not support negative values for beta.".into()));
    }
    let (a, b, out) = operands("smooth_l1_loss", input, target, false, Rule::Promote)?;
    let d = sub(&t(&a), &t(&b))?.unary(UnaryOp::Abs)?;
    if beta == 0.0 {
        return reduce(d, reduction, out);
    }
    let small = binary(&t(&d), &s(beta), BinaryOp::Lt)?;
    let quad = scale(&mul(&d, &d)?, 0.5 / beta)?;
    reduce(where_(&small, &t(&quad), &t(&plus(&d, -0.5 * beta)?))?, reduction, out)
}

/// `huber_loss`: 0.5·d² where d = |input − target| < δ, else δ·(d − 0.5·δ).
pub fn huber_loss(input: &Tensor, target: &Tensor, reduction: Reduction, delta: f64) -> Result<Tensor> {
    if delta <= 0.0 {
        return Err(Error::Runtime("huber_loss does not support non-positive values for delta.".into()));
    }
    let (a, b, out) = operands("huber_loss", input, target, false, Rule::Input)?;
    let d = sub(&t(&a), &t(&b))?.unary(UnaryOp::Abs)?;
    let small = binary(&t(&d), &s(delta), BinaryOp::Lt)?;
    let quad = scale(&mul(&d, &d)?, 0.5)?;
    reduce(where_(&small, &t(&quad), &t(&scale(&plus(&d, -0.5 * delta)?, delta)?))?, reduction, out)
}

/// log(x) clamped below at −100, as torch's binary_cross_entropy (so that x = 0 or 1 gives a finite loss).
fn clamped_log(x: &Tensor) -> Result<Tensor> {
    binary(&t(&x.log()?), &s(-100.0), BinaryOp::Maximum)
}

/// `binary_cross_entropy`: −w·(t·log x + (1 − t)·log(1 − x)), each log clamped at −100. Inputs outside [0, 1] give
/// NaN (the log of a negative number); torch's CPU kernel reads every input to raise instead, which would make each
/// training step wait for the device.
pub fn binary_cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    let (x, y, out) = operands("binary_cross_entropy", input, target, true, Rule::Same)?;
    let one_minus = |v: &Tensor| plus(&v.neg()?, 1.0);
    let pos = mul(&y, &clamped_log(&x)?)?;
    let neg = mul(&one_minus(&y)?, &clamped_log(&one_minus(&x)?)?)?;
    let loss = binary(&t(&pos), &t(&neg), BinaryOp::Add)?.neg()?;
    reduce(weighted(loss, weight)?, reduction, out)
}

/// `binary_cross_entropy_with_logits`: (1 − t)·x − l·logsigmoid(x) with l = 1 + (pos_weight − 1)·t, times the
/// weight — torch's formula, stable for logits of any size.
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    pos_weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    let (x, y, out) = operands("binary_cross_entropy_with_logits", input, target, true, Rule::Target)?;
    let ls = logsigmoid(&x)?;
    let ls = match pos_weight {
        Some(p) => mul(&ls, &plus(&mul(&plus(&p.to_dtype(x.dtype())?, -1.0)?, &y)?, 1.0)?)?,
        None => ls,
    };
    let loss = sub(&t(&mul(&plus(&y.neg()?, 1.0)?, &x)?), &t(&ls))?;
    reduce(weighted(loss, weight)?, reduction, out)
}

/// kl_div's reductions: torch's four, "batchmean" dividing the sum by the batch size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KlReduction {
    Plain(Reduction),
    BatchMean,
}

impl KlReduction {
    pub fn parse(name: &str) -> Result<KlReduction> {
        match name {
            "batchmean" => Ok(KlReduction::BatchMean),
            n => Ok(KlReduction::Plain(Reduction::parse(n)?)),
        }
    }
}

/// `kl_div(input, target)` with log-probabilities as input: t·(log t − x), 0 where t = 0 (torch's xlogy); with
/// `log_target`, exp(t)·(t − x).
pub fn kl_div(input: &Tensor, target: &Tensor, reduction: KlReduction, log_target: bool) -> Result<Tensor> {
    let (x, y, out) = operands("kl_div", input, target, false, Rule::Promote)?;
    let loss = if log_target {
        mul(&y.exp()?, &sub(&t(&y), &t(&x))?)?
    } else {
        let zero = Operand::Scalar(Scalar::Int(0));
        let pos = binary(&t(&y), &zero, BinaryOp::Gt)?;
        // log t where t > 0 only, so the untaken branch carries no NaN or −inf into the gradient.
        let safe = where_(&pos, &t(&y), &Operand::Scalar(Scalar::Int(1)))?;
        let ylogy = where_(&pos, &t(&mul(&y, &safe.log()?)?), &zero)?;
        let nan = binary(&t(&y), &t(&y), BinaryOp::Ne)?;
        // xlogy(NaN, NaN) is NaN: the mask above would hide it.
        let ylogy = where_(&nan, &t(&y), &t(&ylogy))?;
        sub(&t(&ylogy), &t(&mul(&y, &x)?))?
    };
    match reduction {
        KlReduction::Plain(r) => reduce(loss, r, out),
        // torch divides by the input's first dim, whatever the broadcast loss's shape.
        KlReduction::BatchMean if input.ndim() == 0 => loss.sum(None, false)?.to_dtype(out),
        KlReduction::BatchMean => scale(&loss.sum(None, false)?, 1.0 / input.shape()[0] as f64)?.to_dtype(out),
    }
}
