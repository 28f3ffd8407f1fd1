//! Fused elementwise programs (`Op::Fused`): the postfix steps run over blocks of elements, each step the f32 kernel
//! of its primitive applied to a whole block (a loop the compiler vectorises, as the primitives' own), so the result
//! is the bytes the chain of primitives gives, without storing the intermediate values.

use std::borrow::Cow;

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::{fits, Step, FUSED_DEPTH};

use crate::values::{class, encode, f32_run, gather, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// Elements per block: the stack of blocks stays in the core's cache.
const BLOCK: usize = 2048;
/// Blocks per parallel task.
const TASK: usize = 8;

pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize) -> Vec<u8> {
    let cols: Vec<Cow<[f32]>> = ins.iter().map(|&(b, d, v)| column(b, d, v, n)).collect();
    let mut bytes = vec![0u8; 4 * n];
    let mut copy = Vec::new();
    // The result is written straight into the output's bytes where they are aligned for floats (as allocations are).
    let out: &mut [f32] = match bytemuck::try_cast_slice_mut(&mut bytes) {
        Ok(o) if cfg!(target_endian = "little") => o,
        _ => {
            copy = vec![0f32; n];
            &mut copy
        }
    };
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
    if copy.is_empty() {
        bytes
    } else {
        encode(&Values::F32(copy), DType::F32)
    }
}

/// Input `(b, d, v)` as n float32 values: borrowed from the buffer where the view is a contiguous run of float32,
/// else gathered.
fn column<'a>(b: &'a [u8], d: DType, v: &View, n: usize) -> Cow<'a, [f32]> {
    if let Some(xs) = f32_run(b, d, v) {
        return Cow::Borrowed(xs);
    }
    match gather(b, d, v, class(d)) {
        Values::F32(x) => Cow::Owned(x),
        // The graph builds fused nodes from float32 inputs only.
        Values::F64(_) | Values::I64(_) => Cow::Owned(vec![0.0; n]),
    }
}

/// The program over the block of `dst.len()` elements from `start`, into `dst`.
fn run(steps: &[Step], cols: &[Cow<[f32]>], start: usize, dst: &mut [f32], stack: &mut [[f32; BLOCK]]) {
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
