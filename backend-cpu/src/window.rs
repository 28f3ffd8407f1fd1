//! The sliding-window primitives: unfold (im2col) copies the image's six-dim block view; fold (col2im) adds each
//! block element into the image, so every image element receives its taps in order (i, then j), as the shader adds
//! them.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Window;

use crate::movement::copy;
use crate::values::{class, encode, gather, Values};

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

type In<'a> = (&'a [u8], DType, &'a View);

pub fn unfold((bytes, dtype, view): In, w: &Window) -> Vec<u8> {
    copy((bytes, dtype, &w.blocks(view)))
}

/// Each element of `src` (N, C·KH·KW, OH·OW) added into its place of an (N, C, H, W) image of `shape`.
pub fn fold((bytes, dtype, view): In, w: &Window, shape: &[usize], out: DType) -> Vec<u8> {
    let hw = shape[2] * shape[3];
    // Image offset of every (i, j, oh, ow) of one channel, in the source's row-major order.
    let (taps, wins) = offsets(w, shape[3] as isize, 1);
    let targets: Vec<usize> = taps.iter().flat_map(|&t| wins.iter().map(move |&o| (t + o) as usize)).collect();
    let planes = shape[0] * shape[1];
    macro_rules! add_into {
        ($v:expr, $zero:expr, $add:expr) => {{
            let mut acc = vec![$zero; planes * hw];
            for (p, chunk) in $v.chunks_exact(targets.len().max(1)).enumerate().take(planes) {
                let plane = &mut acc[p * hw..(p + 1) * hw];
                for (&t, &x) in targets.iter().zip(chunk) {
                    plane[t] = $add(plane[t], x);
                }
            }
            acc
        }};
    }
    let sum = match gather(bytes, dtype, view, class(out)) {
        Values::F32(v) => Values::F32(add_into!(v, 0.0f32, |a: f32, x: f32| a + x)),
        Values::F64(v) => Values::F64(add_into!(v, 0.0f64, |a: f64, x: f64| a + x)),
        Values::I64(v) => Values::I64(add_into!(v, 0i64, |a: i64, x: i64| a.wrapping_add(x))),
    };
    encode(&sum, out)
}

/// Offsets of a window's taps (row-major i, j) and of the windows (row-major oh, ow) from a plane's first element,
/// for an image with row stride `rs` and column stride `cs`.
fn offsets(w: &Window, rs: isize, cs: isize) -> (Vec<isize>, Vec<isize>) {
    let at = move |y: usize, x: usize| y as isize * rs + x as isize * cs;
    let taps = (0..w.kernel[0]).flat_map(|i| (0..w.kernel[1]).map(move |j| at(i * w.dilation[0], j * w.dilation[1])));
    let wins = (0..w.out[0]).flat_map(|r| (0..w.out[1]).map(move |q| at(r * w.stride[0], q * w.stride[1])));
    (taps.collect(), wins.collect())
}

