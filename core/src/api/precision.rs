//! torch's `set_float32_matmul_precision`: float32 products on float16 matrix units, only when asked (never by
//! default, as torch's TF32 switch). Each operand row (of `a`) and column (of `b`) is scaled by an exact power of
//! two that brings its largest magnitude to [2^12, 2^15), inside float16's range. "medium" multiplies the scaled
//! operands' float16 roundings once (11 significant bits, TF32's precision); "high" splits each scaled operand into
//! a float16 head and the float16 rounding of its remainder and sums three products (about 22 bits); the float32
//! result then undoes the scales. They apply where the device multiplies float16 on matrix units and
//! m, n and K are multiples of 16 (`DeviceInfo::f16_matrix_units`); a test hook applies them on every device and
//! shape, so that devices without such units check the arithmetic too. docs/matmul.md derives the bounds.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crate::api::elementwise::{binary, plus, s, scale, t};
use crate::base::dtype::DType;
use crate::dispatch;
use crate::graph::op::{BinaryOp, Op, UnaryOp};
use crate::tensor::grad::GradKind;
use crate::tensor::{no_grad, Tensor};
use crate::util::error::{Error, Result};

/// How float32 matrix products are computed (torch's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// In float32 throughout (the default).
    Highest,
    /// Three float16 products of the scaled operands' heads and remainders.
    High,
    /// One float16 product of the scaled operands.
    Medium,
}

impl Precision {
    pub const ALL: [Precision; 3] = [Precision::Highest, Precision::High, Precision::Medium];

    pub fn name(self) -> &'static str {
        match self {
            Precision::Highest => "highest",
            Precision::High => "high",
            Precision::Medium => "medium",
        }
    }

    /// The precision of torch's name.
    pub fn from_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.name() == name)
    }
}

static PRECISION: AtomicU8 = AtomicU8::new(0);

/// The precision float32 products use now.
pub fn float32_matmul_precision() -> Precision {
    Precision::ALL[usize::from(PRECISION.load(Ordering::Relaxed))]
}

/// Set it by torch's name ("highest", "high" or "medium"). torch warns and ignores any other string; vkml refuses
/// it, since a misspelt mode would silently keep float32.
pub fn set_float32_matmul_precision(name: &str) -> Result<()> {
    let Some(precision) = Precision::from_name(name) else {
        return Err(Error::Value(format!(
            "set_float32_matmul_precision expects 'highest', 'high' or 'medium', got '{name}'"
        )));
    };
    PRECISION.store(precision as u8, Ordering::Relaxed);
    Ok(())
}

static EVERY_DEVICE: AtomicBool = AtomicBool::new(false);

/// A test hook: apply the precision on every device and shape, matrix units or not.
pub fn split_on_every_device(on: bool) {
    EVERY_DEVICE.store(on, Ordering::Relaxed);
}

/// What a split product is held to, beside float32's γ(K′)·Σ|a||b| over its K′ accumulated terms (K′ = 3K for
/// "high"): `per_term`·Σ|a||b| from the float16 roundings, and `floor`·(m̂ᵢ·Σₖ|bₖⱼ| + n̂ⱼ·Σₖ|aᵢₖ|) from float16's
/// subnormals, m̂ᵢ the largest |aᵢₖ| of the row and n̂ⱼ of the column, each at least `least` (docs/matmul.md).
pub struct Bound {
    pub per_term: f64,
    pub floor: f64,
    pub least: f64,
}

/// The bound of `precision`'s products; None for "highest", which is float32's.
pub fn bound(precision: Precision) -> Option<Bound> {
    // Heads within 2⁻¹¹ of the scaled value, remainders within 2⁻¹¹ of theirs: "high" drops aₗ·bₗ and the two
    // remainders' roundings (3·2⁻²² in all, rounded up); "medium" keeps 2⁻¹¹ of each operand (2⁻¹⁰ + 2⁻²²). Where
    // float16 is subnormal, a head (kept off zero) is within 2⁻²⁴ of the scaled value: 2⁻³⁶ of the row's largest
    // (scaled to ≥ 2¹²), for each operand's side of a term, and 2⁻³⁵ leaves room for their product; below 2⁻¹¹⁵ the
    // scale stops at 2¹²⁷.
    let per_term = match precision {
        Precision::Highest => return None,
        Precision::High => 2f64.powi(-20),
        Precision::Medium => 2f64.powi(-10) + 2f64.powi(-22),
    };
    Some(Bound { per_term, floor: 2f64.powi(-35), least: 2f64.powi(-115) })
}

/// The product of float32 `a` [.., m, k] and `b` [.., k, n] (batch dims already broadcast) in the chosen precision,
/// recorded as a matmul of the two (its gradient's products follow the precision in turn); None where the product
/// stays float32.
pub(crate) fn split_product(a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
    let precision = float32_matmul_precision();
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    if precision == Precision::Highest || a.dtype() != DType::F32 || [m, k, n].contains(&0) {
        return Ok(None);
    }
    let units = dispatch::backend(a.device())?.info().f16_matrix_units;
    let fits = units && [m, k, n].iter().all(|d| d % 16 == 0);
    if !(fits || EVERY_DEVICE.load(Ordering::Relaxed)) {
        return Ok(None);
    }
    let out = no_grad(|| product(a, b, precision))?;
    Ok(Some(out.record(GradKind::Op(Op::Matmul), &[a, b])))
}

