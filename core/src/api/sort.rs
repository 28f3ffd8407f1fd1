//! Sorting: argsort (the ArgSort primitive along the last dim of a view, so another dim is sorted through a
//! transposed view, no copy), and sort and topk as argsort plus a gather, whose backward carries their gradients.

use crate::api::gather::gather_unchecked;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::graph::op::Op;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// `torch.argsort(x, dim, descending)`: stable, whatever `stable` says (torch's unstable order is unspecified).
pub fn argsort(x: &Tensor, dim: i64, descending: bool) -> Result<Tensor> {
    if x.ndim() == 0 {
        wrap_dim(dim, 1)?;
        return Tensor::full(&[], Scalar::Int(0), DType::I64, x.device());
    }
    let d = wrap_dim(dim, x.ndim())?;
    let last = x.ndim() - 1;
    let xt = if d == last { x.clone() } else { x.transpose(d as i64, last as i64)? };
    let idx = Tensor::make(Op::ArgSort { descending }, &[&xt], xt.shape().to_vec(), DType::I64, x.device())?;
    if d == last {
        Ok(idx)
    } else {
        idx.transpose(d as i64, last as i64)
    }
}

/// `torch.sort(x, dim, descending)`: (values, indices).
pub fn sort(x: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let idx = argsort(x, dim, descending)?;
    let d = if x.ndim() == 0 { 0 } else { wrap_dim(dim, x.ndim())? };
    Ok((gather_unchecked(x, d, &idx)?, idx))
}

/// `torch.topk(x, k, dim, largest)`: the k largest (smallest) along `dim`, in order, with their positions.
pub fn topk(x: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
    if x.dtype() == DType::Bool {
        return Err(Error::Runtime("\"topk_cpu\" not implemented for 'Bool' (as torch)".into()));
    }
    let d = if x.ndim() == 0 { 0 } else { wrap_dim(dim, x.ndim())? };
    let n = x.shape().get(d).copied().unwrap_or(1) as i64;
    if k < 0 || k > n {
        return Err(Error::Runtime("selected index k out of range".into()));
    }
    let idx = argsort(x, dim, largest)?;
    let idx = if x.ndim() == 0 { idx } else { idx.narrow(d as i64, 0, k)? };
    Ok((gather_unchecked(x, d, &idx)?, idx))
}
