//! Binary kernels and where (shaders/binary.wgsl, shaders/where.wgsl): the op code is the row's position, which
//! build.rs writes into the shader as `OP_<NAME>`. float32 add, mul, div, maximum and minimum whose operands are each
//! contiguous from a multiple of four elements or one broadcast value go to shaders/binary_flat.wgsl, which reads
//! and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::BinaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::{flat, launch};
use crate::launch::Launch;

pub fn binary(k: &Kernel, op: BinaryOp) -> Result<Launch> {
    if flat_op(op) {
        if let Some(l) = flat(k, "binary_flat", op.code(), true)? {
            return Ok(l);
        }
    }
    launch(k, "binary", op.code())
}

/// The ops shaders/binary_flat.wgsl computes (the build script reads them from its `case`s): those with a float32
/// result that cost a few instructions.
fn flat_op(op: BinaryOp) -> bool {
    crate::pipeline::BINARY_FLAT_OPS.contains(&op.name())
}

pub fn where_(k: &Kernel) -> Result<Launch> {
    launch(k, "where", 0)
}