/// One operand split for the float16 products, each part float16.
struct Parts {
    /// The scaled operand's float16 rounding, where a nonzero value that rounds to zero keeps float16's least
    /// subnormal with its sign instead: an infinity it meets gives float32's infinity, not 0·∞ = NaN.
    head: Tensor,
    /// The head with infinities clamped to ±2^15, for the products beside the remainders (no ∞·0 there).
    finite_head: Tensor,
    /// The float16 rounding of scaled value − head, zero for an infinity.
    rest: Tensor,
    /// The exponent t of the scale 2^t, along the reduced dim.
    shift: Tensor,
}

/// `x` clamped to ±2^15: an infinity becomes a float16 exactly, NaN stays NaN, the scaled values stay as they are.
fn clamped(x: &Tensor) -> Result<Tensor> {
    let top = 2f64.powi(15);
    binary(&t(&binary(&t(x), &s(-top), BinaryOp::Maximum)?), &s(top), BinaryOp::Minimum)
}

/// Scaled by 2^t, t = clamp(13 − floor(log2 m), −126, 127) for m the largest magnitude along `dim`: 2^t brings m to
/// [2^12, 2^15) (log2 within a few ulp may put floor one off at a power of two) and is a normal float. A zero or
/// subnormal m takes 2^127; an infinite one 2^−126, whose row's (column's) outputs are infinite or NaN whatever its
/// finite values are, so long as the nonzero ones stay nonzero (the head's least subnormal); NaN stays NaN. Every
/// step but the casts is float32 arithmetic, which the planner fuses.
fn split(x: &Tensor, dim: i64, rest: bool) -> Result<Parts> {
    let top = x.unary(UnaryOp::Abs)?.amax(Some(&[dim]), true)?;
    let e = top.unary(UnaryOp::Log2)?.unary(UnaryOp::Floor)?;
    let shift = plus(&e.neg()?, 13.0)?;
    let shift = binary(&t(&binary(&t(&shift), &s(-126.0), BinaryOp::Maximum)?), &s(127.0), BinaryOp::Minimum)?;
    let scaled = binary(&t(x), &t(&shift.unary(UnaryOp::Exp2)?), BinaryOp::Mul)?;
    let rounded = scaled.to_dtype(DType::F16)?.to_dtype(DType::F32)?;
    // min(|x|·2^130, 2^−24) is 2^−24 for every nonzero float32 |x| (a GPU that flushes float32 subnormals loses
    // those below 2^−126 here) and 0 for zero: the head's magnitude is at least that.
    let tiny = scale(&scale(&scaled.unary(UnaryOp::Abs)?, 2f64.powi(65))?, 2f64.powi(65))?;
    let tiny = binary(&t(&tiny), &s(2f64.powi(-24)), BinaryOp::Minimum)?;
    let least = binary(&t(&rounded.unary(UnaryOp::Abs)?), &t(&tiny), BinaryOp::Maximum)?;
    let head32 = binary(&t(&least), &t(&scaled), BinaryOp::CopySign)?;
    let head = head32.to_dtype(DType::F16)?;
    if !rest {
        return Ok(Parts { finite_head: head.clone(), rest: head.clone(), head, shift });
    }
    let finite32 = clamped(&head32)?;
    let rest = clamped(&scaled)?.sub(&finite32)?.to_dtype(DType::F16)?;
    Ok(Parts { head, finite_head: finite32.to_dtype(DType::F16)?, rest, shift })
}

fn product(a: &Tensor, b: &Tensor, precision: Precision) -> Result<Tensor> {
    let high = precision == Precision::High;
    let (a, b) = (split(a, -1, high)?, split(b, -2, high)?);
    let (ta, tb) = (&a.shift, &b.shift);
    let scaled = a.head.matmul_acc(&b.head)?;
    let scaled = if high {
        // ah·bl + al·bh, then ah·bh: three products of K terms each, summed in float32 (within γ(3K) as one sum of
        // their 3K terms would be), infinities in the last alone.
        let small = a.finite_head.matmul_acc(&b.rest)?.add(&a.rest.matmul_acc(&b.finite_head)?)?;
        small.add(&scaled)?
    } else {
        scaled
    };
    // c = c'·2^−(ta + tb), applied as 2^h·2^(v − h) with h = floor(v/2): each factor a normal float, and neither
    // step leaves the range unless the result does.
    let v = binary(&t(ta), &t(tb), BinaryOp::Add)?.neg()?;
    let h = scale(&v, 0.5)?.unary(UnaryOp::Floor)?;
    let first = binary(&t(&scaled), &t(&h.unary(UnaryOp::Exp2)?), BinaryOp::Mul)?;
    binary(&t(&first), &t(&v.sub(&h)?.unary(UnaryOp::Exp2)?), BinaryOp::Mul)
}
