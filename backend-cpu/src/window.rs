//! The sliding-window primitives: unfold (im2col) copies the image's six-dim block view, or with a pad each output
//! row from its image row by row, zeros in the pad; fold (col2im) adds each block element outside the pad into the
//! image, so every image element receives its taps in order (i, then j), as the shader adds them.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Window;

use crate::movement::copy;
use crate::threads::each_chunk;
use crate::values::{class, encode, f32_bytes, f32_run, gather, load, Values};

type In<'a> = (&'a [u8], DType, &'a View);

pub fn unfold((bytes, dtype, view): In, w: &Window) -> Vec<u8> {
    if w.inside([view.shape[2], view.shape[3]]) {
        return copy((bytes, dtype, &w.blocks(view)));
    }
    let size = dtype.itemsize();
    let (dims, st) = (&view.shape, &view.strides);
    let ([kh, kw], [oh, ow]) = (w.kernel, w.out);
    let len = oh * ow * size;
    let mut out = vec![0u8; dims[0] * dims[1] * kh * kw * len];
    each_chunk(&mut out, len, |p, row| {
        let (plane, tap) = (p / (kh * kw), p % (kh * kw));
        let base = view.offset as isize + (plane / dims[1]) as isize * st[0] + (plane % dims[1]) as isize * st[1];
        for r in 0..oh {
            let Some(y) = padded_at(w, 0, r, tap / kw, dims[2]) else { continue };
            for q in 0..ow {
                let Some(x) = padded_at(w, 1, q, tap % kw, dims[3]) else { continue };
                let from = (base + y as isize * st[2] + x as isize * st[3]) as usize * size;
                let to = (r * ow + q) * size;
                if let (Some(dst), Some(src)) = (row.get_mut(to..to + size), bytes.get(from..from + size)) {
                    dst.copy_from_slice(src);
                }
            }
        }
    });
    out
}

/// The image coordinate along spatial dim d that tap `tap` of window `o` reads, or None where it lies in the pad
/// (before the image, or past its `size`).
fn padded_at(w: &Window, d: usize, o: usize, tap: usize, size: usize) -> Option<usize> {
    (o * w.stride[d] + tap * w.dilation[d]).checked_sub(w.pad[d]).filter(|&y| y < size)
}

/// Each element of `src` (N, C·KH·KW, OH·OW) added into its place of an (N, C, H, W) image of `shape`.
pub fn fold((bytes, dtype, view): In, w: &Window, shape: &[usize], out: DType) -> Vec<u8> {
    let hw = shape[2] * shape[3];
    // Image offset of every (i, j, oh, ow) of one channel, in the source's row-major order (past the plane where the
    // tap lies in the pad).
    let ([kh, kw], [oh, ow]) = (w.kernel, w.out);
    let at = |r, q, i, j| {
        let y = padded_at(w, 0, r, i, shape[2])?;
        Some(y * shape[3] + padded_at(w, 1, q, j, shape[3])?)
    };
    let taps = (0..kh).flat_map(|i| (0..kw).map(move |j| (i, j)));
    let wins = |(i, j)| (0..oh).flat_map(move |r| (0..ow).map(move |q| at(r, q, i, j).unwrap_or(usize::MAX)));
    let targets: Vec<usize> = taps.flat_map(wins).collect();
    let n = shape[0] * shape[1] * hw;
    if let (Some(src), DType::F32) = (f32_run(bytes, dtype, view), out) {
        return f32_bytes(n, |acc| add_planes(src, &targets, hw, acc, |a, x| a + x));
    }
    let sum = match gather(bytes, dtype, view, class(out)) {
        Values::F32(v) => Values::F32(zeroed(n, |acc| add_planes(&v, &targets, hw, acc, |a, x| a + x))),
        Values::F64(v) => Values::F64(zeroed(n, |acc| add_planes(&v, &targets, hw, acc, |a, x| a + x))),
        Values::I64(v) => Values::I64(zeroed(n, |acc| add_planes(&v, &targets, hw, acc, i64::wrapping_add))),
    };
    encode(&sum, out)
}

/// `n` default values, then written by `fill`.
fn zeroed<T: Default + Clone>(n: usize, fill: impl FnOnce(&mut [T])) -> Vec<T> {
    let mut v = vec![T::default(); n];
    fill(&mut v);
    v
}

/// Into each `hw`-element plane of `acc` (zeros), its run of `src` added at `targets` in order; planes are
/// independent, so they go to threads whole.
fn add_planes<T: Copy + Send + Sync>(
    src: &[T],
    targets: &[usize],
    hw: usize,
    acc: &mut [T],
    add: impl Fn(T, T) -> T + Sync + Send,
) {
    if hw > 0 && !targets.is_empty() {
        each_chunk(acc, hw, |p, plane| {
            let chunk = src.get(p * targets.len()..(p + 1) * targets.len()).unwrap_or_default();
            for (&t, &x) in targets.iter().zip(chunk) {
                if let Some(p) = plane.get_mut(t) {
                    *p = add(*p, x);
                }
            }
        });
    }
}

