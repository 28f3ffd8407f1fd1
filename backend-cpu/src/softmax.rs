//! softmax and log_softmax along the last dim of a view, in the composite's arithmetic and order: the row's max
//! (NaN if any element is), d = x − m, e = exp(d), the sum of e accumulated in f64 and rounded once (as the CPU's
//! sum), then e / Σ or d − log Σ; so the primitive gives the bytes the five-op composite gave.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;

use crate::values::{encode, load, Values};

/// One float class's row arithmetic (f32, or f64 on the CPU alone).
macro_rules! rows {
    ($x:expr, $n:expr, $log:expr, $t:ty, $lowest:expr, $sum:expr) => {{
        let x: Vec<$t> = $x;
        let mut out = Vec::with_capacity(x.len());
        for row in x.chunks($n.max(1)) {
            let m = row.iter().fold($lowest, |m: $t, &v| if m.is_nan() || (!v.is_nan() && m >= v) { m } else { v });
            let d: Vec<$t> = row.iter().map(|&v| v - m).collect();
            let e: Vec<$t> = d.iter().map(|v| v.exp()).collect();
            let s: $t = $sum(&e);
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
        Values::F32(x) => Values::F32(rows!(x, n, log, f32, f32::NEG_INFINITY, |e: &[f32]| {
            e.iter().fold(0.0f64, |s, &v| s + f64::from(v)) as f32
        })),
        Values::F64(x) => {
            Values::F64(rows!(x, n, log, f64, f64::NEG_INFINITY, |e: &[f64]| e.iter().fold(0.0f64, |s, &v| s + v)))
        }
        // The graph gives the primitive float inputs only (api: nn/functional.rs).
        Values::I64(x) => Values::I64(x),
    };
    encode(&v, out)
}
