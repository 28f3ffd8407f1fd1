//! Inclusive scans along the last dim of a view: a running fold per row in index order (f32 for 16-bit values,
//! int64 for integers and bool), as the shader folds each prefix.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::ScanOp;

use crate::values::{encode, load, Values};

fn fold<T: Copy>(v: &mut [T], n: usize, f: impl Fn(T, T) -> T) {
    for row in v.chunks_mut(n.max(1)) {
        for i in 1..row.len() {
            row[i] = f(row[i - 1], row[i]);
        }
    }
}

pub fn scan(op: ScanOp, (bytes, dtype, view): (&[u8], DType, &View), out: DType) -> Vec<u8> {
    let n = view.shape.last().copied().unwrap_or(1);
    let mut v = load(bytes, dtype, view);
    match (&mut v, op) {
        (Values::F32(x), ScanOp::Sum) => fold(x, n, |a, b| a + b),
        (Values::F32(x), ScanOp::Prod) => fold(x, n, |a, b| a * b),
        (Values::F64(x), ScanOp::Sum) => fold(x, n, |a, b| a + b),
        (Values::F64(x), ScanOp::Prod) => fold(x, n, |a, b| a * b),
        (Values::I64(x), ScanOp::Sum) => fold(x, n, i64::wrapping_add),
        (Values::I64(x), ScanOp::Prod) => fold(x, n, i64::wrapping_mul),
    }
    encode(&v, out)
}
