//! Unary kernels (shaders/unary.wgsl): the op code is the row's position, which build.rs writes into the shader as
//! `OP_<NAME>`.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::UnaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::Launch;

pub fn unary(k: &Kernel, op: UnaryOp) -> Result<Launch> {
    launch(k, "unary", op.code())
}
