//! Binary kernels and `where`. Maximum (minimum) propagates NaN and returns `a` unless `a < b` (`b < a`), as torch
//! does (which decides the sign of max(−0, +0) and makes relu(−0) = −0).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::BinaryOp;

use crate::column::{blocks, Column, BLOCK};
use crate::values::{class, encode, f32_bytes, gather, mask, Class, Values};

type In<'a> = (&'a [u8], DType, &'a View);

fn cmp<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        BinaryOp::Add
        | BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Maximum
        | BinaryOp::Minimum
        | BinaryOp::BitAnd
        | BinaryOp::BitOr
        | BinaryOp::BitXor
        | BinaryOp::Fmod
        | BinaryOp::Atan2
        | BinaryOp::CopySign
        | BinaryOp::Pow => return None,
    })
}

macro_rules! float_op {
    ($t:ty, $op:expr, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        match $op {
            BinaryOp::Add => a + b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            // Rust's % on floats is C's fmod, exact.
            BinaryOp::Fmod => a % b,
            // In f64, rounded once (for f32; f64 inputs use f64's own atan2).
            BinaryOp::Atan2 => (a as f64).atan2(b as f64) as $t,
            BinaryOp::CopySign => a.copysign(b),
            // The C library's powf/pow (glibc's powf is within 0.82 ulp), IEEE's special values.
            BinaryOp::Pow => a.powf(b),
            BinaryOp::Maximum => {
                if a.is_nan() {
                    a
                } else if b.is_nan() || a < b {
                    b
                } else {
                    a
                }
            }
            BinaryOp::Minimum => {
                if a.is_nan() {
                    a
                } else if b.is_nan() || b < a {
                    b
                } else {
                    a
                }
            }
            other => cmp(other, a, b).map_or(0.0, |c| c as u8 as $t),
        }
    }};
}

/// One f32 binary op, as `binary` computes it (the fused kernel's steps).
#[inline(always)]
fn f32_op(op: BinaryOp, a: f32, b: f32) -> f32 {
    float_op!(f32, op, a, b)
}

