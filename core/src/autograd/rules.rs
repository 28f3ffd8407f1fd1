//! The backward rule of every primitive op and of views, written with API ops: given the gradient of a recorded
//! step's output, the gradient of each of its inputs (`None` where the input needs none).

use std::f64::consts::{FRAC_2_SQRT_PI, LN_2, PI};

use crate::api::elementwise::{binary, div, mul, plus, scale, t, where_};
use crate::api::gather::{gather_unchecked, scatter_unchecked};
use crate::api::scan::{cumprod_grad, cumsum, exclusive_products};
use crate::api::window::{fold_windows, max_pool_grad, unfold_windows};
use crate::api::Tensor;
use crate::base::dtype::opmath;
use crate::base::scalar::Scalar;
use crate::base::view::View;
use crate::graph::op::{BinaryOp, Op, ReduceOp, ScanOp, UnaryOp};
use crate::tensor::grad::{GradFn, GradKind};
use crate::tensor::promote::Operand;
use crate::util::error::{Error, Result};

fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::full(x.shape(), Scalar::Int(0), x.dtype(), x.device())
}

/// `g` where `cond`, else 0.
fn keep(cond: &Tensor, g: &Tensor) -> Result<Tensor> {
    where_(cond, &t(g), &Operand::Scalar(Scalar::Int(0)))
}

/// 0 where `cond`, else `g` (`keep` of the negated condition, without computing it).
fn drop_where(cond: &Tensor, g: &Tensor) -> Result<Tensor> {
    where_(cond, &Operand::Scalar(Scalar::Int(0)), &t(g))
}

fn not_differentiable(f: &GradFn) -> Error {
    Error::Runtime(format!("{} has no gradient (its output is not floating point)", f.name()))
}

