//! Views that never copy (permute, expand, squeeze…) and the two that may: reshape (copies when strides do not
//! allow a view, as torch) and `to(device)`.

use crate::base::buffer::DeviceId;
use crate::base::view::{numel, wrap_dim, View};
use crate::graph::op::Op;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// Resolve one `-1` in a requested shape against `n` elements.
pub fn infer_shape(shape: &[i64], n: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if infer.is_some() {
                return Err(Error::Shape("only one dimension can be inferred".into()));
            }
            infer = Some(i);
        } else if d < 0 {
            return Err(Error::Shape(format!("invalid shape dimension {d}")));
        } else {
            known = known
                .checked_mul(d as usize)
                .ok_or_else(|| Error::Runtime(format!("shape '{shape:?}' is invalid for input of size {n}")))?;
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match infer {
        Some(i) => {
            if known == 0 || !n.is_multiple_of(known) {
                return Err(Error::Shape(format!("shape '{shape:?}' is invalid for input of size {n}")));
            }
            out[i] = n / known;
        }
        None if known != n => {
            return Err(Error::Shape(format!("shape '{shape:?}' is invalid for input of size {n}")));
        }
        None => {}
    }
    Ok(out)
}

/// `v` reshaped without copying (callers have checked that the tensor's own view allows it; a contiguous view
/// always does).
fn reshaped(v: &View, shape: &[usize]) -> Result<View> {
    v.reshape(shape).ok_or_else(|| Error::Shape(format!("view of shape {:?} cannot be reshaped to {shape:?}", v.shape)))
}

impl Tensor {
    /// `view`: a reinterpretation without copying, or torch's error when the strides do not allow it.
    pub fn view_as_shape(&self, shape: &[i64]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        match self.view.reshape(&shape) {
            Some(_) => self.derive(|v| reshaped(v, &shape)),
            None => Err(Error::Shape(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans \
                 across two contiguous subspaces). Use .reshape(...) instead."
                    .into(),
            )),
        }
    }

    /// `reshape`: a view when possible, else a contiguous copy.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        let shape = infer_shape(shape, self.numel())?;
        match self.view.reshape(&shape) {
            Some(_) => self.derive(|v| reshaped(v, &shape)),
            None => self.copy()?.derive(|v| reshaped(v, &shape)),
        }
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        let n = self.ndim();
        let perm = dims.iter().map(|&d| wrap_dim(d, n)).collect::<Result<Vec<_>>>()?;
        self.derive(|v| v.permute(&perm))
    }

    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        let n = self.ndim();
        if n == 0 {
            wrap_dim(d0, n)?;
            wrap_dim(d1, n)?;
            return Ok(self.clone());
        }
        let (a, b) = (wrap_dim(d0, n)?, wrap_dim(d1, n)?);
        let mut perm: Vec<usize> = (0..n).collect();
        perm.swap(a, b);
        self.derive(|v| v.permute(&perm))
    }

    /// `t()`: transpose of a ≤2-d tensor.
    pub fn t(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            return Err(Error::Shape(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                self.ndim()
            )));
        }
        if self.ndim() < 2 {
            return Ok(self.clone());
        }
        self.transpose(0, 1)
    }

    /// `expand`: -1 keeps a size.
    pub fn expand_to(&self, sizes: &[i64]) -> Result<Tensor> {
        let lead = sizes.len() as isize - self.ndim() as isize;
        let mut shape = Vec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            let own = i as isize - lead;
            shape.push(if s == -1 {
                if own < 0 {
                    return Err(Error::Shape(format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    )));
                }
                self.shape()[own as usize]
            } else if s < 0 {
                return Err(Error::Shape(format!("invalid expanded size {s}")));
            } else {
                s as usize
            });
        }
        self.expand(&shape)
    }

    pub fn expand(&self, shape: &[usize]) -> Result<Tensor> {
        if shape == self.shape() {
            return Ok(self.clone());
        }
        self.derive(|v| v.expand(shape))
    }

    /// Remove size-1 dims (all, or the given ones that have size 1).
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        let n = self.ndim();
        let targets: Vec<usize> = match dims {
            Some(ds) => ds.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()?,
            None => (0..n).collect(),
        };
        self.derive(|v| {
            let mut v = v.clone();
            for d in (0..n).rev() {
                if targets.contains(&d) && v.shape[d] == 1 {
                    v.shape.remove(d);
                    v.strides.remove(d);
                }
            }
            Ok(v)
        })
    }

    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        self.derive(|v| Ok(v.unsqueeze(d)))
    }

    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (wrap_dim(start, self.ndim())?, wrap_dim(end, self.ndim())?);
        if s > e {
            return Err(Error::Shape("flatten() has invalid args: start_dim cannot come after end_dim".into()));
        }
        let mut shape: Vec<i64> = self.shape()[..s].iter().map(|&d| d as i64).collect();
        shape.push(numel(&self.shape()[s..=e]) as i64);
        shape.extend(self.shape()[e + 1..].iter().map(|&d| d as i64));
        self.reshape(&shape)
    }

    /// `to(device)`: this tensor when it is already there, else a lazy copy of its (contiguous) values.
    pub fn to_device(&self, device: DeviceId) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let src = self.contiguous()?;
        let src = if src.view.offset == 0 && src.numel() == src.node().numel() { src } else { self.copy()? };
        Tensor::make(Op::Transfer, &[&src], self.shape().to_vec(), self.dtype(), device)
    }
}

