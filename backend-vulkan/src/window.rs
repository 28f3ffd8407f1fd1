//! The sliding-window primitives: unfold (im2col) without a pad is a copy of the image's block view
//! (shaders/movement.wgsl); unfold with a pad, fold (col2im), max pooling and its gradient compute each output element
//! from its taps (shaders/window.wgsl, whose op codes these are); a float32 pool's gradient over windows that tile the
//! image, each window from its own taps (shaders/window_tiles.wgsl).

use vkml_core::backend::Kernel;
use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Window;
use vkml_core::util::error::{Error, Result};

use crate::launch::{slots_grid, Launch};
use crate::meta::{code, to_u32, Meta};
use crate::movement::copy_view;

/// Op 3 where the windows reach into the pad (before the image or past its end): the image (N, C, H, W) read where a
/// tap lies inside it.
pub fn unfold(k: &Kernel, w: &Window) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("unfold without input".into()))?;
    if w.inside([a.view.shape[2], a.view.shape[3]]) {
        return copy_view(k.out.dtype, &a.buffer, &w.blocks(&a.view));
    }
    let mut l = launch(k, w, 3, &[(a.buffer.dtype, &a.view)], vec![a.buffer.clone(), a.buffer.clone()])?;
    // The image's height and width, which the output's shape does not give.
    l.meta.prog[2] = to_u32(a.view.shape[2])?;
    l.meta.prog[3] = to_u32(a.view.shape[3])?;
    Ok(l)
}

/// Op 0: the source (N, C·KH·KW, OH·OW) read as (N, C, KH, KW, OH, OW).
pub fn fold(k: &Kernel, w: &Window) -> Result<Launch> {
    let a = k.args.first().ok_or_else(|| Error::Backend("fold without input".into()))?;
    let (t, [kh, kw], [oh, ow]) = (&a.view.strides, w.kernel, w.out);
    let rows = t[1];
    let split = View {
        shape: vec![k.shape[0], k.shape[1], kh, kw, oh, ow],
        strides: vec![t[0], rows * (kh * kw) as isize, rows * kw as isize, rows, t[2] * ow as isize, t[2]],
        offset: a.view.offset,
    };
    launch(k, w, 0, &[(a.buffer.dtype, &split)], vec![a.buffer.clone(), a.buffer.clone()])
}

/// Op 1 over the padded image (arg 0); op 2 also reads the pooled output's gradient (arg 1).
pub fn max_pool(k: &Kernel, w: &Window, grad: bool) -> Result<Launch> {
    let views: Vec<_> = k.args.iter().map(|a| (a.buffer.dtype, &a.view)).collect();
    let mut inputs: Vec<_> = k.args.iter().map(|a| a.buffer.clone()).collect();
    match (grad, inputs.len()) {
        (false, 1) => inputs.push(inputs[0].clone()),
        (true, 2) => {}
        _ => return Err(Error::Backend("max pooling with the wrong inputs".into())),
    }
    if grad && tiles(k, w) {
        let mut l = launch(k, w, 2, &views, inputs)?;
        let windows = k.out.len / (w.kernel[0] * w.kernel[1]);
        l.meta.n = to_u32(windows)?;
        l.family = "window_tiles";
        l.groups = slots_grid(windows);
        return Ok(l);
    }
    launch(k, w, if grad { 2 } else { 1 }, &views, inputs)
}

/// Whether a float32 pool's gradient can take shaders/window_tiles.wgsl: windows that tile the image exactly (stride =
/// kernel, no dilation, no element outside every window), so each window owns its elements.
fn tiles(k: &Kernel, w: &Window) -> bool {
    let floats = k.out.dtype == DType::F32 && k.args.iter().all(|a| a.buffer.dtype == DType::F32);
    let exact = k.shape.len() == 4 && (0..2).all(|d| k.shape[2 + d] == w.out[d] * w.kernel[d]);
    floats && exact && w.stride == w.kernel && w.dilation == [1, 1] && k.out.len > 0
}

fn launch(
    k: &Kernel,
    w: &Window,
    op: u32,
    views: &[(DType, &View)],
    inputs: Vec<vkml_core::base::buffer::Buffer>,
) -> Result<Launch> {
    let mut meta = Meta { op, out_dtype: code(k.out.dtype), ..Default::default() };
    meta.set_shape(&k.shape)?;
    meta.n = to_u32(k.out.len)?;
    for (i, (dtype, view)) in views.iter().enumerate() {
        meta.set_input(i, *dtype, view)?;
    }
    let ([kh, kw], [oh, ow]) = (w.kernel, w.out);
    meta.extra = [to_u32(kh)?, to_u32(kw)?, to_u32(oh)?, to_u32(ow)?];
    meta.extra2 = [to_u32(w.stride[0])?, to_u32(w.stride[1])?, to_u32(w.dilation[0])?, to_u32(w.dilation[1])?];
    // The pad, in words a fused program would use (this family reads no program).
    meta.prog[0] = to_u32(w.pad[0])?;
    meta.prog[1] = to_u32(w.pad[1])?;
    let slots = if matches!(k.out.dtype, DType::F16 | DType::BF16) { k.out.len.div_ceil(2) } else { k.out.len };
    Ok(Launch { family: "window", meta, inputs, groups: slots_grid(slots) })
}