/// Gradients of the inputs of `f` given the gradient `g` of its output; only inputs with `needs[i]` are computed. A
/// rule reads only the values `tensor::grad::saves` lists for its op (a record keeps no others).
pub fn input_grads(f: &GradFn, g: &Tensor, needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
    let need = |i: usize| needs.get(i).copied().unwrap_or(false);
    let one = |x: Result<Tensor>| -> Result<Vec<Option<Tensor>>> { Ok(vec![Some(x?)]) };
    let op = match &f.kind {
        GradKind::View(rel) => return one(view_grad(g, rel, &f.input(0))),
        GradKind::Op(op) => op,
    };
    match op {
        Op::Data(_) | Op::Full(_) | Op::Rand { .. } | Op::Randn { .. } => Ok(vec![]),
        Op::Transfer | Op::Cast | Op::Copy => one(Ok(g.clone())),
        Op::Unary(u) => one(unary_grad(f, *u, g)),
        Op::Binary(b) => binary_grad(f, *b, g, need(0), need(1)),
        Op::Where => {
            let c = f.saved_input(0)?;
            let ga = if need(1) { Some(keep(&c, g)?) } else { None };
            let gb = if need(2) { Some(drop_where(&c, g)?) } else { None };
            Ok(vec![None, ga, gb])
        }
        Op::Reduce { op, axes } => one(reduce_grad(f, *op, *axes, g)),
        Op::Matmul => {
            // 16-bit inputs accumulate into an f32 node; the gradient arriving there holds 16-bit values exactly.
            let (a, b) = (f.saved_input(0)?, f.saved_input(1)?);
            let g = g.to_dtype(a.dtype())?;
            let ga = if !need(0) {
                None
            } else if a.ndim() == g.ndim() && !a.is_contiguous() && a.transpose(-2, -1)?.is_contiguous() {
                // An operand read transposed (conv2d's unfolded columns): (b·gᵀ)ᵀ has its own layout, so the view's
                // gradient (fold's input) is a reshape instead of a permuted copy; the same products in order.
                Some(b.matmul(&g.transpose(-2, -1)?)?.transpose(-2, -1)?)
            } else {
                Some(g.matmul(&b.transpose(-2, -1)?)?)
            };
            let gb = if !need(1) {
                None
            } else if a.ndim() == 2 && b.ndim() == 2 && !b.is_contiguous() && b.t()?.is_contiguous() {
                // A matrix read transposed (linear's x @ wᵀ): (gᵀ·a)ᵀ has w's own layout, so the view's gradient is
                // a reshape where aᵀ·g would be permuted into a copy (torch's grad_weight = gᵀ·x). The same products
                // in the same order.
                Some(g.t()?.matmul(&a)?.t()?)
            } else {
                Some(a.transpose(-2, -1)?.matmul(&g)?)
            };
            Ok(vec![ga, gb])
        }
        Op::Gather { dim } => {
            let idx = f.saved_input(1)?;
            let z = zeros_like(&f.input(0).detach())?.to_dtype(g.dtype())?;
            Ok(vec![Some(scatter_unchecked(&z, *dim, &idx, g, true)?), None])
        }
        Op::Scatter { dim, add } => {
            let idx = f.saved_input(1)?;
            let gbase = match (need(0), add) {
                (false, _) => None,
                (true, true) => Some(g.clone()),
                // Overwritten elements pass no gradient to the base.
                (true, false) => {
                    let z = Tensor::full(idx.shape(), Scalar::Int(0), g.dtype(), g.device())?;
                    Some(scatter_unchecked(g, *dim, &idx, &z, false)?)
                }
            };
            let gsrc = if need(2) { Some(gather_unchecked(g, *dim, &idx)?) } else { None };
            Ok(vec![gbase, None, gsrc])
        }
        Op::Scan(ScanOp::Sum) => one(cumsum(&g.flip(&[-1])?, -1, None)?.flip(&[-1])),
        Op::Scan(ScanOp::Prod) => one(cumprod_grad(&f.saved_input(0)?, g)),
        // Positions are integers: no gradient (sort's values get theirs through gather).
        Op::ArgSort { .. } => Ok(vec![None]),
        Op::Softmax { log } => one(softmax_grad(&f.saved_output()?, g, *log)),
        Op::Unfold(w) => {
            let x = f.input(0);
            let s = x.shape();
            one(fold_windows(g, *w, [s[2], s[3]]))
        }
        Op::Fold(w) => one(unfold_windows(g, *w)),
        Op::MaxPool(w) => one(max_pool_grad(&f.saved_input(0)?, g, *w)),
        Op::MaxPoolGrad(_) => {
            Err(Error::Unsupported("the gradient of max_pool2d's gradient (double backward) is not implemented".into()))
        }
        // Built under no_grad by the optimizers; `fused` refuses inputs that record history.
        Op::Fused(_) => Err(not_differentiable(f)),
        Op::Assign { view } => {
            let g = g.contiguous()?;
            let gbase = if need(0) {
                Some(g.assigned(view.clone(), &Tensor::full(&view.shape, Scalar::Int(0), g.dtype(), g.device())?)?)
            } else {
                None
            };
            let gvalue = if need(1) { Some(g.with_view(view.clone()).contiguous()?) } else { None };
            Ok(vec![gbase, gvalue])
        }
    }
}