/// Writes `f32_block`, `f64_block` and `i64_block`: one loop per op with the op fixed inside it (so the compiler
/// vectorises each), for every row of `vkml_ops::binary_ops!`.
macro_rules! binary_blocks {
    ($($(#[$doc:meta])* $v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        /// `x[i] = op(x[i], y[i])` over a block: `f32_op` elementwise, the op chosen once.
        pub fn f32_block(op: BinaryOp, x: &mut [f32], y: &[f32]) {
            match op {
                $(BinaryOp::$v => {
                    for (a, &b) in x.iter_mut().zip(y) {
                        *a = f32_op(BinaryOp::$v, *a, b);
                    }
                })*
            }
        }

        /// `f32_block` for float64.
        fn f64_block(op: BinaryOp, x: &mut [f64], y: &[f64]) {
            match op {
                $(BinaryOp::$v => {
                    for (a, &b) in x.iter_mut().zip(y) {
                        *a = float_op!(f64, BinaryOp::$v, *a, b);
                    }
                })*
            }
        }

        /// `f32_block` for the integers and bool (in i64).
        fn i64_block(op: BinaryOp, x: &mut [i64], y: &[i64]) {
            match op {
                $(BinaryOp::$v => {
                    for (a, &b) in x.iter_mut().zip(y) {
                        *a = i64_op(BinaryOp::$v, *a, b);
                    }
                })*
            }
        }
    };
}

vkml_ops::binary_ops!(binary_blocks);

#[inline(always)]
fn i64_op(op: BinaryOp, a: i64, b: i64) -> i64 {
    match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        // Truncated division and remainder (true division computes in float: the graph casts), wrapping at
        // MIN / -1 as torch does; a zero divisor never arrives (the graph raises torch's ZeroDivisionError), and
        // gives 0 here so that the kernel stays total.
        BinaryOp::Div if b == 0 => 0,
        BinaryOp::Div => a.wrapping_div(b),
        BinaryOp::Fmod if b == 0 => 0,
        BinaryOp::Fmod => a.wrapping_rem(b),
        BinaryOp::Maximum => a.max(b),
        BinaryOp::Minimum => a.min(b),
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Pow => powi(a, b),
        // Float-only ops: the graph refuses integers before they reach a kernel.
        BinaryOp::Atan2 | BinaryOp::CopySign => 0,
        other => cmp(other, a, b).map_or(0, |c| c as i64),
    }
}

/// torch's powi: a negative exponent gives 1 for a base of 1, ±1 for −1 (by the exponent's parity) and 0 otherwise;
/// else wrapping exponentiation by squaring (so int32 results, taken mod 2^32 at the end, wrap as torch's do).
fn powi(a: i64, b: i64) -> i64 {
    if b < 0 {
        return match a {
            1 => 1,
            -1 => 1 - 2 * (b & 1),
            _ => 0,
        };
    }
    let (mut base, mut e, mut r) = (a, b, 1i64);
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    r
}

pub fn binary(op: BinaryOp, a: In, b: In, out: DType) -> Vec<u8> {
    if let Some(bytes) = f32_binary(op, a, b, out) {
        return bytes;
    }
    let c = class(a.1);
    let (va, vb) = (gather(a.0, a.1, a.2, c), gather(b.0, b.1, b.2, c));
    let v = match (va, vb) {
        (Values::F32(mut x), Values::F32(y)) => {
            f32_block(op, &mut x, &y);
            Values::F32(x)
        }
        (Values::F64(mut x), Values::F64(y)) => {
            f64_block(op, &mut x, &y);
            Values::F64(x)
        }
        (Values::I64(mut x), Values::I64(y)) => {
            i64_block(op, &mut x, &y);
            Values::I64(x)
        }
        // Both inputs share a dtype, hence a class.
        _ => Values::I64(vec![]),
    };
    encode(&v, out)
}

/// Float32 operands (dtype float32, or a 16-bit float converted once) read a block at a time, in place and through
/// their views (a scalar or a broadcast bias is never copied out whole), each block computed by `f32_block` on
/// threads: the bytes of the whole-array path below. Results in float32, or comparisons as bool.
fn f32_binary(op: BinaryOp, a: In, b: In, out: DType) -> Option<Vec<u8>> {
    if class(a.1) != Class::F32 || !matches!(out, DType::F32 | DType::Bool) {
        return None;
    }
    let (x, y) = (Column::f32(a.0, a.1, a.2)?, Column::f32(b.0, b.1, b.2)?);
    let n = x.len();
    if y.len() != n {
        return None;
    }
    let two = || (vec![0f32; BLOCK], vec![0f32; BLOCK]);
    Some(match out {
        DType::Bool => {
            let mut bools = vec![0u8; n];
            blocks(&mut bools, two, |(p, q), start, dst| {
                let (p, q) = (&mut p[..dst.len()], &mut q[..dst.len()]);
                x.read(start, p);
                y.read(start, q);
                f32_block(op, p, q);
                // A comparison gives 1.0 or 0.0, as `encode` turns into bool.
                dst.iter_mut().zip(p.iter()).for_each(|(d, &v)| *d = (v != 0.0) as u8);
            });
            bools
        }
        _ => f32_bytes(n, |o| {
            blocks(o, two, |(_, q), start, dst| {
                let q = &mut q[..dst.len()];
                x.read(start, dst);
                y.read(start, q);
                f32_block(op, dst, q);
            })
        }),
    })
}

pub fn where_(cond: In, a: In, b: In, out: DType) -> Vec<u8> {
    if let Some(bytes) = f32_where(cond, a, b, out) {
        return bytes;
    }
    let c = class(a.1);
    let m = mask(cond.0, cond.1, cond.2);
    let v = match (gather(a.0, a.1, a.2, c), gather(b.0, b.1, b.2, c)) {
        (Values::F32(x), Values::F32(y)) => Values::F32(pick(&m, x, &y)),
        (Values::F64(x), Values::F64(y)) => Values::F64(pick(&m, x, &y)),
        (Values::I64(x), Values::I64(y)) => Values::I64(pick(&m, x, &y)),
        _ => Values::I64(vec![]),
    };
    encode(&v, out)
}

/// `where` of float32 values and a bool condition, a block at a time as `f32_binary`.
fn f32_where(cond: In, a: In, b: In, out: DType) -> Option<Vec<u8>> {
    if cond.1 != DType::Bool || class(a.1) != Class::F32 || out != DType::F32 {
        return None;
    }
    let (m, x, y) = (Column::bools(cond.0, cond.2), Column::f32(a.0, a.1, a.2)?, Column::f32(b.0, b.1, b.2)?);
    let n = x.len();
    if y.len() != n || m.len() != n {
        return None;
    }
    Some(f32_bytes(n, |o| {
        blocks(
            o,
            || (vec![0u8; BLOCK], vec![0f32; BLOCK]),
            |(c, q), start, dst| {
                let (c, q) = (&mut c[..dst.len()], &mut q[..dst.len()]);
                m.read(start, c);
                x.read(start, dst);
                y.read(start, q);
                for ((p, &v), &k) in dst.iter_mut().zip(q.iter()).zip(c.iter()) {
                    *p = [v, *p][(k != 0) as usize];
                }
            },
        )
    }))
}

/// `x[i]` where `m[i]`, else `y[i]`, in `x`'s storage.
fn pick<T: Copy>(m: &[bool], mut x: Vec<T>, y: &[T]) -> Vec<T> {
    for ((p, &q), &c) in x.iter_mut().zip(y).zip(m) {
        // An index, not a branch: a branch mispredicts on a random mask (a relu's, a max pool's).
        *p = [q, *p][c as usize];
    }
    x
}
