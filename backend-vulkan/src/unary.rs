//! Unary kernels (shaders/unary.wgsl): the op code is the row's position, which build.rs writes into the shader as
//! `OP_<NAME>`. float32 neg, abs, exp, log, sqrt, rsqrt and tanh of an input contiguous from a multiple of four
//! elements go to shaders/unary_flat.wgsl, which reads and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::UnaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::{driver_grid, Launch};
use crate::meta::Meta;

pub fn unary(k: &Kernel, op: UnaryOp) -> Result<Launch> {
    if flat_op(op) && k.out.dtype == DType::F32 && k.args.iter().all(|a| a.buffer.dtype == DType::F32) {
        let ins: Vec<_> = k.args.iter().map(|a| (a.buffer.dtype, &a.view)).collect();
        let meta = Meta::elementwise(op.code(), k.out.dtype, &k.shape, &ins)?;
        // One dim left after coalescing, walked with stride 1 from an aligned first element.
        if meta.rank == 1 && meta.strides[0][0] == 1 && meta.offset[0] % 4 == 0 {
            let vecs = (meta.n as usize).div_ceil(4);
            let inputs = k.args.iter().map(|a| a.buffer.clone()).collect();
            return Ok(Launch { family: "unary_flat", meta, inputs, groups: driver_grid(vecs) });
        }
    }
    launch(k, "unary", op.code())
}

/// The ops shaders/unary_flat.wgsl computes (the build script reads them from its `case`s): common float32 ops of
/// a few dozen instructions at most.
fn flat_op(op: UnaryOp) -> bool {
    crate::pipeline::UNARY_FLAT_OPS.contains(&op.name())
}
