//! Joining and splitting along a dim: cat and stack write each input into its slice of a fresh buffer (`Assign`
//! nodes, so any dtypes promote as torch's cat does); split, chunk and unbind are views.

use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::tensor::promote::{result_type, Operand};
use crate::tensor::{device_mismatch, Tensor};
use crate::util::error::{Error, Result};

/// `torch.cat(tensors, dim)`.
pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    // torch skips legacy empty 1-d tensors of shape (0,) when other inputs have more dims (among 1-d inputs they
    // are ordinary parts, and keep their history).
    let legacy = |t: &&Tensor| t.ndim() == 1 && t.numel() == 0 && tensors.iter().any(|o| o.ndim() != 1);
    let parts: Vec<&Tensor> = tensors.iter().filter(|t| !legacy(t)).collect();
    let first = match (parts.first(), tensors.first()) {
        (Some(t), _) => *t,
        (None, Some(t)) => return t.copy(),
        (None, None) => return Err(Error::Value("torch.cat(): expected a non-empty list of Tensors".into())),
    };
    if first.ndim() == 0 {
        return Err(Error::Runtime("zero-dimensional tensor cannot be concatenated".into()));
    }
    let d = wrap_dim(dim, first.ndim())?;
    let mut total = 0usize;
    for (i, t) in parts.iter().enumerate() {
        if t.ndim() != first.ndim() {
            return Err(Error::Runtime(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                first.ndim(),
                t.ndim()
            )));
        }
        for k in 0..first.ndim() {
            if k != d && t.shape()[k] != first.shape()[k] {
                return Err(Error::Runtime(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for \
                     tensor number {i} in the list.",
                    first.shape()[k],
                    t.shape()[k]
                )));
            }
        }
        if t.device() != first.device() {
            return Err(device_mismatch(first.device(), t.device()));
        }
        total += t.shape()[d];
    }
    let ops: Vec<Operand> = parts.iter().map(|t| Operand::Tensor((*t).clone())).collect();
    let dtype = result_type(&ops.iter().collect::<Vec<_>>());
    let mut shape = first.shape().to_vec();
    shape[d] = total;
    let mut out = Tensor::full(&shape, Scalar::Int(0), dtype, first.device())?;
    let mut at = 0usize;
    for t in parts {
        let len = t.shape()[d];
        out = out.assigned(out.view().slice(d, at, at + len, 1), t)?;
        at += len;
    }
    Ok(out)
}

/// `torch.stack(tensors, dim)`: cat of the inputs each with a new size-1 dim.
pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let first = tensors.first().ok_or_else(|| Error::Value("stack expects a non-empty TensorList".into()))?;
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            return Err(Error::Runtime(format!(
                "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                first.shape(),
                t.shape()
            )));
        }
    }
    let d = wrap_dim(dim, first.ndim() + 1)? as i64;
    let parts = tensors.iter().map(|t| t.unsqueeze(d)).collect::<Result<Vec<_>>>()?;
    cat(&parts, d)
}

impl Tensor {
    /// `split(sizes, dim)`: views of the given lengths along `dim`, which must add up to its size.
    pub fn split_sizes(&self, sizes: &[usize], dim: i64) -> Result<Vec<Tensor>> {
        let d = wrap_dim(dim, self.ndim())?;
        let total: usize = sizes.iter().sum();
        if self.ndim() == 0 || total != self.shape()[d] {
            return Err(Error::Runtime(format!(
                "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {d}), \
                 but got split_sizes={sizes:?}",
                self.shape().get(d).copied().unwrap_or(0)
            )));
        }
        let mut at = 0;
        sizes
            .iter()
            .map(|&n| {
                let v = self.derive(|v| Ok(v.slice(d, at, at + n, 1)));
                at += n;
                v
            })
            .collect()
    }

    /// `split(size, dim)`: views of `size` elements (the last may be shorter).
    pub fn split(&self, size: usize, dim: i64) -> Result<Vec<Tensor>> {
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() == 0 {
            return Err(Error::Runtime("split expects at least a 1-dimensional tensor".into()));
        }
        let n = self.shape()[d];
        if size == 0 && n > 0 {
            return Err(Error::Runtime("split_size can only be 0 if dimension size is 0".into()));
        }
        let sizes = match n.checked_div(size) {
            // size 0 on an empty dim: one empty piece.
            None => vec![0],
            Some(0) if n == 0 => vec![0],
            Some(q) => {
                let mut sizes = vec![size; q];
                if !n.is_multiple_of(size) {
                    sizes.push(n % size);
                }
                sizes
            }
        };
        self.split_sizes(&sizes, dim)
    }

    /// `chunk(chunks, dim)`: at most `chunks` views of ⌈n / chunks⌉ elements.
    pub fn chunk(&self, chunks: usize, dim: i64) -> Result<Vec<Tensor>> {
        if chunks == 0 {
            return Err(Error::Runtime("chunk expects `chunks` to be greater than 0, got: 0".into()));
        }
        let d = wrap_dim(dim, self.ndim())?;
        let n = self.shape().get(d).copied().unwrap_or(0);
        if n == 0 {
            // torch returns `chunks` empty pieces of an empty dim.
            return Ok(vec![self.clone(); chunks]);
        }
        self.split(n.div_ceil(chunks), dim)
    }

    /// `unbind(dim)`: the slices along `dim`, each without that dim.
    pub fn unbind(&self, dim: i64) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            return Err(Error::Index("Dimension specified as 0 but tensor has no dimensions".into()));
        }
        let d = wrap_dim(dim, self.ndim())?;
        (0..self.shape()[d]).map(|i| self.derive(|v| Ok(v.select(d, i)))).collect()
    }
}
