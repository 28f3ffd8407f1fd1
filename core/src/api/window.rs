//! The sliding-window primitives: `unfold_windows` (im2col, reading zeros in its pad) and `fold_windows` (col2im,
//! its adjoint), each the other's gradient, which convolution and `F.unfold`/`F.fold` are written over; and max
//! pooling over padded images with its gradient.

use crate::graph::op::{Op, Window};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn product(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::Runtime(format!("the window size {a}·{b} overflows")))
}

/// The span of image a window of `w` needs along dim d (`Window::span`), or an error where it overflows.
fn span(w: &Window, d: usize) -> Result<usize> {
    w.span(d).ok_or_else(|| Error::Runtime("the window's span overflows".into()))
}

/// Whether the windows of `w` fit an image of `size` (H, W) with its pad before and after it (one more after, as
/// padding='same' gives an even kernel).
fn fits_padded(w: &Window, size: [usize; 2]) -> Result<bool> {
    for (d, size) in size.into_iter().enumerate() {
        let room = w.pad[d].checked_mul(2).and_then(|p| p.checked_add(size)?.checked_add(1));
        let reach = span(w, d)?;
        if room.is_none_or(|room| reach > room) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// That `x` is an (N, C, H, W) image every window of `w` lies inside (a pool's: its image is padded already).
fn fit(what: &str, x: &Tensor, w: &Window) -> Result<()> {
    let s = x.shape();
    if s.len() != 4 || w.pad != [0, 0] || span(w, 0)? > s[2] || span(w, 1)? > s[3] {
        return Err(Error::Runtime(format!("{what}: windows {w:?} do not fit an input of size {s:?}")));
    }
    Ok(())
}

/// `x` (N, C, H, W) as (N, C·KH·KW, OH·OW): every window of `w` over the image with `w.pad` zeros before it (and as
/// many after it as the windows reach).
pub fn unfold_windows(x: &Tensor, w: Window) -> Result<Tensor> {
    let s = x.shape();
    if s.len() != 4 || !fits_padded(&w, [s[2], s[3]])? {
        return Err(Error::Runtime(format!("unfold: windows {w:?} do not fit an input of size {s:?}")));
    }
    let rows = product(s[1], product(w.kernel[0], w.kernel[1])?)?;
    let shape = vec![s[0], rows, product(w.out[0], w.out[1])?];
    Tensor::make(Op::Unfold(w), &[x], shape, x.dtype(), x.device())
}

/// `cols` (N, C·KH·KW, OH·OW) summed back into an (N, C, H, W) image of `size` (H, W), the pad left out: Unfold's
/// adjoint.
pub fn fold_windows(cols: &Tensor, w: Window, size: [usize; 2]) -> Result<Tensor> {
    let s = cols.shape();
    let k = product(w.kernel[0], w.kernel[1])?;
    let l = product(w.out[0], w.out[1])?;
    if s.len() != 3 || k == 0 || !s[1].is_multiple_of(k) || s[2] != l || !fits_padded(&w, size)? {
        return Err(Error::Runtime(format!("fold: windows {w:?} into {size:?} do not match an input of size {s:?}")));
    }
    let shape = vec![s[0], s[1] / k, size[0], size[1]];
    Tensor::make(Op::Fold(w), &[cols], shape, cols.dtype(), cols.device())
}

/// The first maximum of every window of `w` over the padded image `x` (N, C, H, W): (N, C, OH, OW).
pub fn max_pool_windows(x: &Tensor, w: Window) -> Result<Tensor> {
    fit("max_pool2d", x, &w)?;
    let s = x.shape();
    Tensor::make(Op::MaxPool(w), &[x], vec![s[0], s[1], w.out[0], w.out[1]], x.dtype(), x.device())
}

/// The gradient of `max_pool_windows(x, w)` for the gradient `g` of its output: `g` routed to each window's first
/// maximum, in `g`'s dtype.
pub fn max_pool_grad(x: &Tensor, g: &Tensor, w: Window) -> Result<Tensor> {
    Tensor::make(Op::MaxPoolGrad(w), &[x, g], x.shape().to_vec(), g.dtype(), x.device())
}