/// Offsets of a window's taps (row-major i, j) and of the windows (row-major oh, ow) from a plane's first element,
/// for an image with row stride `rs` and column stride `cs`.
fn offsets(w: &Window, rs: isize, cs: isize) -> (Vec<isize>, Vec<isize>) {
    let at = move |y: usize, x: usize| y as isize * rs + x as isize * cs;
    let taps = (0..w.kernel[0]).flat_map(|i| (0..w.kernel[1]).map(move |j| at(i * w.dilation[0], j * w.dilation[1])));
    let wins = (0..w.out[0]).flat_map(|r| (0..w.out[1]).map(move |q| at(r * w.stride[0], q * w.stride[1])));
    (taps.collect(), wins.collect())
}

/// Into `out`, for each window of each plane in row-major (plane, oh, ow) order, `keep(tap, value)` of its first
/// maximum: the first NaN, else the first of the largest, as argmax picks. `image` holds the planes in row-major
/// (plane, h, w) order.
fn first_max<T: Beats, O: Send>(
    image: &[T],
    size: [usize; 2],
    w: &Window,
    out: &mut [O],
    keep: impl Fn(usize, T) -> O + Sync + Send,
) {
    let (taps, wins) = offsets(w, size[1] as isize, 1);
    let plane_len = size[0] * size[1];
    if plane_len == 0 || wins.is_empty() {
        return;
    }
    let planes = (image, plane_len);
    // The common windows get a tap count the compiler knows, so their loop unrolls.
    match taps.len() {
        4 => scan(planes, <[isize; 4]>::try_from(&taps[..]).unwrap_or_default(), &wins, out, keep),
        9 => scan(planes, <[isize; 9]>::try_from(&taps[..]).unwrap_or_default(), &wins, out, keep),
        _ => scan(planes, &taps[..], &wins, out, keep),
    }
}

