//! Convolution and pooling over (N, C, H, W), written over views and primitives so their gradients come from the
//! primitives' rules: conv2d unfolds the padded input (im2col, `Op::Unfold`) and multiplies once by the weight;
//! max_pool2d picks the first maximum of each window's taps, as torch.

use crate::api::elementwise::binary;
use crate::api::gather::gather_unchecked;
use crate::api::window::{max_pool_windows, unfold_windows};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::View;
use crate::graph::op::{BinaryOp, Window};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// Padding of a 2-d window op: explicit (top/left, bottom/right per dim) or torch's "same" and "valid".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    Explicit([usize; 2]),
    Same,
    Valid,
}

fn check_pos(name: &str, v: [usize; 2]) -> Result<()> {
    if v.contains(&0) {
        return Err(Error::Runtime(format!("{name} should be greater than zero, but got {name}: {v:?}")));
    }
    Ok(())
}

/// A pool's checks, with torch's messages: a 4-d input, positive kernel and stride, padding at most half the kernel.
fn check_pool(name: &str, x: &Tensor, kernel: [usize; 2], stride: [usize; 2], padding: [usize; 2]) -> Result<()> {
    require_4d(name, x)?;
    check_pos("kernel_size", kernel)?;
    check_pos("stride", stride)?;
    if padding[0] * 2 > kernel[0] || padding[1] * 2 > kernel[1] {
        return Err(Error::Runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={padding:?}, kernel_size={kernel:?}"
        )));
    }
    Ok(())
}

/// Padding before and after each of the last two dims: [(top, bottom), (left, right)].
pub(crate) type Pads = [(usize, usize); 2];

/// `x` (N, C, H, W) with `pads` filled with `value`.
pub(crate) fn pad2d(x: &Tensor, pads: Pads, value: Scalar) -> Result<Tensor> {
    if pads.iter().all(|&(a, b)| a == 0 && b == 0) {
        return Ok(x.clone());
    }
    let s = x.shape();
    let shape = [s[0], s[1], s[2] + pads[0].0 + pads[0].1, s[3] + pads[1].0 + pads[1].1];
    let base = Tensor::full(&shape, value, x.dtype(), x.device())?;
    let inner =
        View::contiguous(&shape).slice(2, pads[0].0, pads[0].0 + s[2], 1).slice(3, pads[1].0, pads[1].0 + s[3], 1);
    base.assigned(inner, x)
}

/// The taps side by side in a last dim: (N, C, OH, OW, KH·KW). Non-overlapping windows (stride = kernel, no
/// dilation) are a view of the input, copied once; others are unfolded.
fn tap_stack(x: &Tensor, w: &Window) -> Result<Tensor> {
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.out;
    let (n, c) = (x.shape()[0] as i64, x.shape()[1] as i64);
    if w.stride != w.kernel || w.dilation != [1, 1] {
        let cols = unfold_windows(x, *w)?.reshape(&[n, c, (kh * kw) as i64, oh as i64, ow as i64])?;
        return cols.permute(&[0, 1, 3, 4, 2]);
    }
    let crop = x.derive(|v| Ok(v.slice(2, 0, oh * kh, 1).slice(3, 0, ow * kw, 1)))?;
    let six = crop.reshape(&[n, c, oh as i64, kh as i64, ow as i64, kw as i64])?;
    six.permute(&[0, 1, 2, 4, 3, 5])?.reshape(&[n, c, oh as i64, ow as i64, (kh * kw) as i64])
}

/// Output size of a window op along one dim (torch's formula), or an error naming the sizes.
fn out_size(size: usize, k: usize, s: usize, d: usize, ceil: bool) -> Result<usize> {
    let span = d * (k - 1) + 1;
    if size < span {
        return Err(Error::Runtime(format!(
            "Calculated padded input size per channel: ({size}). Kernel size: ({span}). Kernel size can't be greater \
             than actual input size"
        )));
    }
    let n = size - span;
    Ok(if ceil { n.div_ceil(s) } else { n / s } + 1)
}

