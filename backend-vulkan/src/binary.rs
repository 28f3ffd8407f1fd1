//! Binary kernels and where (shaders/binary.wgsl, shaders/where.wgsl): the op code is the row's position, which
//! build.rs writes into the shader as `OP_<NAME>`. float32 add, mul, div, maximum and minimum whose operands are each
//! contiguous from a multiple of four elements or one broadcast value go to shaders/binary_flat.wgsl, which reads
//! and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::BinaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::{flat_or_generic, launch};
use crate::launch::Launch;
use crate::pipeline::BINARY_FLAT_OPS;

/// The flat kernel computes the float32 ops with a float32 result that cost a few instructions, and reads a broadcast
/// operand's one value.
pub fn binary(k: &Kernel, op: BinaryOp) -> Result<Launch> {
    flat_or_generic(k, "binary", (op.name(), op.code()), ("binary_flat", BINARY_FLAT_OPS), true)
}

pub fn where_(k: &Kernel) -> Result<Launch> {
    launch(k, "where", 0)
}