fn unary_grad(f: &GradFn, u: UnaryOp, g: &Tensor) -> Result<Tensor> {
    let x = || f.saved_input(0);
    let y = || f.saved_output();
    match u {
        UnaryOp::Neg => -g,
        UnaryOp::Exp => g * &y()?,
        UnaryOp::Log => g / &x()?,
        UnaryOp::Sqrt => g / (&y()? * 2.0),
        UnaryOp::Abs => g * &x()?.unary(UnaryOp::Sign)?,
        UnaryOp::Sign | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Trunc | UnaryOp::Round => zeros_like(g),
        UnaryOp::Exp2 => (g * &y()?)? * LN_2,
        UnaryOp::Log2 => g / (&x()? * LN_2),
        UnaryOp::Rsqrt => {
            let y = y()?;
            (g * (&y * &(&y * &y)?))? * -0.5
        }
        UnaryOp::Sin => g * &x()?.unary(UnaryOp::Cos)?,
        UnaryOp::Cos => (g * &x()?.unary(UnaryOp::Sin)?)?.neg(),
        UnaryOp::Tan => {
            let y = y()?;
            g * ((&y * &y)? + 1.0)
        }
        UnaryOp::Asin => g * &one_minus_sq(&x()?)?.unary(UnaryOp::Rsqrt)?,
        UnaryOp::Acos => (g * &one_minus_sq(&x()?)?.unary(UnaryOp::Rsqrt)?)?.neg(),
        UnaryOp::Atan => {
            let x = x()?;
            g / ((&x * &x)? + 1.0)
        }
        UnaryOp::Sinh => g * &x()?.unary(UnaryOp::Cosh)?,
        UnaryOp::Cosh => g * &x()?.unary(UnaryOp::Sinh)?,
        UnaryOp::Tanh => {
            // sech² from cosh: 1 − y² would lose every digit as y → ±1.
            let r = x()?.unary(UnaryOp::Cosh)?.reciprocal()?;
            g * (&r * &r)
        }
        UnaryOp::Asinh => {
            let x = x()?;
            g * &((&x * &x)? + 1.0)?.unary(UnaryOp::Rsqrt)?
        }
        UnaryOp::Acosh => {
            let x = x()?;
            g * &((&x - 1.0)? * &(&x + 1.0)?)?.unary(UnaryOp::Rsqrt)?
        }
        UnaryOp::Atanh => g / one_minus_sq(&x()?),
        UnaryOp::Erf | UnaryOp::Erfc => {
            let x = x()?;
            let c = if u == UnaryOp::Erf { FRAC_2_SQRT_PI } else { -FRAC_2_SQRT_PI };
            (g * &(-(&x * &x)?)?.exp()?)? * c
        }
        // exp(x), not y + 1, which cancels as y → −1.
        UnaryOp::Expm1 => g * &x()?.exp()?,
        UnaryOp::Log1p => g / (&x()? + 1.0),
        UnaryOp::Sinc => g * sinc_slope(&x()?),
    }
}

/// d/dx sinc(x): (cos(πx) − sinc(x))/x, whose difference cancels as x → 0; below |x| = 5/8 the Taylor series of
/// the same slope, −(πa/3)·(1 − a²/10·(1 − a²/28·(…))) in a = πx (ratios 2k(2k + 3)); 0 at 0, as torch. In float32
/// for 16-bit inputs: πx rounded to 16 bits would move cos by far more than the result's ulp.
fn sinc_slope(x: &Tensor) -> Result<Tensor> {
    let dtype = x.dtype();
    let x = x.to_dtype(opmath(dtype))?;
    let a = (&x * PI)?;
    let direct = ((&a.unary(UnaryOp::Cos)? - &x.unary(UnaryOp::Sinc)?) / &x)?;
    let a2 = (&a * &a)?;
    let mut p = Tensor::full(x.shape(), Scalar::Float(1.0), x.dtype(), x.device())?;
    for r in [180.0, 130.0, 88.0, 54.0, 28.0, 10.0] {
        p = (((&a2 * &p)? * (-1.0 / r))? + 1.0)?;
    }
    let series = ((&a * &p)? * (-PI / 3.0))?;
    let small = binary(&t(&x.unary(UnaryOp::Abs)?), &Operand::Scalar(Scalar::Float(0.625)), BinaryOp::Lt)?;
    where_(&small, &t(&series), &t(&direct))?.to_dtype(dtype)
}

/// 1 − x² as (1 − x)(1 + x): no cancellation as |x| → 1.
fn one_minus_sq(x: &Tensor) -> Result<Tensor> {
    ((-x)? + 1.0) * &(x + 1.0)?
}