/// A pool's output size (torch's formula: with ceil_mode, the last window must start inside the input or the
/// left padding), and the pads that make the input hold every window: the padding before, and after it the padding
/// plus ceil_mode's overhang past the padded input.
fn pooled(
    size: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    ceil_mode: bool,
) -> Result<([usize; 2], Pads)> {
    let (mut out, mut pads): ([usize; 2], Pads) = ([0; 2], [(0, 0); 2]);
    for d in 0..2 {
        out[d] = out_size(size[d] + 2 * padding[d], kernel[d], stride[d], dilation[d], ceil_mode)?;
        if ceil_mode && (out[d] - 1) * stride[d] >= size[d] + padding[d] {
            out[d] -= 1;
        }
        let need = (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1;
        pads[d] = (padding[d], padding[d] + need.saturating_sub(size[d] + 2 * padding[d]));
    }
    Ok((out, pads))
}

fn require_4d(name: &str, x: &Tensor) -> Result<()> {
    if x.ndim() != 4 {
        return Err(Error::Runtime(format!(
            "{name}: expected a 4-D input (N, C, H, W), but got input of size: {:?}",
            x.shape()
        )));
    }
    Ok(())
}

/// `conv1d(x, weight, bias, stride, padding, dilation, groups)` with x (N, C, L) or unbatched (C, L) and weight
/// (O, C/groups, K): conv2d over a height of 1, so it shares conv2d's arithmetic, contract and gradients.
#[allow(clippy::too_many_arguments)]
pub fn conv1d(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: usize,
    padding: Padding,
    dilation: usize,
    groups: usize,
) -> Result<Tensor> {
    if !matches!(x.ndim(), 2 | 3) {
        return Err(Error::Runtime(format!(
            "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {:?}",
            x.shape()
        )));
    }
    if weight.ndim() != 3 {
        return Err(Error::Runtime(format!(
            "conv1d: expected a 3-D weight (out_channels, in_channels/groups, kernel), but got weight of size: {:?}",
            weight.shape()
        )));
    }
    crate::tensor::check::declared("conv1d", x)?;
    let batched = if x.ndim() == 2 { x.unsqueeze(0)? } else { x.clone() };
    let padding = match padding {
        Padding::Explicit([_, p]) => Padding::Explicit([0, p]),
        other => other,
    };
    let y = conv2d(&batched.unsqueeze(2)?, &weight.unsqueeze(2)?, bias, [1, stride], padding, [1, dilation], groups)?;
    let y = y.squeeze(Some(&[2]))?;
    if x.ndim() == 2 {
        y.squeeze(Some(&[0]))
    } else {
        Ok(y)
    }
}

/// `conv2d(x, weight, bias, stride, padding, dilation, groups)` with weight (O, C/groups, KH, KW).
pub fn conv2d(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: [usize; 2],
    padding: Padding,
    dilation: [usize; 2],
    groups: usize,
) -> Result<Tensor> {
    require_4d("conv2d", x)?;
    check_pos("stride", stride)?;
    check_pos("dilation", dilation)?;
    if weight.ndim() != 4 {
        return Err(Error::Runtime(format!("conv2d: expected a 4-D weight, got {:?}", weight.shape())));
    }
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (o, cg, kh, kw) = (weight.shape()[0], weight.shape()[1], weight.shape()[2], weight.shape()[3]);
    if groups == 0 || c % groups != 0 || o % groups != 0 || cg * groups != c {
        return Err(Error::Runtime(format!(
            "Given groups={groups}, weight of size {:?}, expected input{:?} to have {} channels, but got {c} channels \
             instead",
            weight.shape(),
            x.shape(),
            cg * groups
        )));
    }
    if o == 0 {
        return Err(Error::Runtime(format!(
            "Given groups={groups}, expected weight to be at least 1 at dimension 0, but got weight of size {:?} \
             instead",
            weight.shape()
        )));
    }
    crate::tensor::check::declared("conv2d", x)?;
    if let Some(b) = bias {
        if b.shape() != [o] {
            return Err(Error::Runtime(format!("conv2d: bias of shape {:?} for {o} output channels", b.shape())));
        }
    }
    let pads = match padding {
        Padding::Explicit(p) => [(p[0], p[0]), (p[1], p[1])],
        Padding::Valid => [(0, 0), (0, 0)],
        Padding::Same => {
            if stride != [1, 1] {
                return Err(Error::Runtime("padding='same' is not supported for strided convolutions".into()));
            }
            let total = [dilation[0] * (kh - 1), dilation[1] * (kw - 1)];
            [(total[0] / 2, total[0] - total[0] / 2), (total[1] / 2, total[1] - total[1] / 2)]
        }
    };
    let padded = |d: usize, (lo, hi): (usize, usize)| {
        x.shape()[2 + d].checked_add(lo).and_then(|s| s.checked_add(hi)).ok_or_else(|| {
            Error::Runtime(format!("conv2d: padding {pads:?} of an input of size {:?} overflows", x.shape()))
        })
    };
    let (hp, wp) = (padded(0, pads[0])?, padded(1, pads[1])?);
    let out = [out_size(hp, kh, stride[0], dilation[0], false)?, out_size(wp, kw, stride[1], dilation[1], false)?];
    // im2col and one product, K in (c, i, j) order as the weight's layout; a 1x1 kernel at stride 1 reads the image
    // as it is. The product is taken transposed, (N, groups, OH·OW, K) @ (groups, K, O/groups), and its output
    // permuted back: the image's positions are then its rows, which the GPU's tall register-blocked tiles take,
    // where O (often 32 or 64) would leave them half empty; its gradients get the same shapes.
    let (g, l) = (groups as i64, (out[0] * out[1]) as i64);
    // The unfold reads the padding's zeros itself (its low side; windows reaching past the end read zeros there).
    let pad = [pads[0].0, pads[1].0];
    let cols = if [kh, kw, stride[0], stride[1]] == [1, 1, 1, 1] && pads == [(0, 0), (0, 0)] {
        x.reshape(&[n as i64, c as i64, l])?
    } else {
        unfold_windows(x, Window { kernel: [kh, kw], stride, dilation, out, pad })?
    };
    let k = (cg * kh * kw) as i64;
    let wt = weight.reshape(&[g, (o / groups) as i64, k])?.transpose(1, 2)?;
    let yt = cols.reshape(&[n as i64, g, k, l])?.transpose(2, 3)?.matmul_acc(&wt)?; // (N, groups, OH·OW, O/groups)
    let y = yt.transpose(2, 3)?.reshape(&[n as i64, o as i64, out[0] as i64, out[1] as i64])?;
    let y = match bias {
        Some(b) => binary(
            &Operand::Tensor(y.clone()),
            &Operand::Tensor(b.to_dtype(y.dtype())?.reshape(&[o as i64, 1, 1])?),
            BinaryOp::Add,
        )?,
        None => y,
    };
    y.to_dtype(x.dtype())
}

/// `max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)`: values and, with `return_indices`, the flat
/// index (h·W + w) in the input of each maximum (the first one in the window, as torch).
pub fn max_pool2d(
    x: &Tensor,
    kernel: [usize; 2],
    stride: Option<[usize; 2]>,
    padding: [usize; 2],
    dilation: [usize; 2],
    ceil_mode: bool,
    return_indices: bool,
) -> Result<(Tensor, Option<Tensor>)> {
    let stride = stride.unwrap_or(kernel);
    check_pool("max_pool2d", x, kernel, stride, padding)?;
    check_pos("dilation", dilation)?;
    if !x.dtype().is_float() && x.dtype() != DType::I64 && x.dtype() != DType::I32 {
        return Err(Error::Unsupported(format!("\"max_pool2d\" not implemented for '{}'", x.dtype().name())));
    }
    let (h, w) = (x.shape()[2], x.shape()[3]);
    // Padding (and ceil_mode's overhang) reads −inf, which never wins a window.
    let (out, pads) = pooled([h, w], kernel, stride, padding, dilation, ceil_mode)?;
    let lowest = match x.dtype() {
        DType::I32 => Scalar::Int(i32::MIN as i64),
        DType::I64 => Scalar::Int(i64::MIN),
        _ => Scalar::Float(f64::NEG_INFINITY),
    };
    let xp = pad2d(x, pads, lowest)?;
    let win = Window { kernel, stride, dilation, out, pad: [0, 0] };
    // Each window's first maximum; its gradient goes to that tap alone, as torch's.
    let values = max_pool_windows(&xp, win)?;
    if !return_indices {
        return Ok((values, None));
    }
    // The taps (N, C, OH, OW, K) and the first maximum's tap in each (argmax picks the same one).
    let stacked = tap_stack(&xp.detach(), &win)?;
    let first = stacked.argmax(Some(4), true)?; // (N, C, OH, OW, 1)

    // Flat input index of each window's tap k: (oh·sh − ph + i·dh)·W + (ow·sw − pw + j·dw).
    let offsets: Vec<i64> = (0..kernel[0])
        .flat_map(|i| (0..kernel[1]).map(move |j| ((i * dilation[0]) * w + j * dilation[1]) as i64))
        .collect();
    let kk = offsets.len();
    let offs =
        Tensor::from_bytes(offsets.iter().flat_map(|v| v.to_le_bytes()).collect(), &[kk], DType::I64, x.device())?;
    let tap_off = gather_unchecked(&offs.expand(stacked.shape())?, 4, &first)?.squeeze(Some(&[4]))?;
    let rows = Tensor::arange(Scalar::Int(0), Scalar::Int(out[0] as i64), Scalar::Int(1), DType::I64, x.device())?;
    let cols = Tensor::arange(Scalar::Int(0), Scalar::Int(out[1] as i64), Scalar::Int(1), DType::I64, x.device())?;
    let scaled = |t: &Tensor, by: i64, minus: i64| -> Result<Tensor> {
        binary(
            &binary(&Operand::Tensor(t.clone()), &Operand::Scalar(Scalar::Int(by)), BinaryOp::Mul)?.into(),
            &Operand::Scalar(Scalar::Int(-minus)),
            BinaryOp::Add,
        )
    };
    let r = scaled(&rows, (stride[0] * w) as i64, (padding[0] * w) as i64)?.reshape(&[out[0] as i64, 1])?;
    let c = scaled(&cols, stride[1] as i64, padding[1] as i64)?;
    let base = binary(&Operand::Tensor(r), &Operand::Tensor(c), BinaryOp::Add)?;
    let indices = binary(&Operand::Tensor(tap_off), &Operand::Tensor(base), BinaryOp::Add)?;
    Ok((values, Some(indices)))
}

/// `avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)`: each window's sum
/// over torch's divisor: the override, else the window's elements inside the padded input (`count_include_pad`) or
/// inside the input; stride defaults to the kernel. int64 windows divide with C's truncation, as torch.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool2d(
    x: &Tensor,
    kernel: [usize; 2],
    stride: Option<[usize; 2]>,
    padding: [usize; 2],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    let stride = stride.unwrap_or(kernel);
    check_pool("avg_pool2d", x, kernel, stride, padding)?;
    crate::tensor::check::declared("avg_pool2d", x)?;
    let int64 = x.dtype() == DType::I64;
    if !x.dtype().is_float() && !int64 {
        return Err(Error::Unsupported(format!("\"avg_pool2d\" not implemented for '{}'", x.dtype().name())));
    }
    if divisor_override == Some(0) {
        return Err(Error::Runtime("divisor must be not zero".into()));
    }
    let size = [x.shape()[2], x.shape()[3]];
    // ceil_mode's last windows may run past the padded input: they read zeros there, and no divisor counts them.
    let (out, pads) = pooled(size, kernel, stride, padding, [1, 1], ceil_mode)?;
    let xp = pad2d(x, pads, Scalar::Int(0))?;
    let taps = tap_stack(&xp, &Window { kernel, stride, dilation: [1, 1], out, pad: [0, 0] })?;
    // Every window divides by the kernel's size: float windows take their mean.
    let overhang = pads.iter().zip(padding).any(|(&(_, after), p)| after > p);
    let whole = divisor_override.is_none() && count_include_pad && !overhang;
    if whole && !int64 {
        return taps.mean(Some(&[4]), false);
    }
    let divisor = match divisor_override {
        Some(d) => Operand::Scalar(Scalar::Int(d)),
        None if whole => Operand::Scalar(Scalar::Int((kernel[0] * kernel[1]) as i64)),
        None => {
            // Each window's count: the rows times the columns it covers of the region that counts.
            let span = |d: usize, o: usize| {
                let start = (o * stride[d]) as i64 - padding[d] as i64;
                let (lo, hi) = if count_include_pad {
                    (-(padding[d] as i64), (size[d] + padding[d]) as i64)
                } else {
                    (0, size[d] as i64)
                };
                ((start + kernel[d] as i64).min(hi) - start.max(lo)).max(0)
            };
            let counts: Vec<i64> =
                (0..out[0]).flat_map(|i| (0..out[1]).map(move |j| span(0, i) * span(1, j))).collect();
            let bytes = counts.iter().flat_map(|c| c.to_le_bytes()).collect();
            Operand::Tensor(Tensor::from_bytes(bytes, &out, DType::I64, x.device())?)
        }
    };
    if int64 {
        return crate::api::division::trunc_divide(&Operand::Tensor(taps.sum(Some(&[4]), false)?), &divisor);
    }
    // The sum in the accumulating dtype, divided once and rounded once, as torch's kernels.
    let sums = taps.to_dtype(crate::base::dtype::opmath(x.dtype()))?.sum(Some(&[4]), false)?;
    binary(&Operand::Tensor(sums), &divisor, BinaryOp::Div)?.to_dtype(x.dtype())
}

/// `adaptive_avg_pool2d(x, (OH, OW))` where each input size is a multiple of the output size (equal windows).
pub fn adaptive_avg_pool2d(x: &Tensor, out: [usize; 2]) -> Result<Tensor> {
    require_4d("adaptive_avg_pool2d", x)?;
    if x.numel() == 0 && !out.contains(&0) && !x.dtype().is_float() {
        // torch returns the empty result before it looks at the dtype.
        return Tensor::full(&[x.shape()[0], x.shape()[1], out[0], out[1]], Scalar::Int(0), x.dtype(), x.device());
    }
    if !x.dtype().is_float() {
        return Err(Error::Unsupported(format!("\"adaptive_avg_pool2d\" not implemented for '{}'", x.dtype().name())));
    }
    let (h, w) = (x.shape()[2], x.shape()[3]);
    if out.contains(&0) || h % out[0] != 0 || w % out[1] != 0 {
        return Err(Error::Unsupported(format!(
            "adaptive_avg_pool2d from {h}x{w} to {}x{}: only output sizes that divide the input size are supported",
            out[0], out[1]
        )));
    }
    let k = [h / out[0], w / out[1]];
    avg_pool2d(x, k, None, [0, 0], false, true, None)
}
