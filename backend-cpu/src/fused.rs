//! Fused elementwise programs (`Op::Fused`): the postfix steps run over blocks of elements, each step the f32 kernel
//! of its primitive applied to a whole block (a loop the compiler vectorises, as the primitives' own), so the result
//! is the bytes the chain of primitives gives, without storing the intermediate values.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::{fits, Step, FUSED_DEPTH};

use crate::values::{class, encode, gather, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// Elements per block: the stack of blocks stays in the core's cache.
const BLOCK: usize = 2048;
/// Blocks per parallel task.
const TASK: usize = 8;

pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize) -> Vec<u8> {
    let cols: Vec<Vec<f32>> = ins
        .iter()
        .map(|&(b, d, v)| match gather(b, d, v, class(d)) {
            Values::F32(x) => x,
            // The graph builds fused nodes from float32 inputs only.
            Values::F64(_) | Values::I64(_) => vec![0.0; n],
        })
        .collect();
    let mut out = vec![0f32; n];
    // Both builders of programs check them with `fits`; a program that does not fit leaves zeros, never a panic.
    let bound = |s: &Step| !matches!(*s, Step::Input(k) if usize::from(k) >= cols.len());
    if fits(steps) && steps.iter().all(bound) && cols.iter().all(|c| c.len() == n) {
        // Each task runs the program over its own run of blocks: elements are independent, so how the runs are
        // spread over threads changes no byte.
        let task = |(t, chunk): (usize, &mut [f32])| {
            let mut stack = vec![[0f32; BLOCK]; FUSED_DEPTH];
            for (b, dst) in chunk.chunks_mut(BLOCK).enumerate() {
                run(steps, &cols, (t * TASK + b) * BLOCK, dst, &mut stack);
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        out.par_chunks_mut(TASK * BLOCK).enumerate().for_each(task);
        #[cfg(target_arch = "wasm32")]
        out.chunks_mut(TASK * BLOCK).enumerate().for_each(task);
    }
    encode(&Values::F32(out), DType::F32)
}

/// The program over the block of `dst.len()` elements from `start`, into `dst`.
fn run(steps: &[Step], cols: &[Vec<f32>], start: usize, dst: &mut [f32], stack: &mut [[f32; BLOCK]]) {
    let len = dst.len();
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
            Step::Unary(op) => crate::unary::f32_block(op, &mut stack[sp - 1][..len]),
            Step::Binary(op) => {
                let (lower, upper) = stack.split_at_mut(sp - 1);
                crate::binary::f32_block(op, &mut lower[sp - 2][..len], &upper[0][..len]);
                sp -= 1;
            }
        }
    }
    dst.copy_from_slice(&stack[0][..len]);
}
