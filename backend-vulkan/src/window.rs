//! The sliding-window primitives: unfold (im2col) is a copy of the image's block view (shaders/movement.wgsl);
//! fold (col2im) gathers each image element's taps (shaders/window.wgsl).

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Window;
use vkml_core::util::error::{Error, Result};

use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};
use crate::movement::copy_view;

pub fn unfold(k: &Kernel, w: &Window) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("unfold without input".into()))?;
    copy_view(k.out.dtype, &a.buffer, &w.blocks(&a.view))
}

pub fn fold(k: &Kernel, w: &Window) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("fold without input".into()))?;
    let (t, [kh, kw], [oh, ow]) = (&a.view.strides, w.kernel, w.out);
    // The source (N, C·KH·KW, OH·OW) split into (N, C, KH, KW, OH, OW).
    let rows = t[1];
    let split = View {
        shape: vec![k.shape[0], k.shape[1], kh, kw, oh, ow],
        strides: vec![t[0], rows * (kh * kw) as isize, rows * kw as isize, rows, t[2] * ow as isize, t[2]],
        offset: a.view.offset,
    };
    let mut meta = Meta { out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&k.shape)?;
    meta.n = to_u32(k.out.len)?;
    meta.set_input(0, a.buffer.dtype, &split)?;
    meta.extra = [to_u32(kh)?, to_u32(kw)?, to_u32(oh)?, to_u32(ow)?];
    meta.extra2 = [to_u32(w.stride[0])?, to_u32(w.stride[1])?, to_u32(w.dilation[0])?, to_u32(w.dilation[1])?];
    let slots = if matches!(k.out.dtype, DType::F16 | DType::BF16) { k.out.len.div_ceil(2) } else { k.out.len };
    Ok(Launch { family: "window", meta, inputs: vec![a.buffer.clone()], groups: slots_grid(slots) })
}
