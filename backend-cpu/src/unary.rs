//! Unary kernels (input and output share a dtype; the graph casts first).

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::UnaryOp;

use crate::values::{encode, load, Values};

pub fn unary(op: UnaryOp, (bytes, dtype, view): (&[u8], DType, &View), out: DType) -> Vec<u8> {
    let v = match load(bytes, dtype, view) {
        Values::F32(x) => Values::F32(x.into_iter().map(|a| f32_op(op, a)).collect()),
        Values::F64(x) => Values::F64(x.into_iter().map(|a| f64_op(op, a)).collect()),
        Values::I64(x) => Values::I64(x.into_iter().map(|a| i64_op(op, a)).collect()),
    };
    encode(&v, out)
}

fn f32_op(op: UnaryOp, a: f32) -> f32 {
    match op {
        UnaryOp::Neg => -a,
        UnaryOp::Exp => a.exp(),
        UnaryOp::Log => a.ln(),
        UnaryOp::Sqrt => a.sqrt(),
    }
}

fn f64_op(op: UnaryOp, a: f64) -> f64 {
    match op {
        UnaryOp::Neg => -a,
        UnaryOp::Exp => a.exp(),
        UnaryOp::Log => a.ln(),
        UnaryOp::Sqrt => a.sqrt(),
    }
}

/// Only negation reaches integers (exp/log/sqrt promote to float in the graph).
fn i64_op(op: UnaryOp, a: i64) -> i64 {
    match op {
        UnaryOp::Neg => a.wrapping_neg(),
        UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sqrt => a,
    }
}
