//! Binary kernels and where (shaders/binary.wgsl, shaders/where.wgsl): the op code is the row's position, which
//! build.rs writes into the shader as `OP_<NAME>`. float32 add, mul, div, maximum and minimum whose operands are each
//! contiguous from a multiple of four elements or one broadcast value go to shaders/binary_flat.wgsl, which reads
//! and writes four elements at a time.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::BinaryOp;
use vkml_core::util::error::Result;

use crate::elementwise::launch;
use crate::launch::{driver_grid, Launch};
use crate::meta::Meta;

pub fn binary(k: &Kernel, op: BinaryOp) -> Result<Launch> {
    if flat_op(op) && k.out.dtype == DType::F32 && k.args.iter().all(|a| a.buffer.dtype == DType::F32) {
        let ins: Vec<_> = k.args.iter().map(|a| (a.buffer.dtype, &a.view)).collect();
        let mut meta = Meta::elementwise(op.code(), k.out.dtype, &k.shape, &ins)?;
        // One dim left after coalescing: each operand walks it with stride 1 (from an aligned first element) or 0.
        let kinds: Vec<Option<u32>> = (0..2)
            .map(|i| match meta.strides[i][0] {
                0 => Some(1),
                1 if meta.offset[i] % 4 == 0 => Some(0),
                _ => None,
            })
            .collect();
        if let (1, [Some(ka), Some(kb)]) = (meta.rank, kinds.as_slice()) {
            meta.extra = [*ka, *kb, 0, 0];
            let vecs = (meta.n as usize).div_ceil(4);
            let inputs = k.args.iter().map(|a| a.buffer.clone()).collect();
            return Ok(Launch { family: "binary_flat", meta, inputs, groups: driver_grid(vecs) });
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
