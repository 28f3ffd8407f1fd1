//! Scans and products: cumsum and cumprod over the Scan primitive (along the last dim of a view, so another dim is
//! scanned through a transposed view), prod over the Prod reduction, and the exclusive products their gradients
//! need — written with cumprod itself, so zeros get the right gradient (no division by the input).

use crate::api::elementwise::{binary, mul, t, where_};
use crate::api::join::cat;
use crate::base::dtype::{opmath, DType};
use crate::base::scalar::Scalar;
use crate::base::view::wrap_dim;
use crate::graph::op::{BinaryOp, Op, ScanOp};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::Result;

/// The dtype a scan or product returns: `dtype` if given, else int64 for integers and bool, else the input's.
fn result_dtype(x: &Tensor, dtype: Option<DType>) -> DType {
    dtype.unwrap_or_else(|| x.dtype().sum_dtype())
}

/// The Scan primitive along `dim` of `x` (converted to `out` first, as torch's `dtype=` does).
fn scan(x: &Tensor, dim: i64, op: ScanOp, out: DType) -> Result<Tensor> {
    let x = x.to_dtype(out)?;
    if x.ndim() == 0 {
        wrap_dim(dim, 1)?;
        return Tensor::make(Op::Scan(op), &[&x.reshape(&[1])?], vec![1], out, x.device())?.reshape(&[]);
    }
    let d = wrap_dim(dim, x.ndim())?;
    let last = x.ndim() - 1;
    let xt = if d == last { x.clone() } else { x.transpose(d as i64, last as i64)? };
    let y = Tensor::make(Op::Scan(op), &[&xt], xt.shape().to_vec(), out, x.device())?;
    if d == last {
        Ok(y)
    } else {
        y.transpose(d as i64, last as i64)
    }
}

/// `torch.cumsum(x, dim, dtype=None)`.
pub fn cumsum(x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(x, dim, ScanOp::Sum, result_dtype(x, dtype))
}

/// `torch.cumprod(x, dim, dtype=None)`.
pub fn cumprod(x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(x, dim, ScanOp::Prod, result_dtype(x, dtype))
}

/// `x` along its last dim shifted by one (a 1 first, the last element dropped).
fn shifted(x: &Tensor) -> Result<Tensor> {
    let n = *x.shape().last().unwrap_or(&0) as i64;
    let mut shape = x.shape().to_vec();
    if let Some(l) = shape.last_mut() {
        *l = 1;
    }
    let one = Tensor::full(&shape, Scalar::Int(1), x.dtype(), x.device())?;
    cat(&[one, x.narrow(-1, 0, (n - 1).max(0))?], -1)?.narrow(-1, 0, n)
}

/// For each element along the last dim, the product of all the others: the products before it times those after
/// it (two cumprods), computed in the input's opmath dtype.
pub(crate) fn exclusive_products(x: &Tensor) -> Result<Tensor> {
    let x = x.to_dtype(opmath(x.dtype()))?;
    let before = cumprod(&shifted(&x)?, -1, None)?;
    let after = cumprod(&shifted(&x.flip(&[-1])?)?, -1, None)?.flip(&[-1])?;
    mul(&before, &after)
}

/// cumprod's gradient along the last dim: g_x[i] = Σ_{k ≥ i} g[k]·Π_{j ≤ k, j ≠ i} x[j], from the cumprods of x with
/// x[i] replaced by 1 in row i of an n×n spread — exact where x holds zeros, O(n²) per row.
pub(crate) fn cumprod_grad(x: &Tensor, g: &Tensor) -> Result<Tensor> {
    let n = *x.shape().last().unwrap_or(&0);
    if n == 0 {
        return Ok(g.clone());
    }
    let mut spread_shape = x.shape().to_vec();
    spread_shape.insert(x.ndim() - 1, n);
    let spread = x.unsqueeze(-2)?.expand(&spread_shape)?;
    let eye = Tensor::eye(n, n, DType::Bool, x.device())?;
    let one = Operand::Scalar(Scalar::Int(1));
    let without = where_(&eye, &one, &t(&spread))?;
    let partial = cumprod(&without, -1, None)?;
    let idx = Tensor::arange(Scalar::Int(0), Scalar::Int(n as i64), Scalar::Int(1), DType::I64, x.device())?;
    let later = binary(&t(&idx.unsqueeze(0)?), &t(&idx.unsqueeze(1)?), BinaryOp::Ge)?;
    let terms = mul(&partial, &g.to_dtype(partial.dtype())?.unsqueeze(-2)?)?;
    where_(&later, &t(&terms), &Operand::Scalar(Scalar::Int(0)))?.sum(Some(&[-1]), false)
}
