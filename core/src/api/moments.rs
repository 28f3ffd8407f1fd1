//! Variance and standard deviation, two-pass over the sum primitive: Σ(x − mean)² / (N − correction) of the data
//! shifted by its first element. 16-bit
//! inputs compute in f32 and round once; N − correction ≤ 0 gives inf or nan as in torch.

use crate::api::elementwise::{binary, sub, t, where_};
use crate::base::dtype::opmath;
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

impl Tensor {
    /// `var(dim, correction, keepdim)`.
    pub fn var(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        self.var_wide(dims, correction, keepdim)?.to_dtype(self.dtype())
    }

    /// `std(dim, correction, keepdim)` = √var, rounded once for 16-bit inputs; where var is 0 the gradient is 0
    /// (not 0/0), as torch masks it.
    pub fn std(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        let v = self.var_wide(dims, correction, keepdim)?;
        let zero = binary(&t(&v), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Eq)?;
        let safe = where_(&zero, &Operand::Scalar(Scalar::Int(1)), &t(&v))?;
        where_(&zero, &t(&v.detach().sqrt()?), &t(&safe.sqrt()?))?.to_dtype(self.dtype())
    }

    /// The variance in the compute dtype (f32 for 16-bit inputs).
    fn var_wide(&self, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Err(Error::Runtime(format!(
                "std and var only support floating point and complex dtypes, got {}",
                self.dtype().name()
            )));
        }
        let x = self.to_dtype(opmath(self.dtype()))?;
        let axes: Vec<i64> = x.reduce_dims(dims)?.iter().map(|&d| d as i64).collect();
        let count: usize = axes.iter().map(|&d| x.shape()[d as usize]).product();
        // Shifted by the first element of each group (no gradient: the variance does not depend on it), so that
        // constant groups give exactly 0 and a large mean does not swamp a small spread.
        let x = if count > 0 {
            let mut first = x.detach();
            for &d in &axes {
                first = first.narrow(d, 0, 1)?;
            }
            sub(&t(&x), &t(&first))?
        } else {
            x
        };
        let m = x.mean(Some(&axes), true)?;
        let dev = sub(&t(&x), &t(&m))?;
        let ss = binary(&t(&dev), &t(&dev), BinaryOp::Mul)?.sum(Some(&axes), keepdim)?;
        let denom = Operand::Scalar(Scalar::Float((count as f64 - correction).max(0.0)));
        binary(&t(&ss), &denom, BinaryOp::Div)
    }
}
