//! Fused elementwise programs (`Op::Fused`): the postfix steps run over blocks of elements, each step the f32 kernel
//! of its primitive applied to a whole block (a loop the compiler vectorises, as the primitives' own), so the result
//! is the bytes the chain of primitives gives, without storing the intermediate values.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::{fits, Step, FUSED_DEPTH};
use vkml_core::util::narrow::{bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits};

use crate::column::{blocks, Column, BLOCK};
use crate::values::{encode, f32_bytes, Values};

/// One input as the program reads it: float values (float16 and bfloat16 widened), or a bool's bytes, read as 0 or 1.
enum Input<'a> {
    Float(Column<'a, f32>),
    Bool(Column<'a, u8>),
}

impl<'a> Input<'a> {
    fn new(b: &'a [u8], d: DType, v: &View) -> Option<Self> {
        match d {
            DType::Bool => Some(Input::Bool(Column::bools(b, v))),
            _ => Column::f32(b, d, v).map(Input::Float),
        }
    }

    fn len(&self) -> usize {
        match self {
            Input::Float(c) => c.len(),
            Input::Bool(c) => c.len(),
        }
    }
}

/// The program over `ins` (n elements each), written as `out` (a program's last value is already one of `out`'s).
pub fn fused(steps: &[Step], ins: &[(&[u8], DType, &View)], n: usize, out: DType) -> Vec<u8> {
    // The planner reads only dtypes a program holds; a program whose inputs are not, or that does not fit (both
    // builders of programs check them with `fits`), leaves zeros, never a panic.
    let cols: Vec<Input> = ins.iter().map(|&(b, d, v)| Input::new(b, d, v)).collect::<Option<_>>().unwrap_or_default();
    let bound = |s: &Step| !matches!(*s, Step::Input(k) if usize::from(k) >= cols.len());
    let runs = fits(steps) && steps.iter().all(bound) && cols.len() == ins.len() && cols.iter().all(|c| c.len() == n);
    let fill = |dst: &mut [f32]| {
        if runs {
            let scratch = || (vec![[0f32; BLOCK]; FUSED_DEPTH], vec![0u8; BLOCK]);
            blocks(dst, scratch, |(stack, bytes), start, dst| run(steps, &cols, start, dst, stack, bytes));
        }
    };
    if out == DType::F32 {
        return f32_bytes(n, fill);
    }
    let mut values = vec![0f32; n];
    fill(&mut values);
    encode(&Values::F32(values), out)
}

/// The program over the block of `dst.len()` elements from `start`, into `dst`.
fn run(steps: &[Step], cols: &[Input], start: usize, dst: &mut [f32], stack: &mut [[f32; BLOCK]], bytes: &mut [u8]) {
    let len = dst.len();
    let mut sp = 0;
    for step in steps {
        match *step {
            Step::Input(k) => {
                let top = &mut stack[sp][..len];
                match &cols[usize::from(k)] {
                    Input::Float(c) => c.read(start, top),
                    Input::Bool(c) => {
                        c.read(start, &mut bytes[..len]);
                        top.iter_mut().zip(&bytes[..len]).for_each(|(v, &b)| *v = f32::from(u8::from(b != 0)));
                    }
                }
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
            Step::Where => {
                let (lower, upper) = stack.split_at_mut(sp - 2);
                let (a, b) = upper.split_at_mut(1);
                for ((c, &a), &b) in lower[sp - 3][..len].iter_mut().zip(&a[0][..len]).zip(&b[0][..len]) {
                    *c = [b, a][usize::from(*c != 0.0)];
                }
                sp -= 2;
            }
            Step::Cast(d) => cast(d, &mut stack[sp - 1][..len]),
        }
    }
    dst.copy_from_slice(&stack[0][..len]);
}

/// Each of `xs` as a cast to `d` stores it, read back (`fits` admits no other dtype than these four).
fn cast(d: DType, xs: &mut [f32]) {
    match d {
        DType::F16 => xs.iter_mut().for_each(|x| *x = f16_bits_to_f32(f32_to_f16_bits(*x))),
        DType::BF16 => xs.iter_mut().for_each(|x| *x = bf16_bits_to_f32(f32_to_bf16_bits(*x))),
        DType::Bool => xs.iter_mut().for_each(|x| *x = f32::from(u8::from(*x != 0.0))),
        DType::F32 | DType::F64 | DType::I32 | DType::I64 => {}
    }
}
