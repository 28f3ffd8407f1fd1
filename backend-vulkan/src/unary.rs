//! Unary kernels (shaders/unary.wgsl): the op code is the row's position, which build.rs writes into the shader as
//! `OP_<NAME>`. float32 neg, abs, exp, log, sqrt, rsqrt and tanh of an input contiguous from a multiple of four
//! elements go to shaders/unary_flat.wgsl, which reads and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::UnaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::flat_or_generic;
use crate::launch::Launch;
use crate::pipeline::UNARY_FLAT_OPS;

/// The flat kernel computes common float32 ops of a few dozen instructions at most.
pub fn unary(k: &Kernel, op: UnaryOp) -> Result<Launch> {
    flat_or_generic(k, "unary", (op.name(), op.code()), ("unary_flat", UNARY_FLAT_OPS), false)
}
