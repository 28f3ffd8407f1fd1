//! The sliding-window primitives: unfold (im2col) copies the image's six-dim block view; fold (col2im) adds each
//! block element into the image, so every image element receives its taps in order (i, then j), as the shader adds
//! them.

use vkml_core::base::dtype::DType;
use vkml_core::base::view::View;
use vkml_core::graph::op::Window;

use crate::movement::copy;
use crate::values::{class, encode, gather, Values};

type In<'a> = (&'a [u8], DType, &'a View);

pub fn unfold((bytes, dtype, view): In, w: &Window) -> Vec<u8> {
    copy((bytes, dtype, &w.blocks(view)))
}

/// Each element of `src` (N, C·KH·KW, OH·OW) added into its place of an (N, C, H, W) image of `shape`.
pub fn fold((bytes, dtype, view): In, w: &Window, shape: &[usize], out: DType) -> Vec<u8> {
    let (hw, width) = (shape[2] * shape[3], shape[3]);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.out;
    // Image offset of every (i, j, oh, ow) of one channel, in the source's row-major order.
    let mut targets = Vec::with_capacity(kh * kw * oh * ow);
    for i in 0..kh {
        for j in 0..kw {
            for r in 0..oh {
                let row = (r * w.stride[0] + i * w.dilation[0]) * width;
                targets.extend((0..ow).map(|c| row + c * w.stride[1] + j * w.dilation[1]));
            }
        }
    }
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