fn binary_grad(f: &GradFn, b: BinaryOp, g: &Tensor, na: bool, nb: bool) -> Result<Vec<Option<Tensor>>> {
    let pair = |ga: Option<Tensor>, gb: Option<Tensor>| Ok(vec![ga, gb]);
    match b {
        BinaryOp::Add => pair(na.then(|| g.clone()), nb.then(|| g.clone())),
        BinaryOp::Mul => {
            let ga = if na { Some(mul(g, &f.saved_input(1)?)?) } else { None };
            let gb = if nb { Some(mul(g, &f.saved_input(0)?)?) } else { None };
            pair(ga, gb)
        }
        BinaryOp::Div => {
            let y = f.saved_input(1)?;
            let ga = if na { Some(div(g, &y)?) } else { None };
            // torch: -g · a / (b · b)
            let gb = if nb { Some(div(&mul(&g.neg()?, &f.saved_input(0)?)?, &mul(&y, &y)?)?) } else { None };
            pair(ga, gb)
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            // torch: ties split the gradient in half; the smaller (larger, for minimum) side gets none.
            let (a, c) = (f.saved_input(0)?, f.saved_input(1)?);
            let half = scale(g, 0.5)?;
            let tie = binary(&t(&a), &t(&c), BinaryOp::Eq)?;
            let shared = where_(&tie, &t(&half), &t(g))?;
            let (lose_a, lose_b) = match b {
                BinaryOp::Maximum => (BinaryOp::Lt, BinaryOp::Gt),
                _ => (BinaryOp::Gt, BinaryOp::Lt),
            };
            let ga = if na { Some(drop_where(&binary(&t(&a), &t(&c), lose_a)?, &shared)?) } else { None };
            let gb = if nb { Some(drop_where(&binary(&t(&a), &t(&c), lose_b)?, &shared)?) } else { None };
            pair(ga, gb)
        }
        BinaryOp::Fmod => {
            // torch: the divisor's gradient is −g·trunc(a / b); the quotient in f32 at least, since a 16-bit one
            // rounds across integers (trunc is discontinuous there).
            let gb = if nb {
                let wide = |x: Tensor| x.to_dtype(opmath(x.dtype()));
                let q = div(&wide(f.saved_input(0)?)?, &wide(f.saved_input(1)?)?)?
                    .unary(UnaryOp::Trunc)?
                    .to_dtype(g.dtype())?;
                Some(mul(g, &q)?.neg()?)
            } else {
                None
            };
            pair(na.then(|| g.clone()), gb)
        }
        BinaryOp::Atan2 => {
            // torch: g·(b, −a) / (a² + b²) for atan2(a, b).
            let (a, c) = (f.saved_input(0)?, f.saved_input(1)?);
            let norm = binary(&t(&mul(&a, &a)?), &t(&mul(&c, &c)?), BinaryOp::Add)?;
            let ga = if na { Some(div(&mul(g, &c)?, &norm)?) } else { None };
            let gb = if nb { Some(div(&mul(g, &a)?.neg()?, &norm)?) } else { None };
            pair(ga, gb)
        }
        BinaryOp::CopySign => {
            // torch: g·(result / a), 0 where a = 0; the sign source gets zeros.
            let a = f.saved_input(0)?;
            let ga = if na {
                let ratio = div(&f.saved_output()?, &a)?;
                let zero = binary(&t(&a), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Eq)?;
                Some(mul(g, &where_(&zero, &Operand::Scalar(Scalar::Int(0)), &t(&ratio))?)?)
            } else {
                None
            };
            let gb = if nb { Some(zeros_like(g)?) } else { None };
            pair(ga, gb)
        }
        BinaryOp::Pow => {
            // torch: g·(b·a^(b − 1)), 0 where b = 0; and g·(a^b·ln a), 0 where a = 0 and b ≥ 0.
            let (a, c) = (f.saved_input(0)?, f.saved_input(1)?);
            let zero = Operand::Scalar(Scalar::Int(0));
            let ga = if na {
                let d = mul(&c, &binary(&t(&a), &t(&plus(&c, -1.0)?), BinaryOp::Pow)?)?;
                let c0 = binary(&t(&c), &zero, BinaryOp::Eq)?;
                Some(where_(&c0, &zero, &t(&mul(g, &d)?))?)
            } else {
                None
            };
            let gb = if nb {
                let d = mul(&f.saved_output()?, &a.unary(UnaryOp::Log)?)?;
                let a0 = binary(&t(&a), &zero, BinaryOp::Eq)?;
                let cpos = binary(&t(&c), &zero, BinaryOp::Ge)?;
                let both = binary(&t(&a0), &t(&cpos), BinaryOp::BitAnd)?;
                Some(mul(g, &where_(&both, &zero, &t(&d))?)?)
            } else {
                None
            };
            pair(ga, gb)
        }
        BinaryOp::BitAnd
        | BinaryOp::BitOr
        | BinaryOp::BitXor
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge => Err(not_differentiable(f)),
    }
}

