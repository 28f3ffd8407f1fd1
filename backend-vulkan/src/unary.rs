//! Unary kernels (shaders/unary.wgsl); op codes match the shader's switch.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::UnaryOp;
use vkml_core::util::error::Result;

use crate::dispatch::Dispatch;
use crate::elementwise::plan;

pub fn unary(k: &Kernel, op: UnaryOp) -> Result<Dispatch> {
    let code = match op {
        UnaryOp::Neg => 0,
        UnaryOp::Exp => 1,
        UnaryOp::Log => 2,
        UnaryOp::Sqrt => 3,
    };
    plan(k, "unary", code)
}
