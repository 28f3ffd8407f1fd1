//! Fused elementwise programs (`Op::Fused`): each element runs the postfix steps on a small stack, every step the
//! f32 kernel of its primitive, so the result is the bytes the chain of primitives gives.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Step;

use crate::values::{class, encode, gather, Values};

pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize) -> Vec<u8> {
    let cols: Vec<Vec<f32>> = ins
        .iter()
        .map(|&(b, d, v)| match gather(b, d, v, class(d)) {
            Values::F32(x) => x,
            // The graph builds fused nodes from float32 inputs only.
            Values::F64(_) | Values::I64(_) => vec![0.0; n],
        })
        .collect();
    let mut stack: Vec<f32> = Vec::with_capacity(8);
    let out: Vec<f32> = (0..n)
        .map(|e| {
            stack.clear();
            for step in steps {
                match *step {
                    Step::Input(k) => stack.push(cols.get(k as usize).map_or(0.0, |c| c[e])),
                    Step::Const(c) => stack.push(c),
                    Step::Unary(op) => {
                        let x = stack.pop().unwrap_or(0.0);
                        stack.push(crate::unary::f32_op(op, x));
                    }
                    Step::Binary(op) => {
                        let y = stack.pop().unwrap_or(0.0);
                        let x = stack.pop().unwrap_or(0.0);
                        stack.push(crate::binary::f32_op(op, x, y));
                    }
                }
            }
            stack.pop().unwrap_or(0.0)
        })
        .collect();
    encode(&Values::F32(out), DType::F32)
}
