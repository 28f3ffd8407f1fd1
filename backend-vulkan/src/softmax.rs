//! softmax and log_softmax along the last dim (shaders/softmax.wgsl): one workgroup per row, or one invocation per
//! row where rows are short (class scores), as the reductions do.

use vkml_core::backend::Kernel;
use vkml_core::util::error::{Error, Result};

use crate::launch::{rows_grid, Launch};
use crate::meta::{to_u32, Meta};

pub fn softmax(k: &Kernel, log: bool) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("softmax without input".into()))?;
    let n = k.shape.last().copied().unwrap_or(1).max(1);
    let rows = k.out.len / n;
    // The elementwise meta coalesces dims but keeps row-major element order, so element j of row r is r·n + j.
    let mut meta = Meta::elementwise(u32::from(log), k.out.dtype, &k.shape, &[(a.buffer.dtype, &a.view)])?;
    let (short, groups) = rows_grid(rows, n);
    meta.extra = [to_u32(n)?, u32::from(short), 0, 0];
    Ok(Launch { family: "softmax", meta, inputs: vec![a.buffer.clone()], groups })
}
