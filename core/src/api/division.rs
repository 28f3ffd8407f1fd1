//! Division's relatives over the exact fmod primitive, with torch's float algorithms so that results match its
//! bits: remainder (the sign of the divisor) and floor division (fix-ups that survive an inexact quotient).

use super::elementwise::{binary, common_device, plus, s, sub, t, where_};
use super::nn::declared_for;
use super::promote::{result_type, Operand};
use super::tensor::Tensor;
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::util::error::Result;

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

/// The op table's refusal of integer operands, named for `op` (the fmod primitive would name itself).
fn floats_only(op: &str, a: &Operand, b: &Operand) -> Result<()> {
    match common_device(&[a, b])? {
        Some(d) => declared_for(op, d, result_type(&[a, b])),
        None => Ok(()),
    }
}

/// `fmod(a, b)`: the remainder with the dividend's sign.
pub fn fmod(a: &Operand, b: &Operand) -> Result<Tensor> {
    floats_only("fmod", a, b)?;
    binary(a, b, BinaryOp::Fmod)
}

/// `remainder(a, b)` (Python's %): fmod, plus b where the signs differ, as torch computes it.
pub fn remainder(a: &Operand, b: &Operand) -> Result<Tensor> {
    floats_only("remainder", a, b)?;
    let r = fmod(a, b)?;
    let fixed = binary(&t(&r), b, BinaryOp::Add)?;
    where_(&opposite(&r, b)?, &t(&fixed), &t(&r))
}

/// `floor_divide(a, b)` and `div(a, b, rounding_mode="floor")`: torch's div_floor, q = (a − fmod(a, b)) / b less
/// one where the signs differ, floored and rounded up when more than 1/2 below (so an inexact quotient cannot lose
/// one), ±0 keeping the sign of a / b, and a / b itself for b = 0.
pub fn floor_divide(a: &Operand, b: &Operand) -> Result<Tensor> {
    floats_only("floor_divide", a, b)?;
    let m = fmod(a, b)?;
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
pub fn trunc_divide(a: &Operand, b: &Operand) -> Result<Tensor> {
    floats_only("div_trunc", a, b)?;
    binary(a, b, BinaryOp::Div)?.unary(UnaryOp::Trunc)
}
