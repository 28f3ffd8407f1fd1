//! Reductions: sum, amax and argmax are primitives over the trailing dims of a permuted view; mean and max(dim)
//! are composites. 16-bit floats accumulate in f32 and are rounded once at the end, as torch does.

use super::elementwise::binary;
use super::promote::Operand;
use super::tensor::Tensor;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::graph::op::{BinaryOp, Op, ReduceOp};
use crate::util::error::{Error, Result};

/// The dtype a reduction node writes: 16-bit floats go through f32 (a packed 16-bit output would need two
/// workgroups to share a word).
fn node_dtype(op: ReduceOp, input: DType) -> DType {
    match op {
        ReduceOp::ArgMax => DType::I64,
        ReduceOp::Sum => match input {
            DType::F16 | DType::BF16 => DType::F32,
            d => d.sum_dtype(),
        },
        ReduceOp::Max => match input {
            DType::F16 | DType::BF16 => DType::F32,
            d => d,
        },
    }
}

impl Tensor {
    /// The sorted, de-duplicated dims to reduce (`None` or empty = all).
    fn reduce_dims(&self, dims: Option<&[i64]>) -> Result<Vec<usize>> {
        let n = self.ndim();
        let mut out = match dims {
            None | Some([]) => (0..n).collect::<Vec<_>>(),
            Some(ds) => ds.iter().map(|&d| wrap_dim(d, n)).collect::<Result<Vec<_>>>()?,
        };
        let before = out.len();
        out.sort_unstable();
        out.dedup();
        if out.len() != before {
            return Err(Error::Runtime("dim appears multiple times in the list of dims".into()));
        }
        Ok(out)
    }

    /// Reduce `dims` with a primitive; the result has the node dtype of `node_dtype` and `keepdim` applied.
    fn reduce_raw(&self, op: ReduceOp, dims: &[usize], keepdim: bool) -> Result<Tensor> {
        let n = self.ndim();
        let kept: Vec<usize> = (0..n).filter(|d| !dims.contains(d)).collect();
        let perm: Vec<i64> = kept.iter().chain(dims.iter()).map(|&d| d as i64).collect();
        let x = if n == 0 { self.clone() } else { self.permute(&perm)? };
        // A 0-d tensor accepts dim 0 or -1 but has no dim to reduce.
        let dims: &[usize] = if n == 0 { &[] } else { dims };
        let out_shape: Vec<usize> = kept.iter().map(|&d| self.shape()[d]).collect();
        let r = Tensor::make(
            Op::Reduce { op, axes: dims.len() },
            &[&x],
            out_shape,
            node_dtype(op, self.dtype()),
            self.device(),
        )?;
        if keepdim {
            let shape: Vec<i64> = (0..n).map(|d| if dims.contains(&d) { 1 } else { self.shape()[d] as i64 }).collect();
            return r.reshape(&shape);
        }
        Ok(r)
    }

    fn require_nonempty(&self, name: &str, dims: &[usize]) -> Result<()> {
        for &d in dims {
            if self.shape()[d] == 0 {
                return Err(Error::Index(format!("{name}(): Expected reduction dim {d} to have non-zero size.")));
            }
        }
        if dims.is_empty() && self.numel() == 0 {
            return Err(Error::Shape(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )));
        }
        Ok(())
    }

    pub fn sum(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let dims = self.reduce_dims(dims)?;
        let s = self.reduce_raw(ReduceOp::Sum, &dims, keepdim)?;
        s.to_dtype(self.dtype().sum_dtype())
    }

    /// mean = sum / n in the accumulation dtype, rounded once to the input dtype.
    pub fn mean(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Err(Error::Dtype(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex \
                 dtype. Got: {}",
                self.dtype().name()
            )));
        }
        let dims = self.reduce_dims(dims)?;
        let count: usize = dims.iter().map(|&d| self.shape()[d]).product();
        let s = self.reduce_raw(ReduceOp::Sum, &dims, keepdim)?;
        let m = binary(&Operand::Tensor(s), &Operand::Scalar(Scalar::Float(count as f64)), BinaryOp::Div)?;
        m.to_dtype(self.dtype())
    }

    pub fn amax(&self, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
        let all_dims = dims.is_none_or(|d| d.is_empty());
        let dims = self.reduce_dims(dims)?;
        if all_dims && self.numel() == 0 {
            return Err(Error::Runtime(
                "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim \
                 with the 'dim' argument."
                    .into(),
            ));
        }
        let all: Vec<usize> = if dims.is_empty() { (0..self.ndim()).collect() } else { dims.clone() };
        self.require_nonempty("amax", &all)?;
        if self.numel() == 0 && self.ndim() == 0 {
            return Err(Error::Shape("amax(): Expected reduction dim to be specified for input.numel() == 0.".into()));
        }
        self.reduce_raw(ReduceOp::Max, &dims, keepdim)?.to_dtype(self.dtype())
    }

    /// Index of the first maximum (NaN counts as the maximum, as in torch); over all elements when `dim` is None.
    pub fn argmax(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return Err(Error::Runtime("argmax(): does not support bool input".into()));
        }
        self.argmax_any(dim, keepdim)
    }

    /// argmax for every dtype (max(dim) on bool needs it even though torch's argmax refuses bool).
    fn argmax_any(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        match dim {
            None => {
                if self.numel() == 0 {
                    return Err(Error::Index(
                        "argmax(): Expected reduction dim to be specified for input.numel() == 0.".into(),
                    ));
                }
                let flat = self.reshape(&[-1])?;
                let r = flat.reduce_raw(ReduceOp::ArgMax, &[0], false)?;
                if keepdim {
                    let shape = vec![1i64; self.ndim()];
                    return r.reshape(&shape);
                }
                Ok(r)
            }
            Some(d) => {
                let d = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 {
                    self.require_nonempty("argmax", &[d])?;
                }
                let dims = if self.ndim() == 0 { vec![] } else { vec![d] };
                self.reduce_raw(ReduceOp::ArgMax, &dims, keepdim)
            }
        }
    }

    /// `max(dim)`: values and indices.
    pub fn max_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() > 0 && self.shape()[d] == 0 {
            return Err(Error::Index(format!("max(): Expected reduction dim {d} to have non-zero size.")));
        }
        Ok((self.amax(Some(&[dim]), keepdim)?, self.argmax_any(Some(dim), keepdim)?))
    }

    /// `max()`: the largest element.
    pub fn max_all(&self) -> Result<Tensor> {
        if self.numel() == 0 {
            return Err(Error::Shape(
                "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim \
                 with the 'dim' argument."
                    .into(),
            ));
        }
        self.amax(None, false)
    }
}
