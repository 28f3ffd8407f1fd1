//! Fused elementwise programs (shaders/fused.wgsl): the elementwise launch with the program's words in the uniform
//! (a step's kind, and its input, op or dtype code), which the generic kernel interprets. The kernel binds three inputs; a
//! program of fewer binds its first input again in the unused slots. A program that keeps coming back gets a kernel of
//! its own (straight.rs, compiled by pipeline.rs): the same steps as straight-line code, with no loop or switch.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::Step;
use vkml_core::util::error::{Error, Result};

use crate::elementwise::launch;
use crate::launch::Launch;

pub fn fused(k: &Kernel, steps: &[Step]) -> Result<Launch> {
    let mut d = launch(k, "fused", 0)?;
    let mut words: Vec<u32> = Vec::with_capacity(steps.len() + 4);
    for step in steps {
        match *step {
            Step::Input(i) => words.push(u32::from(i) << 8),
            Step::Const(c) => words.extend([1, c.to_bits()]),
            Step::Unary(op) => words.push(2 | op.code() << 8),
            Step::Binary(op) => words.push(3 | op.code() << 8),
            Step::Where => words.push(4),
            Step::Cast(d) => words.push(5 | crate::meta::code(d) << 8),
        }
    }
    if words.len() > d.meta.prog.len() {
        return Err(Error::Backend(format!("a fused program of {} words exceeds {}", words.len(), d.meta.prog.len())));
    }
    d.meta.prog[..words.len()].copy_from_slice(&words);
    d.meta.extra[0] = words.len() as u32;
    while d.inputs.len() < 3 {
        let first = d.inputs.first().cloned().ok_or_else(|| Error::Backend("a fused program needs an input".into()))?;
        d.inputs.push(first);
    }
    Ok(d)
}

/// `words` with each constant's value zeroed: what a straight-line kernel depends on (it reads the values at run time).
pub fn shape(words: &[u32]) -> Vec<u32> {
    let mut out = words.to_vec();
    let mut i = 0;
    while i < out.len() {
        if out[i] & 0xff == 1 && i + 1 < out.len() {
            out[i + 1] = 0;
            i += 1;
        }
        i += 1;
    }
    out
}
