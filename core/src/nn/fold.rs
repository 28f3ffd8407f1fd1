//! `unfold` (torch's `F.unfold`, im2col) and `fold` (`F.fold`, col2im) with torch's padding, checks and messages,
//! over the window primitives, which read the padding's zeros (unfold) and leave it out of the image (fold).

use crate::api::window::{fold_windows, unfold_windows};
use crate::base::dtype::DType;
use crate::graph::op::Window;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// A size per spatial dim (height, width).
type Pair = [usize; 2];

/// Kernel, dilation, padding and stride of a sliding-window op, each per spatial dim (torch's argument order).
#[derive(Clone, Copy, Debug)]
struct Blocks {
    kernel: [usize; 2],
    dilation: [usize; 2],
    padding: [usize; 2],
    stride: [usize; 2],
}

impl Blocks {
    fn check(&self) -> Result<()> {
        for (name, v) in [("kernel size", self.kernel), ("stride", self.stride), ("dilation", self.dilation)] {
            if v.contains(&0) {
                let short = name.split(' ').next().unwrap_or(name);
                return Err(Error::Runtime(format!(
                    "{name} should be greater than zero, but got {short}_height: {} {short}_width: {}",
                    v[0], v[1]
                )));
            }
        }
        Ok(())
    }

    /// The windows over an image of `size` (unpadded), or None where a dim has fewer than one.
    fn windows(&self, size: [usize; 2]) -> Option<Window> {
        let mut out = [0; 2];
        for d in 0..2 {
            let padded = size[d].checked_add(self.padding[d].checked_mul(2)?)?;
            let span = self.dilation[d].checked_mul(self.kernel[d] - 1)?.checked_add(1)?;
            out[d] = padded.checked_sub(span)? / self.stride[d] + 1;
        }
        Some(Window { kernel: self.kernel, stride: self.stride, dilation: self.dilation, out, pad: self.padding })
    }

    /// torch's count of blocks along dim d (negative where none fit), for its messages.
    fn count(&self, size: [usize; 2], d: usize) -> i128 {
        let span = self.dilation[d] as i128 * (self.kernel[d] as i128 - 1) + 1;
        (size[d] as i128 + 2 * self.padding[d] as i128 - span).div_euclid(self.stride[d] as i128) + 1
    }

    /// torch's `kernel_size=(…), dilation=(…), padding=(…)` in its messages, and `stride=(…)` after them.
    fn described(&self, stride: bool) -> String {
        let mut text = format!(
            "kernel_size={}, dilation={}, padding={}",
            tuple(self.kernel),
            tuple(self.dilation),
            tuple(self.padding)
        );
        if stride {
            text += &format!(", stride={}", tuple(self.stride));
        }
        text
    }
}

/// A pair as torch prints it: `(a, b)`.
fn tuple(v: [usize; 2]) -> String {
    format!("({}, {})", v[0], v[1])
}

/// torch supports floating point and bool images only.
fn check_dtype(what: &str, x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::I32 | DType::I64 => {
            let name = if x.dtype() == DType::I32 { "Int" } else { "Long" };
            Err(Error::Unsupported(format!("\"{what}_out_cpu\" not implemented for '{name}'")))
        }
        _ => Ok(()),
    }
}

/// `F.unfold(x, kernel_size, dilation, padding, stride)`: x (N, C, H, W) or (C, H, W) to (N, C·KH·KW, L) or
/// (C·KH·KW, L), the blocks in row-major order.
pub fn unfold(x: &Tensor, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Result<Tensor> {
    let b = Blocks { kernel, dilation, padding, stride };
    b.check()?;
    let s = x.shape();
    if !matches!(s.len(), 3 | 4) || s[s.len() - 3..].contains(&0) {
        return Err(Error::Runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for \
             input, but got: {s:?}"
        )));
    }
    check_dtype("im2col", x)?;
    let x4 = if s.len() == 3 { x.unsqueeze(0)? } else { x.clone() };
    let size = [x4.shape()[2], x4.shape()[3]];
    let w = b.windows(size).ok_or_else(|| {
        Error::Runtime(format!(
            "Given input with spatial size {}, {}, calculated shape of the array of sliding blocks as ({}, {}), but \
             its components must be at least one.",
            tuple(size),
            b.described(false),
            b.count(size, 0),
            b.count(size, 1)
        ))
    })?;
    let cols = unfold_windows(&x4, w)?;
    if s.len() == 3 {
        cols.squeeze(Some(&[0]))
    } else {
        Ok(cols)
    }
}

/// `F.fold(x, output_size, kernel_size, dilation, padding, stride)`: x (N, C·KH·KW, L) or (C·KH·KW, L) summed into
/// (N, C, H, W) or (C, H, W) of `size`, overlapping blocks added.
pub fn fold(x: &Tensor, size: Pair, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Result<Tensor> {
    let b = Blocks { kernel, dilation, padding, stride };
    let s = x.shape();
    if !matches!(s.len(), 2 | 3) || s[s.len() - 2..].contains(&0) {
        return Err(Error::Runtime(format!(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for \
             input, but got: {s:?}"
        )));
    }
    b.check()?;
    check_dtype("col2im", x)?;
    let x3 = if s.len() == 2 { x.unsqueeze(0)? } else { x.clone() };
    let (rows, l) = (x3.shape()[1], x3.shape()[2]);
    let k = b.kernel[0].checked_mul(b.kernel[1]).ok_or_else(|| Error::Runtime("kernel size overflows".into()))?;
    if !rows.is_multiple_of(k) {
        return Err(Error::Runtime(format!(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got \
             input.size(1)={rows} and kernel_size=({}, {}).",
            b.kernel[0], b.kernel[1]
        )));
    }
    let w = b.windows(size).filter(|w| w.out[0].checked_mul(w.out[1]) == Some(l)).ok_or_else(|| {
        let (c0, c1) = (b.count(size, 0), b.count(size, 1));
        Error::Runtime(format!(
            "Given output_size={}, {}, expected size of input's dimension 2 to match the calculated number of sliding \
             blocks {c0} * {c1} = {}, but got input.size(2)={l}.",
            tuple(size),
            b.described(true),
            c0 * c1
        ))
    })?;
    let image = fold_windows(&x3, w, size)?;
    if s.len() == 2 {
        image.squeeze(Some(&[0]))
    } else {
        Ok(image)
    }
}
