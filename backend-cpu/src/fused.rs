//! Fused elementwise programs (`Op::Fused`): the postfix steps run over blocks of elements, each step the f32 kernel
//! of its primitive applied to a whole block (a loop the compiler vectorises, as the primitives' own), so the result
//! is the bytes the chain of primitives gives, without storing the intermediate values.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::{fits, Step, FUSED_DEPTH};

use crate::values::{class, encode, gather, Values};

/// Elements per block: the stack of blocks stays in the core's cache.
const BLOCK: usize = 2048;

pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize) -> Vec<u8> {
    let cols: Vec<Vec<f32>> = ins
        .iter()
        .map(|&(b, d, v)| match gather(b, d, v, class(d)) {
            Values::F32(x) => x,
            // The graph builds fused nodes from float32 inputs only.
            Values::F64(_) | Values::I64(_) => vec![0.0; n],
        })
        .collect();
    let mut out: Vec<f32> = Vec::with_capacity(n);
    // Both builders of programs check them with `fits`; a program that does not fit leaves zeros, never a panic.
    let bound = |s: &Step| !matches!(*s, Step::Input(k) if usize::from(k) >= cols.len());
    if fits(steps) && steps.iter().all(bound) && cols.iter().all(|c| c.len() == n) {
        let mut stack = vec![[0f32; BLOCK]; FUSED_DEPTH];
        for start in (0..n).step_by(BLOCK) {
            let len = BLOCK.min(n - start);
            let mut sp = 0;
            for step in steps {
                match *step {
                    Step::Input(k) => {
                        stack[sp][..len].copy_from_slice(&cols[usize::from(k)][start..start + len]);
                        sp += 1;
                    }
                    Step::Const(c) => {
                        stack[sp][..len].fill(c);
                        sp += 1;
                    }
                    Step::Unary(op) => {
                        for v in &mut stack[sp - 1][..len] {
                            *v = crate::unary::f32_op(op, *v);
                        }
                    }
                    Step::Binary(op) => {
                        let (lower, upper) = stack.split_at_mut(sp - 1);
                        for (x, y) in lower[sp - 2][..len].iter_mut().zip(&upper[0][..len]) {
                            *x = crate::binary::f32_op(op, *x, *y);
                        }
                        sp -= 1;
                    }
                }
            }
            out.extend_from_slice(&stack[0][..len]);
        }
    } else {
        out.resize(n, 0.0);
    }
    encode(&Values::F32(out), DType::F32)
}
