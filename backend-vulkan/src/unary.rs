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
        UnaryOp::Sin => 13,
        UnaryOp::Cos => 14,
        UnaryOp::Tan => 15,
        UnaryOp::Asin => 16,
        UnaryOp::Acos => 17,
        UnaryOp::Atan => 18,
        UnaryOp::Sinh => 19,
        UnaryOp::Cosh => 20,
        UnaryOp::Tanh => 21,
        UnaryOp::Asinh => 22,
        UnaryOp::Acosh => 23,
        UnaryOp::Atanh => 24,
        UnaryOp::Erf => 25,
        UnaryOp::Erfc => 26,
        UnaryOp::Expm1 => 27,
        UnaryOp::Log1p => 28,
    };
    plan(k, "unary", code)
}