/// The input was reduced over its last `axes` dims: bring `g` back to the input's shape.
fn reduce_grad(f: &GradFn, op: ReduceOp, axes: usize, g: &Tensor) -> Result<Tensor> {
    let x = f.input(0);
    let mut kept: Vec<i64> = g.shape().iter().map(|&d| d as i64).collect();
    kept.extend(std::iter::repeat_n(1, axes));
    let spread = |v: &Tensor| -> Result<Tensor> { v.reshape(&kept)?.expand(x.shape()) };
    match op {
        ReduceOp::Sum => spread(&g.to_dtype(x.dtype())?),
        ReduceOp::Max | ReduceOp::Min => {
            // torch (amax/amin): the gradient is shared evenly by the elements equal to the result.
            let xv = f.saved_input(0)?;
            let out = spread(&f.saved_output()?.to_dtype(xv.dtype())?)?;
            let hit = binary(&t(&xv), &t(&out), BinaryOp::Eq)?;
            let dims: Vec<i64> = (x.ndim() - axes..x.ndim()).map(|d| d as i64).collect();
            let count = hit.to_dtype(g.dtype())?.sum(Some(&dims), false)?;
            let share = spread(&div(g, &count)?)?;
            keep(&hit, &share)
        }
        ReduceOp::ArgMax | ReduceOp::ArgMin => Err(not_differentiable(f)),
        ReduceOp::Prod => {
            // g times the product of the other elements of each reduced group (exact where some are zero).
            let xv = f.saved_input(0)?;
            let mut flat: Vec<i64> = xv.shape()[..xv.ndim() - axes].iter().map(|&d| d as i64).collect();
            flat.push(xv.shape()[xv.ndim() - axes..].iter().product::<usize>() as i64);
            let shape: Vec<i64> = xv.shape().iter().map(|&d| d as i64).collect();
            let others = exclusive_products(&xv.reshape(&flat)?)?.reshape(&shape)?;
            mul(&spread(g)?, &others)?.to_dtype(x.dtype())
        }
    }
}

/// Gradient of a view: each output element came from the input element `rel` points at. Broadcast dims (stride
/// 0) are summed first; what remains is one-to-one, so the gradient is a reshape when `rel` keeps the order, and
/// otherwise a write into zeros through `rel`.
fn view_grad(g: &Tensor, rel: &View, x: &Tensor) -> Result<Tensor> {
    let spread: Vec<i64> =
        (0..rel.ndim()).filter(|&d| rel.strides[d] == 0 && rel.shape[d] > 1).map(|d| d as i64).collect();
    let mut rel = rel.clone();
    let g = if spread.is_empty() {
        g.clone()
    } else {
        for &d in &spread {
            rel.shape[d as usize] = 1;
        }
        g.sum(Some(&spread), true)?
    };
    let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    let n = rel.numel();
    if rel.offset == 0 && n == x.numel() && rel.reshape(&[n]).is_some_and(|v| v.strides == [1]) {
        return g.reshape(&shape);
    }
    // A permutation of all of x (a transpose, as `linear` reads its weight): g's dims put back in x's memory order,
    // one copy instead of zeros and an assignment.
    if rel.offset == 0 && n == x.numel() {
        let mut order: Vec<usize> = (0..rel.ndim()).collect();
        order.sort_by_key(|&d| std::cmp::Reverse(rel.strides[d]));
        let moving: Vec<usize> = order.iter().copied().filter(|&d| rel.shape[d] > 1).collect();
        let sizes: Vec<usize> = moving.iter().map(|&d| rel.shape[d]).collect();
        if moving.iter().map(|&d| rel.strides[d]).eq(View::contiguous(&sizes).strides) {
            let perm: Vec<i64> = order.iter().map(|&d| d as i64).collect();
            return g.permute(&perm)?.reshape(&shape);
        }
    }
    let zeros = Tensor::full(x.shape(), Scalar::Int(0), g.dtype(), g.device())?;
    let flat = zeros.reshape(&[x.numel() as i64])?;
    flat.assigned(View { shape: rel.shape.clone(), strides: rel.strides.clone(), offset: rel.offset }, &g)?
        .reshape(&shape)
}

/// softmax's input gradient y · (g − Σ g·y); log_softmax's g − exp(y) · Σ g (sums along the last dim), as torch's.
fn softmax_grad(y: &Tensor, g: &Tensor, log: bool) -> Result<Tensor> {
    if log {
        let total = g.sum(Some(&[-1]), true)?;
        g - &(&y.exp()? * &total)?
    } else {
        let dot = (g * y)?.sum(Some(&[-1]), true)?;
        y * &(g - &dot)?
    }
}
