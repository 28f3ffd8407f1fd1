//! Division's relatives over the exact fmod primitive, with torch's float algorithms so that results match its
//! bits: remainder (the sign of the divisor) and floor division (fix-ups that survive an inexact quotient). Integer
//! operands use the truncated quotient and remainder, after torch's CPU check for a zero divisor.

use crate::api::elementwise::{binary, common_device, int_quotient, plus, s, sub, t, where_};
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::tensor::check::declared_for;
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// x < 0 as a bool operand (a Python scalar stays a scalar).
fn lt0(x: &Operand) -> Result<Operand> {
    Ok(match x {
        Operand::Tensor(v) => Operand::Tensor(binary(&t(v), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Lt)?),
        Operand::Scalar(v) => Operand::Scalar(Scalar::Bool(v.as_f64() < 0.0)),
    })
}

/// Where fmod's remainder `r` and the divisor `b` have opposite signs (r ≠ 0): Python's and torch's correction.
fn opposite(r: &Tensor, b: &Operand) -> Result<Tensor> {
    let nonzero = binary(&t(r), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Ne)?;
    let differ = binary(&lt0(&t(r))?, &lt0(b)?, BinaryOp::Ne)?;
    binary(&t(&nonzero), &t(&differ), BinaryOp::BitAnd)
}

/// The op table's refusals for `op` (bool operands, float64 on a GPU), named for `op` (the fmod primitive would name
/// itself); then, for integer operands, torch's CPU error for a zero divisor. Whether the operands are integers.
fn checked(op: &str, a: &Operand, b: &Operand) -> Result<bool> {
    let dtype = result_type(&[a, b]);
    if let Some(d) = common_device(&[a, b])? {
        declared_for(op, d, dtype)?;
    }
    if dtype.is_float() {
        return Ok(false);
    }
    // A kernel cannot raise, so a tensor divisor is read back here: a synchronisation, as in torch's CPU kernel,
    // which tests every divisor before dividing (its CUDA kernel returns garbage instead).
    let zero = match b {
        Operand::Scalar(v) => v.as_f64() == 0.0,
        Operand::Tensor(bt) => {
            let any = binary(&t(bt), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Eq)?.any(None, false)?;
            crate::tensor::realize::read_bytes(&any)?.first().is_some_and(|&v| v != 0)
        }
    };
    if zero {
        return Err(Error::Runtime("ZeroDivisionError".into()));
    }
    Ok(true)
}

/// `fmod(a, b)`: the remainder with the dividend's sign.
pub fn fmod(a: &Operand, b: &Operand) -> Result<Tensor> {
    checked("fmod", a, b)?;
    binary(a, b, BinaryOp::Fmod)
}

/// `remainder(a, b)` (Python's %): fmod, plus b where the signs differ, as torch computes it.
pub fn remainder(a: &Operand, b: &Operand) -> Result<Tensor> {
    checked("remainder", a, b)?;
    let r = binary(a, b, BinaryOp::Fmod)?;
    let fixed = binary(&t(&r), b, BinaryOp::Add)?;
    where_(&opposite(&r, b)?, &t(&fixed), &t(&r))
}

/// `floor_divide(a, b)` and `div(a, b, rounding_mode="floor")`: torch's div_floor, q = (a − fmod(a, b)) / b less
/// one where the signs differ, floored and rounded up when more than 1/2 below (so an inexact quotient cannot lose
/// one), ±0 keeping the sign of a / b, and a / b itself for b = 0. Integers: the truncated quotient, less one where
/// the remainder and the divisor have opposite signs (Python's floor division).
pub fn floor_divide(a: &Operand, b: &Operand) -> Result<Tensor> {
    let ints = checked("floor_divide", a, b)?;
    let m = binary(a, b, BinaryOp::Fmod)?;
    if ints {
        let q = int_quotient(a, b)?;
        let less = binary(&t(&q), &Operand::Scalar(Scalar::Int(-1)), BinaryOp::Add)?;
        return where_(&opposite(&m, b)?, &t(&less), &t(&q));
    }
    let q = binary(&t(&sub(a, &t(&m))?), b, BinaryOp::Div)?;
    let q = where_(&opposite(&m, b)?, &t(&plus(&q, -1.0)?), &t(&q))?;
    let fl = q.unary(UnaryOp::Floor)?;
    let frac_above_half = binary(&t(&sub(&t(&q), &t(&fl))?), &s(0.5), BinaryOp::Gt)?;
    let fl = where_(&frac_above_half, &t(&plus(&fl, 1.0)?), &t(&fl))?;
    let quotient = binary(a, b, BinaryOp::Div)?;
    let signed_zero = binary(&s(0.0), &t(&quotient), BinaryOp::CopySign)?;
    let q_zero = binary(&t(&q), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Eq)?;
    let r = where_(&q_zero, &t(&signed_zero), &t(&fl))?;
    match b {
        Operand::Tensor(bt) => {
            let b_zero = binary(&t(bt), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Eq)?;
            where_(&b_zero, &t(&quotient), &t(&r))
        }
        Operand::Scalar(v) if v.as_f64() == 0.0 => Ok(quotient),
        Operand::Scalar(_) => Ok(r),
    }
}

/// `div(a, b, rounding_mode="trunc")`: trunc(a / b), as torch computes it — the quotient rounded to the result's
/// dtype, then truncated (so a quotient within half an ulp below an integer gives that integer, as in torch).
/// Integers: the truncated quotient itself.
pub fn trunc_divide(a: &Operand, b: &Operand) -> Result<Tensor> {
    if checked("div_trunc", a, b)? {
        return int_quotient(a, b);
    }
    binary(a, b, BinaryOp::Div)?.unary(UnaryOp::Trunc)
}
