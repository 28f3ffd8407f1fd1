//! Binary kernels and where (shaders/binary.wgsl, shaders/where.wgsl); op codes match the shader's switch.

use vkml_core::backend::Kernel;
use vkml_core::graph::op::BinaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::Launch;

pub fn binary(k: &Kernel, op: BinaryOp) -> Result<Launch> {
    let code = match op {
        BinaryOp::Add => 0,
        BinaryOp::Mul => 1,
        BinaryOp::Div => 2,
        BinaryOp::Maximum => 3,
        BinaryOp::Eq => 4,
        BinaryOp::Ne => 5,
        BinaryOp::Lt => 6,
        BinaryOp::Le => 7,
        BinaryOp::Gt => 8,
        BinaryOp::Ge => 9,
        BinaryOp::Minimum => 10,
        BinaryOp::BitAnd => 11,
        BinaryOp::BitOr => 12,
        BinaryOp::BitXor => 13,
        BinaryOp::Fmod => 14,
        BinaryOp::Atan2 => 15,
        BinaryOp::CopySign => 16,
        BinaryOp::Pow => 17,
    };
    launch(k, "binary", code)
}

pub fn where_(k: &Kernel) -> Result<Launch> {
    launch(k, "where", 0)
}
