//! Gather and scatter along one dim (shaders/index.wgsl); op codes match the shader's switch.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::util::error::{Error, Result};

use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};

/// `Gather` reads src (args 0) at the positions of the index (arg 1); `Scatter` builds each element of the base
/// (arg 0) from the index (arg 1) and src (arg 2). The dim is not merged with its neighbours: the shader finds each
/// element's coordinate along it.
pub fn index(k: &Kernel, dim: usize, op: u32) -> Result<Launch> {
    let mut meta = Meta { op, out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&k.shape)?;
    meta.n = to_u32(k.out.len)?;
    for (i, a) in k.args.iter().enumerate() {
        meta.set_input(i, a.buffer.dtype, &a.view)?;
    }
    let extent = match (op, k.args.get(1)) {
        (0, _) => k.args.first().map(|a| a.view.shape[dim]),
        (_, Some(index)) => Some(index.view.shape[dim]),
        _ => None,
    }
    .ok_or_else(|| Error::Backend("gather/scatter without its inputs".into()))?;
    meta.extra = [to_u32(dim)?, to_u32(extent)?, 0, 0];
    // The shader declares three inputs; a gather binds its source again in the third slot.
    let mut inputs: Vec<_> = k.args.iter().map(|a| a.buffer.clone()).collect();
    if let Some(first) = inputs.first().cloned() {
        inputs.resize(3, first);
    }
    let slots = if matches!(k.out.dtype, DType::F16 | DType::BF16) { k.out.len.div_ceil(2) } else { k.out.len };
    Ok(Launch { family: "index", meta, inputs, groups: slots_grid(slots) })
}
