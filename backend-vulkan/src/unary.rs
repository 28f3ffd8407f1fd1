//! Unary kernels (shaders/unary.wgsl): the op code is the row's position, which build.rs writes into the shader as
//! `OP_<NAME>`. float32 neg, abs, exp, log, sqrt, rsqrt and tanh of an input contiguous from a multiple of four
//! elements go to shaders/unary_flat.wgsl, which reads and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::UnaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::{flat, launch};
use crate::launch::Launch;

pub fn unary(k: &Kernel, op: UnaryOp) -> Result<Launch> {
    if flat_op(op) {
        if let Some(l) = flat(k, "unary_flat", op.code(), false)? {
            return Ok(l);
        }
    }
    launch(k, "unary", op.code())
}

/// The ops shaders/unary_flat.wgsl computes (the build script reads them from its `case`s): common float32 ops of
/// a few dozen instructions at most.
fn flat_op(op: UnaryOp) -> bool {
    crate::pipeline::UNARY_FLAT_OPS.contains(&op.name())
}