/// `first_max`'s loop over the planes, for one form of the tap list.
fn scan<T: Beats, O: Send>(
    (image, plane_len): (&[T], usize),
    taps: impl AsRef<[isize]> + Sync,
    wins: &[isize],
    out: &mut [O],
    keep: impl Fn(usize, T) -> O + Sync + Send,
) {
    let taps = &taps;
    each_chunk(out, wins.len(), |p, dst| {
        let (plane, taps) = (&image[p * plane_len..(p + 1) * plane_len], taps.as_ref());
        for (d, &base) in dst.iter_mut().zip(wins) {
            let (mut best, mut b) = (0, plane[base as usize]);
            for (t, &o) in taps.iter().enumerate().skip(1) {
                let v = plane[(base + o) as usize];
                // Selects without a branch (conditional moves): which tap wins is a coin toss on real data.
                let take = v.beats(b);
                best = if take { t } else { best };
                b = if take { v } else { b };
            }
            *d = keep(best, b);
        }
    });
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
                // `&` and `|`, not `&&` and `||`: each short circuit would be a branch.
                (best == best) & ((self != self) | (self > best))
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

/// Windows of an (N, C, H, W) image view: N·C·OH·OW.
fn count(view: &View, w: &Window) -> usize {
    view.shape[0] * view.shape[1] * w.out[0] * w.out[1]
}

/// The tap of each window's first maximum, compared in the image's own class.
fn winners(image: In, w: &Window) -> Vec<usize> {
    let (size, n) = ([image.2.shape[2], image.2.shape[3]], count(image.2, w));
    if let Some(xs) = f32_run(image.0, image.1, image.2) {
        return zeroed(n, |o| first_max(xs, size, w, o, |t, _| t));
    }
    match load(image.0, image.1, image.2) {
        Values::F32(v) => zeroed(n, |o| first_max(&v, size, w, o, |t, _| t)),
        Values::F64(v) => zeroed(n, |o| first_max(&v, size, w, o, |t, _| t)),
        Values::I64(v) => zeroed(n, |o| first_max(&v, size, w, o, |t, _| t)),
    }
}

/// Each window's first maximum, its bits copied from the image: output (N, C, OH, OW). Where the image's dtype is
/// its own class the maxima are the values compared; the other dtypes copy the winners' bytes.
pub fn max_pool(image: In, w: &Window) -> Vec<u8> {
    let (bytes, dtype, view) = image;
    let (size, n) = ([view.shape[2], view.shape[3]], count(view, w));
    if let Some(xs) = f32_run(bytes, dtype, view) {
        return f32_bytes(n, |o| first_max(xs, size, w, o, |_, v| v));
    }
    match (dtype, load(bytes, dtype, view)) {
        (DType::F32, Values::F32(v)) => return f32_bytes(n, |o| first_max(&v, size, w, o, |_, v| v)),
        (DType::F64, Values::F64(v)) => {
            return encode(&Values::F64(zeroed(n, |o| first_max(&v, size, w, o, |_, v| v))), dtype)
        }
        (DType::I64, Values::I64(v)) => {
            return encode(&Values::I64(zeroed(n, |o| first_max(&v, size, w, o, |_, v| v))), dtype)
        }
        _ => {}
    }
    let (width, s) = (dtype.itemsize(), &view.strides);
    let (taps, wins) = offsets(w, s[2], s[3]);
    let channels = view.shape[1].max(1);
    let mut out = Vec::with_capacity(n * width);
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
/// them in tap order (i, then j), the order in which the shader adds them; planes go to threads whole. The fast
/// device routes windows that tile the image in one pass (`tiled_grad`).
pub fn max_pool_grad(image: In, g: In, w: &Window, out: DType, fast: bool) -> Vec<u8> {
    let shape = &image.2.shape;
    let size = [shape[2], shape[3]];
    let tiles = w.stride == w.kernel && w.dilation == [1, 1] && (0..2).all(|d| w.out[d] * w.kernel[d] == size[d]);
    if let (true, true, DType::F32, Some(xs), Some(gs)) =
        (fast, tiles, out, f32_run(image.0, image.1, image.2), f32_run(g.0, g.1, g.2))
    {
        return f32_bytes(shape[0] * shape[1] * size[0] * size[1], |acc| tiled_grad(xs, gs, w, size, acc));
    }
    let win = winners(image, w);
    let (taps, wins) = offsets(w, shape[3] as isize, 1);
    let (plane_len, n) = (shape[2] * shape[3], shape[0] * shape[1] * shape[2] * shape[3]);
    let at = (&taps[..], &wins[..]);
    if let (Some(gs), DType::F32) = (f32_run(g.0, g.1, g.2), out) {
        return f32_bytes(n, |acc| scatter_planes(gs, &win, at, plane_len, acc));
    }
    let sum = match gather(g.0, g.1, g.2, class(out)) {
        Values::F32(v) => Values::F32(zeroed(n, |acc| scatter_planes(&v, &win, at, plane_len, acc))),
        Values::F64(v) => Values::F64(zeroed(n, |acc| scatter_planes(&v, &win, at, plane_len, acc))),
        Values::I64(v) => Values::I64(zeroed(n, |acc| scatter_planes(&v, &win, at, plane_len, acc))),
    };
    encode(&sum, out)
}

/// The gradient where the windows tile the image (stride = kernel, no dilation, OH·KH = H and OW·KW = W: every 2x2
/// pool of an even image), as shaders/window_tiles.wgsl computes it: in one pass per plane, each window's first
/// maximum found (as `scan` finds it) and its elements written, its gradient at that tap and zero elsewhere. Each
/// element lies in one window, so the sum from zero has one term: `0 + g` keeps its bits (a −0 lands as +0).
fn tiled_grad(image: &[f32], g: &[f32], w: &Window, size: [usize; 2], acc: &mut [f32]) {
    let (taps, wins) = offsets(w, size[1] as isize, 1);
    let plane_len = size[0] * size[1];
    if plane_len == 0 || wins.is_empty() {
        return;
    }
    // The 2x2 window gets a tap count the compiler knows, so its loop unrolls.
    match taps.len() {
        4 => tiled_planes((image, plane_len), g, <[isize; 4]>::try_from(&taps[..]).unwrap_or_default(), &wins, acc),
        _ => tiled_planes((image, plane_len), g, &taps[..], &wins, acc),
    }
}

/// `tiled_grad`'s loop over the planes, for one form of the tap list.
fn tiled_planes(
    (image, plane_len): (&[f32], usize),
    g: &[f32],
    taps: impl AsRef<[isize]> + Sync,
    wins: &[isize],
    acc: &mut [f32],
) {
    let taps = &taps;
    each_chunk(acc, plane_len, |p, plane| {
        let (src, gp, taps) = (&image[p * plane_len..(p + 1) * plane_len], &g[p * wins.len()..], taps.as_ref());
        for (&corner, &gv) in wins.iter().zip(gp) {
            let (mut best, mut b) = (corner, src[corner as usize]);
            for &o in &taps[1..] {
                let v = src[(corner + o) as usize];
                let take = v.beats(b);
                best = if take { corner + o } else { best };
                b = if take { v } else { b };
            }
            plane[best as usize] = 0.0 + gv;
        }
    });
}

/// Into each `plane_len`-element plane of `acc` (zeros), its windows' gradients `g` added at their `picks` (taps of
/// the window `offsets`), last window first.
fn scatter_planes<T>(g: &[T], picks: &[usize], (taps, wins): (&[isize], &[isize]), plane_len: usize, acc: &mut [T])
where
    T: Copy + Send + Sync + std::ops::AddAssign,
{
    let n = wins.len();
    if plane_len > 0 && n > 0 {
        each_chunk(acc, plane_len, |p, plane| {
            for k in (0..n).rev() {
                plane[(wins[k] + taps[picks[p * n + k]]) as usize] += g[p * n + k];
            }
        });
    }
}
