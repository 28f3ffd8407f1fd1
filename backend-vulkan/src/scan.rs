//! Inclusive scans along the last dim (shaders/scan.wgsl through the elementwise driver). The dims are not
//! coalesced: the shader finds each element's row from the last dim's length.

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::ScanOp;
use vkml_core::util::error::{Error, Result};

use crate::launch::{driver_grid, Launch};
use crate::meta::{code, to_u32, Meta};

pub fn scan(k: &Kernel, op: ScanOp) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("scan without input".into()))?;
    let mut meta = Meta { op: op.code(), out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&a.view.shape)?;
    meta.set_input(0, a.buffer.dtype, &a.view)?;
    meta.n = to_u32(k.out.len)?;
    let slots = if matches!(k.out.dtype, DType::F16 | DType::BF16) { k.out.len.div_ceil(2) } else { k.out.len };
    Ok(Launch { family: "scan", meta, inputs: vec![a.buffer.clone()], groups: driver_grid(slots) })
}
