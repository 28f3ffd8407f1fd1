//! Reductions (shaders/reduce.wgsl): one workgroup per output, or one invocation per output where rows are short
//! (a pool's window, a row of class scores), whose workgroup would sit mostly idle through its tree; the op code is
//! the row's position (`OP_<NAME>`). Where the reduced elements lie contiguous the shader skips the per-element
//! index arithmetic, which otherwise costs more than the load on a fast GPU.

use vkml_core::backend::Kernel;
use vkml_core::base::view::View;
use vkml_core::graph::op::ReduceOp;
use vkml_core::util::error::{Error, Result};

use crate::launch::{rows_grid, Launch};
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
    if let Some(step) = contiguous(v, split) {
        meta.extra2 = [1, to_u32(step)?, 0, 0];
    }
    let (short, groups) = rows_grid(outer, inner);
    meta.extra[2] = u32::from(short);
    Ok(Launch { family: "reduce", meta, inputs: vec![a.buffer.clone()], groups })
}

/// Where every output's reduced elements lie contiguous and output o's start at `offset + o * step`: that step.
fn contiguous(v: &View, split: usize) -> Option<usize> {
    let mut expected = 1isize;
    for d in (split..v.ndim()).rev() {
        if v.shape[d] != 1 {
            if v.strides[d] != expected {
                return None;
            }
            expected *= v.shape[d] as isize;
        }
    }
    let mut outer = (0..split).filter(|&d| v.shape[d] != 1);
    let Some(first) = outer.next() else { return Some(0) };
    let mut step = v.strides[first];
    for d in outer {
        if step != v.strides[d] * v.shape[d] as isize {
            return None;
        }
        step = v.strides[d];
    }
    usize::try_from(step).ok()
}
