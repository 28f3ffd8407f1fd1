//! softmax and log_softmax along the last dim (shaders/softmax.wgsl): one workgroup per row, or one invocation per
//! row where rows are short (class scores), as the reductions do. Contiguous float32 rows of 36 to 4,096 elements, a
//! multiple of four, starting at a multiple of four, go to shaders/softmax_flat.wgsl, which reads them as vec4s into
//! named registers.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::util::error::{Error, Result};

use crate::launch::{rows_grid, Launch};
use crate::meta::{to_u32, Meta};

/// The longest row softmax_flat.wgsl takes: eight vec4s for each of its 128 invocations.
const FLAT_MAX: usize = 4096;

pub fn softmax(k: &Kernel, log: bool) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("softmax without input".into()))?;
    let n = k.shape.last().copied().unwrap_or(1).max(1);
    let rows = k.out.len / n;
    // The elementwise meta coalesces dims but keeps row-major element order, so element j of row r is r·n + j.
    let mut meta = Meta::elementwise(u32::from(log), k.out.dtype, &k.shape, &[(a.buffer.dtype, &a.view)])?;
    let (short, groups) = rows_grid(rows, n);
    meta.extra = [to_u32(n)?, u32::from(short), 0, 0];
    let contiguous = meta.rank == 1 && meta.strides[0][0] == 1 && meta.offset[0] % 4 == 0;
    let float32 = a.buffer.dtype == DType::F32 && k.out.dtype == DType::F32;
    let family =
        if !short && contiguous && float32 && n % 4 == 0 && n <= FLAT_MAX { "softmax_flat" } else { "softmax" };
    Ok(Launch { family, meta, inputs: vec![a.buffer.clone()], groups })
}
