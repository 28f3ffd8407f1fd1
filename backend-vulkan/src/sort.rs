//! argsort along the last dim (shaders/sort.wgsl): one invocation per element, each finding its rank in its row.

use vkml_core::backend::Kernel;
use vkml_core::util::error::{Error, Result};

use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};

pub fn argsort(k: &Kernel, descending: bool) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("argsort without input".into()))?;
    let mut meta = Meta { op: u32::from(descending), out_dtype: code(k.out.dtype), ..Default::default() };
    // The last dim is kept apart (the shader reads the row length from it); the others may have any layout.
    meta.set_shape(&a.view.shape)?;
    meta.set_input(0, a.buffer.dtype, &a.view)?;
    meta.n = to_u32(k.out.len)?;
    Ok(Launch { family: "sort", meta, inputs: vec![a.buffer.clone()], groups: slots_grid(k.out.len) })
}