/// For each window of each plane, in row-major (plane, oh, ow) order, the tap of its first maximum: the first NaN,
/// else the first of the largest, as argmax picks. `image` holds the planes in row-major (plane, h, w) order.
fn first_max<T: Beats>(image: &[T], size: [usize; 2], w: &Window) -> Vec<usize> {
    let (taps, wins) = offsets(w, size[1] as isize, 1);
    let plane_len = size[0] * size[1];
    let mut out = vec![0usize; image.len() / plane_len.max(1) * wins.len()];
    if plane_len == 0 || wins.is_empty() {
        return out;
    }
    let pick = |(plane, dst): (&[T], &mut [usize])| {
        for (d, &base) in dst.iter_mut().zip(&wins) {
            let (mut best, mut b) = (0, plane[base as usize]);
            for (t, &o) in taps.iter().enumerate().skip(1) {
                let v = plane[(base + o) as usize];
                // Selects by index, not by branch: which tap wins is a coin toss on real data.
                let take = v.beats(b) as usize;
                (best, b) = ([best, t][take], [b, v][take]);
            }
            *d = best;
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    image.par_chunks_exact(plane_len).zip(out.par_chunks_mut(wins.len())).for_each(pick);
    #[cfg(target_arch = "wasm32")]
    image.chunks_exact(plane_len).zip(out.chunks_mut(wins.len())).for_each(pick);
    out
}

/// A later candidate that replaces the best so far: a NaN over a number, a larger number over a smaller one.
trait Beats: Copy + Send + Sync {
    fn beats(self, best: Self) -> bool;
}

macro_rules! float_beats {
    ($t:ty) => {
        impl Beats for $t {
            #[inline(always)]
            #[allow(clippy::eq_op)] // x != x: NaN, written out so the loop inlines it
            fn beats(self, best: $t) -> bool {
                best == best && (self != self || self > best)
            }
        }
    };
}
float_beats!(f32);
float_beats!(f64);

impl Beats for i64 {
    #[inline(always)]
    fn beats(self, best: i64) -> bool {
        self > best
    }
}

/// `first_max` of the image view, compared in its own class.
fn winners(image: In, w: &Window) -> Vec<usize> {
    let size = [image.2.shape[2], image.2.shape[3]];
    match gather(image.0, image.1, image.2, class(image.1)) {
        Values::F32(v) => first_max(&v, size, w),
        Values::F64(v) => first_max(&v, size, w),
        Values::I64(v) => first_max(&v, size, w),
    }
}

/// Each window's first maximum, its bits copied from the image: output (N, C, OH, OW).
pub fn max_pool(image: In, w: &Window) -> Vec<u8> {
    let (bytes, dtype, view) = image;
    let (width, s) = (dtype.itemsize(), &view.strides);
    let (taps, wins) = offsets(w, s[2], s[3]);
    let channels = view.shape[1].max(1);
    let mut out = Vec::with_capacity(view.shape[0] * view.shape[1] * wins.len() * width);
    if wins.is_empty() {
        return out;
    }
    for (plane, picks) in winners(image, w).chunks_exact(wins.len()).enumerate() {
        let base = view.offset as isize + (plane / channels) as isize * s[0] + (plane % channels) as isize * s[1];
        for (&t, &o) in picks.iter().zip(&wins) {
            let at = (base + o + taps[t]) as usize * width;
            out.extend_from_slice(&bytes[at..at + width]);
        }
    }
    out
}

/// The image's gradient (N, C, H, W) from the pooled output's gradient `g`: each element adds, from zero, the
/// gradient of every window whose first maximum it is. Windows are walked last to first, so each element receives
/// them in tap order (i, then j), the order in which the shader adds them.
pub fn max_pool_grad(image: In, g: In, w: &Window, out: DType) -> Vec<u8> {
    let win = winners(image, w);
    let shape = &image.2.shape;
    let (taps, wins) = offsets(w, shape[3] as isize, 1);
    let plane_len = shape[2] * shape[3];
    macro_rules! add_into {
        ($g:expr, $zero:expr) => {{
            let mut acc = vec![$zero; shape[0] * shape[1] * plane_len];
            if plane_len > 0 && !wins.is_empty() {
                let per_plane = acc.chunks_exact_mut(plane_len).zip($g.chunks_exact(wins.len()));
                for ((plane, gs), picks) in per_plane.zip(win.chunks_exact(wins.len())) {
                    for k in (0..wins.len()).rev() {
                        plane[(wins[k] + taps[picks[k]]) as usize] += gs[k];
                    }
                }
            }
            acc
        }};
    }
    let sum = match gather(g.0, g.1, g.2, class(out)) {
        Values::F32(v) => Values::F32(add_into!(v, 0.0f32)),
        Values::F64(v) => Values::F64(add_into!(v, 0.0f64)),
        Values::I64(v) => Values::I64(add_into!(v, 0i64)),
    };
    encode(&sum, out)
}
