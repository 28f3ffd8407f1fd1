//! softmax and log_softmax along the last dim of a view, in the composite's arithmetic and order: the row's max
//! and the sum of e through the reductions' own functions (reduce.rs), d = x − m, e = exp(d), then e / Σ or
//! d − log Σ; so the primitive gives the bytes the five-op composite gave.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::reduce::{row_max, Float};
use crate::values::{encode, load, Values};

/// One float class's row arithmetic (f32, or f64 on the CPU alone).
macro_rules! rows {
    ($x:expr, $n:expr, $log:expr, $t:ty) => {{
        let x: Vec<$t> = $x;
        let mut out = Vec::with_capacity(x.len());
        for row in x.chunks($n.max(1)) {
            let m = row_max(row, <$t>::NEG_INFINITY);
            let d: Vec<$t> = row.iter().map(|&v| v - m).collect();
            let e: Vec<$t> = d.iter().map(|v| v.exp()).collect();
            let s = <$t as Float>::sum(&e);
            if $log {
                let l = s.ln();
                out.extend(d.iter().map(|&v| v - l));
            } else {
                out.extend(e.iter().map(|&v| v / s));
            }
        }
        out
    }};
}

pub fn softmax((bytes, dtype, view): (&[u8], DType, &View), log: bool, out: DType) -> Vec<u8> {
    let n = view.shape.last().copied().unwrap_or(1);
    let v = match load(bytes, dtype, view) {
        Values::F32(x) => Values::F32(rows!(x, n, log, f32)),
        Values::F64(x) => Values::F64(rows!(x, n, log, f64)),
        // The graph gives the primitive float inputs only (api: nn/functional.rs).
        Values::I64(x) => Values::I64(x),
    };
    encode(&v, out)
}
