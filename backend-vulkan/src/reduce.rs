//! Reductions (shaders/reduce.wgsl): one workgroup per output; the op code is the row's position (`OP_<NAME>`).

use vkml_core::backend::Kernel;
use vkml_core::graph::op::ReduceOp;
use vkml_core::util::error::{Error, Result};

use crate::launch::{grid, Launch};
use crate::meta::{code, to_u32, Meta};

pub fn reduce(k: &Kernel, op: ReduceOp, axes: usize) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("reduce without input".into()))?;
    let v = &a.view;
    let split = v.ndim() - axes;
    let inner: usize = v.shape[split..].iter().product();
    let outer: usize = v.shape[..split].iter().product();
    let mut meta = Meta { op: op.code(), out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&v.shape)?;
    meta.set_input(0, a.buffer.dtype, v)?;
    meta.n = to_u32(outer)?;
    meta.extra = [axes as u32, to_u32(inner)?, 0, 0];
    Ok(Launch { family: "reduce", meta, inputs: vec![a.buffer.clone()], groups: grid(outer) })
}
