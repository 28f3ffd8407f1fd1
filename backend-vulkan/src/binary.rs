//! Binary kernels and where (shaders/binary.wgsl, shaders/where.wgsl): the op code is the row's position, which
//! build.rs writes into the shader as `OP_<NAME>`.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::BinaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::Launch;

pub fn binary(k: &Kernel, op: BinaryOp) -> Result<Launch> {
    launch(k, "binary", op.code())
}

pub fn where_(k: &Kernel) -> Result<Launch> {
    launch(k, "where", 0)
}
