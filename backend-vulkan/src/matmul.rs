//! Batched matmul (shaders/matmul.wgsl): 16x16 output tiles, batch in the z dimension of the grid.

use vkml_core::backend::Kernel;
use vkml_core::util::error::{Error, Result};

use crate::dispatch::Dispatch;
use crate::meta::{code, to_u32, Meta};

pub fn matmul(k: &Kernel) -> Result<Dispatch> {
    let (a, b) = match k.args.as_slice() {
        [a, b] => (a, b),
        _ => return Err(Error::Backend("matmul needs two inputs".into())),
    };
    let nd = k.shape.len();
    let (m, n) = (k.shape[nd - 2], k.shape[nd - 1]);
    let kk = a.view.shape[nd - 1];
    let batch: usize = k.shape[..nd - 2].iter().product();
    if batch > 65_535 {
        return Err(Error::Unsupported(format!("matmul with {batch} batches exceeds 65,535 on vulkan")));
    }
    let mut meta = Meta { out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&k.shape)?;
    meta.set_input(0, a.buffer.dtype, &a.view)?;
    meta.set_input(1, b.buffer.dtype, &b.view)?;
    meta.n = to_u32(batch * m * n)?;
    meta.extra = [to_u32(m)?, to_u32(n)?, to_u32(kk)?, 0];
    let groups = (to_u32(n.div_ceil(16))?.max(1), to_u32(m.div_ceil(16))?.max(1), batch.max(1) as u32);
    if groups.0 > 65_535 || groups.1 > 65_535 {
        return Err(Error::Unsupported(format!("matmul of {m}x{n} outputs exceeds the dispatch limit on vulkan")));
    }
    Ok(Dispatch { family: "matmul", meta, inputs: vec![a.buffer.clone(), b.buffer.clone()], groups })
}
