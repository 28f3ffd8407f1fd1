//! argsort along the last dim of a view: a stable sort of each row's positions (NaN after everything, -0 equal to
//! +0), the order the shader's ranks give.

use std::cmp::Ordering;

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::{class, gather, Values};

fn float_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        // -0 and +0 compare equal here, as in the shader's bit keys.
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

pub fn argsort((bytes, dtype, view): (&[u8], DType, &View), descending: bool) -> Vec<u8> {
    let n = view.shape.last().copied().unwrap_or(1);
    let order: Box<dyn Fn(usize, usize) -> Ordering> = match gather(bytes, dtype, view, class(dtype)) {
        Values::I64(v) => Box::new(move |i, j| v[i].cmp(&v[j])),
        Values::F32(v) => Box::new(move |i, j| float_order(f64::from(v[i]), f64::from(v[j]))),
        Values::F64(v) => Box::new(move |i, j| float_order(v[i], v[j])),
    };
    let total = view.numel();
    let mut out = Vec::with_capacity(total * 8);
    for row in (0..total).step_by(n.max(1)) {
        let mut idx: Vec<usize> = (0..n).collect();
        // `sort_by` is stable: equal keys keep their index order in both directions.
        idx.sort_by(|&i, &j| {
            let o = order(row + i, row + j);
            if descending {
                o.reverse()
            } else {
                o
            }
        });
        for i in idx {
            out.extend_from_slice(&(i as i64).to_le_bytes());
        }
    }
    out
}
