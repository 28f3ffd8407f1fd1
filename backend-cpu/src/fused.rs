//! Fused elementwise programs (`Op::Fused`): the postfix steps run over blocks of elements, each step the f32 kernel
//! of its primitive applied to a whole block (a loop the compiler vectorises, as the primitives' own), so the result
//! is the bytes the chain of primitives gives, without storing the intermediate values.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::{fits, Step, FUSED_DEPTH};

use crate::column::{blocks, Column, BLOCK};
use crate::values::f32_bytes;

pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize) -> Vec<u8> {
    // The graph builds fused nodes from float32 inputs only.
    let cols: Option<Vec<Column<f32>>> = ins.iter().map(|&(b, d, v)| Column::f32(b, d, v)).collect();
    let cols = cols.unwrap_or_default();
    // Both builders of programs check them with `fits`; a program that does not fit leaves zeros, never a panic.
    let bound = |s: &Step| !matches!(*s, Step::Input(k) if usize::from(k) >= cols.len());
    let runs = fits(steps) && steps.iter().all(bound) && cols.len() == ins.len() && cols.iter().all(|c| c.len() == n);
    f32_bytes(n, |out| {
        if runs {
            blocks(out, || vec![[0f32; BLOCK]; FUSED_DEPTH], |stack, start, dst| run(steps, &cols, start, dst, stack));
        }
    })
}

/// The program over the block of `dst.len()` elements from `start`, into `dst`.
fn run(steps: &[Step], cols: &[Column<f32>], start: usize, dst: &mut [f32], stack: &mut [[f32; BLOCK]]) {
    let len = dst.len();
    let mut sp = 0;
    for step in steps {
        match *step {
            Step::Input(k) => {
                cols[usize::from(k)].read(start, &mut stack[sp][..len]);
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
