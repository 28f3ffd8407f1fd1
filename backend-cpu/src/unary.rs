//! Unary kernels (input and output share a dtype; the graph casts first).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::UnaryOp;

use crate::values::{encode, load, Values};

pub fn unary(op: UnaryOp, (bytes, dtype, view): (&[u8], DType, &View), out: DType) -> Vec<u8> {
    let v = match load(bytes, dtype, view) {
        Values::F32(mut x) => {
            f32_block(op, &mut x);
            Values::F32(x)
        }
        Values::F64(x) => Values::F64(x.into_iter().map(|a| f64_op(op, a)).collect()),
        Values::I64(x) => Values::I64(x.into_iter().map(|a| i64_op(op, a)).collect()),
    };
    encode(&v, out)
}

/// One float unary op in the type `$t` (f32 or f64), the same formula for both.
macro_rules! float_unary {
    ($t:ty, $op:expr, $a:expr) => {{
        let a: $t = $a;
        match $op {
            UnaryOp::Neg => -a,
            UnaryOp::Exp => a.exp(),
            UnaryOp::Log => a.ln(),
            UnaryOp::Sqrt => a.sqrt(),
            UnaryOp::Abs => a.abs(),
            UnaryOp::Sign => ((0.0 < a) as i8 - (a < 0.0) as i8) as $t,
            UnaryOp::Exp2 => a.exp2(),
            UnaryOp::Log2 => a.log2(),
            UnaryOp::Floor => a.floor(),
            UnaryOp::Ceil => a.ceil(),
            UnaryOp::Trunc => a.trunc(),
            UnaryOp::Round => a.round_ties_even(),
            // In f64, then rounded once: the oracle is correctly rounded where f32 would round twice.
            UnaryOp::Rsqrt => (1.0 / (a as f64).sqrt()) as $t,
            // f64 functions within an ulp of f64, rounded once to f32: the f32 oracle is correctly rounded but for
            // the rare ties of double rounding. The inverse hyperbolics and erf come from the libm crate (musl's
            // algorithms): std's asinh/acosh overflow for huge inputs and its atanh is several f64 ulp off.
            UnaryOp::Sin => (a as f64).sin() as $t,
            UnaryOp::Cos => (a as f64).cos() as $t,
            UnaryOp::Tan => (a as f64).tan() as $t,
            UnaryOp::Asin => (a as f64).asin() as $t,
            UnaryOp::Acos => (a as f64).acos() as $t,
            UnaryOp::Atan => (a as f64).atan() as $t,
            UnaryOp::Sinh => (a as f64).sinh() as $t,
            UnaryOp::Cosh => (a as f64).cosh() as $t,
            UnaryOp::Tanh => (a as f64).tanh() as $t,
            UnaryOp::Asinh => libm::asinh(a as f64) as $t,
            UnaryOp::Acosh => acosh(a as f64) as $t,
            UnaryOp::Atanh => libm::atanh(a as f64) as $t,
            UnaryOp::Erf => libm::erf(a as f64) as $t,
            UnaryOp::Erfc => libm::erfc(a as f64) as $t,
            UnaryOp::Expm1 => (a as f64).exp_m1() as $t,
            UnaryOp::Log1p => (a as f64).ln_1p() as $t,
            // 1 at 0, as the limit; sin(πx)/(πx) in f64 elsewhere (0 for the integers of |x| ≥ 2⁵³ within rounding).
            UnaryOp::Sinc => match std::f64::consts::PI * a as f64 {
                p if p == 0.0 => 1.0,
                p => (p.sin() / p) as $t,
            },
        }
    }};
}

/// libm's acosh takes the magnitude's exponent and returns a number for large negative inputs; below 1 it is NaN.
fn acosh(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else {
        libm::acosh(x)
    }
}

fn f32_op(op: UnaryOp, a: f32) -> f32 {
    float_unary!(f32, op, a)
}

/// Writes `f32_block`: one loop per op with the op fixed inside it (so the compiler vectorises what it can), for
/// every row of `vkml_ops::unary_ops!`.
macro_rules! unary_blocks {
    ($($v:ident $name:ident : $rule:ident, $domain:ident; fwd $tol:expr; grad $grad:expr;)*) => {
        /// `x[i] = op(x[i])` over a block: `f32_op` elementwise, the op chosen once.
        pub fn f32_block(op: UnaryOp, x: &mut [f32]) {
            match op {
                $(UnaryOp::$v => {
                    for a in x.iter_mut() {
                        *a = f32_op(UnaryOp::$v, *a);
                    }
                })*
            }
        }
    };
}

vkml_ops::unary_ops!(unary_blocks);

fn f64_op(op: UnaryOp, a: f64) -> f64 {
    float_unary!(f64, op, a)
}

/// Integer unary ops (float-only ops promote to float in the graph and never reach here; rounding ops on
/// integers are copies).
fn i64_op(op: UnaryOp, a: i64) -> i64 {
    match op {
        UnaryOp::Neg => a.wrapping_neg(),
        UnaryOp::Abs => a.wrapping_abs(),
        UnaryOp::Sign => a.signum(),
        UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Sqrt
        | UnaryOp::Exp2
        | UnaryOp::Log2
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Trunc
        | UnaryOp::Round
        | UnaryOp::Rsqrt
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Tan
        | UnaryOp::Asin
        | UnaryOp::Acos
        | UnaryOp::Atan
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Tanh
        | UnaryOp::Asinh
        | UnaryOp::Acosh
        | UnaryOp::Atanh
        | UnaryOp::Erf
        | UnaryOp::Erfc
        | UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinc => a,
    }
}
