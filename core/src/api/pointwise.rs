//! Pointwise ops of several operands in torch's formulas: pow's dtype rules, and the composites hypot, lerp,
//! addcmul, addcdiv.

use crate::api::elementwise::{binary, plus, s, scalar_tensor, sub, t, where_};
use crate::base::dtype::{opmath, DType};
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// `x` as a tensor of `dtype` (a scalar is made on the device of `other`, which is then a tensor).
fn float_tensor(x: &Operand, dtype: DType, other: &Operand) -> Result<Tensor> {
    match (x, other) {
        (Operand::Tensor(v), _) => v.to_dtype(dtype),
        (Operand::Scalar(v), Operand::Tensor(o)) => scalar_tensor(*v, dtype, o.device()),
        (Operand::Scalar(_), Operand::Scalar(_)) => {
            Err(Error::Value("an elementwise op needs at least one tensor operand".into()))
        }
    }
}

/// `pow(a, b)` (`a ** b`) with torch's promotion: a Python scalar takes the tensor's dtype first (as torch rounds
/// it), integers raise integers, and torch's refusals: a bool result, and a negative Python int exponent of an
/// integer tensor (a tensor of negative exponents follows powi instead: 0 unless the base is ±1).
pub fn pow(a: &Operand, b: &Operand) -> Result<Tensor> {
    let d = result_type(&[a, b]);
    if d == DType::Bool {
        return Err(Error::Unsupported("\"pow\" not implemented for 'Bool'".into()));
    }
    if let (false, Operand::Scalar(Scalar::Int(e))) = (d.is_float(), b) {
        if *e < 0 {
            return Err(Error::Runtime("Integers to negative integer powers are not allowed.".into()));
        }
    }
    binary(a, b, BinaryOp::Pow)
}

/// `hypot(a, b)` = √(a² + b²) without overflow or underflow: m·√(1 + (n/m)²) with m = max(|a|, |b|), n the other;
/// +inf if either is infinite (even with a NaN, as C's hypot), 0 for two zeros.
pub fn hypot(a: &Operand, b: &Operand) -> Result<Tensor> {
    let d = result_type(&[a, b]);
    if !d.is_float() {
        return Err(Error::Unsupported(format!("\"hypot_cpu\" not implemented for '{}'", d.name())));
    }
    let (fa, fb) = (float_tensor(a, d, b)?, float_tensor(b, d, a)?);
    let (aa, ab) = (fa.unary(UnaryOp::Abs)?, fb.unary(UnaryOp::Abs)?);
    let m = binary(&t(&aa), &t(&ab), BinaryOp::Maximum)?;
    let n = binary(&t(&aa), &t(&ab), BinaryOp::Minimum)?;
    let m_zero = binary(&t(&m), &s(0.0), BinaryOp::Eq)?;
    // A zero m would give 0/0: divide by 1 there (n is 0 too).
    let safe = where_(&m_zero, &s(1.0), &t(&m))?;
    let r = binary(&t(&n), &t(&safe), BinaryOp::Div)?;
    let root = plus(&binary(&t(&r), &t(&r), BinaryOp::Mul)?, 1.0)?.sqrt()?;
    let h = binary(&t(&m), &t(&root), BinaryOp::Mul)?;
    let inf = binary(&t(&m), &s(f64::INFINITY), BinaryOp::Eq)?;
    let inf = binary(&t(&inf), &t(&binary(&t(&aa), &s(f64::INFINITY), BinaryOp::Eq)?), BinaryOp::BitOr)?;
    let inf = binary(&t(&inf), &t(&binary(&t(&ab), &s(f64::INFINITY), BinaryOp::Eq)?), BinaryOp::BitOr)?;
    where_(&inf, &s(f64::INFINITY), &t(&h))
}

/// `lerp(a, b, w)`: torch's two-sided form, a + w·(b − a) for |w| < 1/2 and b − (b − a)·(1 − w) otherwise, so
/// that w = 1 gives b exactly. Floats of one dtype only, as torch.
pub fn lerp(a: &Tensor, b: &Tensor, w: &Operand) -> Result<Tensor> {
    let d = a.dtype();
    if !d.is_float() {
        return Err(Error::Unsupported(format!("\"lerp_kernel_scalar\" not implemented for '{}'", d.name())));
    }
    let others = [Some(b), if let Operand::Tensor(wt) = w { Some(wt) } else { None }];
    for (name, o) in ["end", "weight"].iter().zip(others) {
        if let Some(o) = o.filter(|o| o.dtype() != d) {
            return Err(Error::Runtime(format!(
                "expected dtype {} for `{name}` but got dtype {}",
                d.name(),
                o.dtype().name()
            )));
        }
    }
    let c = opmath(d);
    let (a, b) = (a.to_dtype(c)?, b.to_dtype(c)?);
    let diff = sub(&t(&b), &t(&a))?;
    let wt = float_tensor(w, c, &t(&a))?;
    let small = binary(&t(&wt.unary(UnaryOp::Abs)?), &s(0.5), BinaryOp::Lt)?;
    let near_a = binary(&t(&a), &t(&binary(&t(&wt), &t(&diff), BinaryOp::Mul)?), BinaryOp::Add)?;
    let one_minus = sub(&s(1.0), &t(&wt))?;
    let near_b = sub(&t(&b), &t(&binary(&t(&diff), &t(&one_minus), BinaryOp::Mul)?))?;
    where_(&small, &t(&near_a), &t(&near_b))?.to_dtype(d)
}

/// x + (v·t1) ⊙ t2 for ⊙ = × or ÷, in torch's order and promotion, 16-bit values computed in f32 and rounded once.
fn addc(x: &Tensor, t1: &Tensor, t2: &Tensor, value: f64, op: BinaryOp) -> Result<Tensor> {
    let d = result_type(&[&t(x), &t(t1), &t(t2)]);
    if d == DType::Bool {
        let name = if op == BinaryOp::Div { "addcdiv_cpu_out" } else { "addcmul_cpu_out" };
        return Err(Error::Unsupported(format!("\"{name}\" not implemented for 'Bool'")));
    }
    if op == BinaryOp::Div && !t1.dtype().is_float() && !t2.dtype().is_float() {
        return Err(Error::Runtime(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a \
             true division of tensor1 and tensor2. Use a float dtype instead."
                .into(),
        ));
    }
    let c = opmath(d);
    let v = if c.is_float() { s(value) } else { Operand::Scalar(Scalar::Int(value as i64)) };
    let scaled = binary(&t(&t1.to_dtype(c)?), &v, BinaryOp::Mul)?;
    let term = binary(&t(&scaled), &t(&t2.to_dtype(c)?), op)?;
    binary(&t(&x.to_dtype(c)?), &t(&term), BinaryOp::Add)?.to_dtype(d)
}

/// `addcmul(x, t1, t2, value)` = x + (value·t1)·t2.
pub fn addcmul(x: &Tensor, t1: &Tensor, t2: &Tensor, value: f64) -> Result<Tensor> {
    addc(x, t1, t2, value, BinaryOp::Mul)
}

/// `addcdiv(x, t1, t2, value)` = x + (value·t1)/t2.
pub fn addcdiv(x: &Tensor, t1: &Tensor, t2: &Tensor, value: f64) -> Result<Tensor> {
    addc(x, t1, t2, value, BinaryOp::Div)
}
