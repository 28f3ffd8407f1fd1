//! `conv_transpose2d`, written over conv2d: the input spread out by the stride (zeros between its elements), padded
//! by dilation·(k − 1) − padding on each side (negative amounts crop) and output_padding more at the end, and
//! convolved at stride 1 with the weight flipped and its in/out channels swapped per group.

use crate::api::pad::{pad, PadMode};
use crate::nn::conv::{conv2d, Padding};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The input with stride − 1 zeros between neighbours along its last two dims.
fn spread(x: &Tensor, stride: [usize; 2]) -> Result<Tensor> {
    if stride == [1, 1] {
        return Ok(x.clone());
    }
    let s = x.shape().to_vec();
    let (n, c, h, w) = (s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64);
    let (sh, sw) = (stride[0] as i64, stride[1] as i64);
    let cells = x.reshape(&[n, c, h, 1, w, 1])?;
    let padded = pad(&cells, &[0, sw - 1, 0, 0, 0, sh - 1], PadMode::Constant, 0.0)?;
    let full = padded.reshape(&[n, c, h * sh, w * sw])?;
    full.narrow(2, 0, ((h - 1) * sh + 1).max(0))?.narrow(3, 0, ((w - 1) * sw + 1).max(0))
}

/// `F.conv_transpose2d(x, weight, bias, stride, padding, output_padding, groups, dilation)`: weight of shape
/// (in, out/groups, kH, kW), as torch's.
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose2d(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: [usize; 2],
    padding: [usize; 2],
    output_padding: [usize; 2],
    groups: usize,
    dilation: [usize; 2],
) -> Result<Tensor> {
    if x.ndim() != 4 && x.ndim() != 3 {
        return Err(Error::Runtime(format!(
            "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: {:?}",
            x.shape()
        )));
    }
    // torch's CPU kernel takes floats and int64, not int32 or bool.
    if matches!(x.dtype(), crate::base::dtype::DType::I32 | crate::base::dtype::DType::Bool) {
        return Err(Error::Unsupported(format!(
            "\"slow_conv_transpose2d\" not implemented for '{}'",
            x.dtype().name()
        )));
    }
    crate::tensor::check::declared("conv_transpose2d", x)?;
    if x.ndim() == 3 {
        let y = conv_transpose2d(&x.unsqueeze(0)?, weight, bias, stride, padding, output_padding, groups, dilation)?;
        return y.squeeze(Some(&[0]));
    }
    if weight.ndim() != 4 {
        return Err(Error::Runtime(format!("conv_transpose2d: weight must be 4-d, got {:?}", weight.shape())));
    }
    if stride.contains(&0) || dilation.contains(&0) || groups == 0 {
        return Err(Error::Runtime("conv_transpose2d: stride, dilation and groups must be positive".into()));
    }
    for d in 0..2 {
        if output_padding[d] >= stride[d].max(dilation[d]) {
            return Err(Error::Runtime(format!(
                "output padding must be smaller than either stride or dilation, but got output_padding_{}: {}",
                if d == 0 { "height" } else { "width" },
                output_padding[d]
            )));
        }
    }
    let (cin, cout_g, kh, kw) = (weight.shape()[0], weight.shape()[1], weight.shape()[2], weight.shape()[3]);
    if x.shape()[1] != cin || cin % groups != 0 {
        return Err(Error::Runtime(format!(
            "Given transposed=1, weight of size {:?}, expected input{:?} to have {cin} channels, but got {} channels \
             instead",
            weight.shape(),
            x.shape(),
            x.shape()[1]
        )));
    }
    // (in, out/g, kH, kW) → (out, in/g, kH, kW), flipped: the convolution that transposes the original one.
    let g = groups as i64;
    let w = weight
        .reshape(&[g, (cin / groups) as i64, cout_g as i64, kh as i64, kw as i64])?
        .transpose(1, 2)?
        .reshape(&[(cout_g * groups) as i64, (cin / groups) as i64, kh as i64, kw as i64])?
        .flip(&[-2, -1])?;
    let edge = |d: usize, k: usize| (dilation[d] * (k - 1)) as i64 - padding[d] as i64;
    let (top, left) = (edge(0, kh), edge(1, kw));
    let amounts = [left, left + output_padding[1] as i64, top, top + output_padding[0] as i64];
    let xs = pad(&spread(x, stride)?, &amounts, PadMode::Constant, 0.0)?;
    conv2d(&xs, &w, bias, [1, 1], Padding::Explicit([0, 0]), dilation, groups)
}
