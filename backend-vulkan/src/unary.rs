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
        UnaryOp::Abs => 4,
        UnaryOp::Sign => 5,
        UnaryOp::Exp2 => 6,
        UnaryOp::Log2 => 7,
        UnaryOp::Floor => 8,
        UnaryOp::Ceil => 9,
        UnaryOp::Trunc => 10,
        UnaryOp::Round => 11,
        UnaryOp::Rsqrt => 12,
    };
    plan(k, "unary", code)
}