impl Tensor {
    /// `flip(dims)`: a copy with the dims reversed (torch returns a copy too).
    pub fn flip(&self, dims: &[i64]) -> Result<Tensor> {
        let mut seen = Vec::new();
        for &d in dims {
            let d = wrap_dim(d, self.ndim())?;
            if seen.contains(&d) {
                return Err(Error::Runtime(format!("dim {d} appears multiple times in the list of dims")));
            }
            seen.push(d);
        }
        if self.ndim() == 0 {
            return self.copy();
        }
        self.derive(|v| Ok(seen.iter().fold(v.clone(), |v, &d| v.flip(d))))?.copy()
    }

    /// `narrow(dim, start, length)`: a view of `length` elements from `start` (negative `start` wraps).
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::Runtime("narrow() cannot be applied to a 0-dim tensor.".into()));
        }
        // torch's checks and classes, in its order.
        if length < 0 {
            return Err(Error::Runtime("narrow(): length must be non-negative.".into()));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if start < -size || start > size {
            return Err(Error::Index(format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -size
            )));
        }
        let s = if start < 0 { start + size } else { start };
        if length > size - s {
            return Err(Error::Runtime(format!("start ({s}) + length ({length}) exceeds dimension size ({size}).")));
        }
        self.derive(|v| Ok(v.slice(d, s as usize, (s + length) as usize, 1)))
    }

    /// `repeat(*sizes)`: tile the tensor `sizes[d]` times along each dim (extra leading sizes add dims).
    pub fn repeat(&self, sizes: &[i64]) -> Result<Tensor> {
        if sizes.len() < self.ndim() {
            return Err(Error::Runtime(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor".into(),
            ));
        }
        if sizes.iter().any(|&r| r < 0) {
            return Err(Error::Runtime(format!("Trying to create tensor with negative dimension: {sizes:?}")));
        }
        let lead = sizes.len() - self.ndim();
        let mut own: Vec<usize> = vec![1; lead];
        own.extend_from_slice(self.shape());
        // View as (1, s0, 1, s1, …), broadcast to (r0, s0, r1, s1, …), then merge each pair (a copy).
        let mut split: Vec<i64> = Vec::new();
        let mut expanded: Vec<usize> = Vec::new();
        let mut merged: Vec<i64> = Vec::new();
        for (&r, &s) in sizes.iter().zip(&own) {
            split.extend([1, s as i64]);
            expanded.extend([r as usize, s]);
            let n = r.checked_mul(s as i64).ok_or_else(|| {
                Error::Runtime(format!("repeat: {s} elements repeated {r} times are too many for one dim"))
            })?;
            merged.push(n);
        }
        self.reshape(&split)?.expand(&expanded)?.contiguous()?.reshape(&merged)
    }

    /// `tile(dims)`: `repeat` with missing leading sizes taken as 1.
    pub fn tile(&self, dims: &[i64]) -> Result<Tensor> {
        let mut sizes = vec![1i64; self.ndim().saturating_sub(dims.len())];
        sizes.extend_from_slice(dims);
        self.repeat(&sizes)
    }
}
