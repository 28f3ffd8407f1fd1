//! Vector norms (`torch.norm`, `torch.linalg.vector_norm`) over one, several or all dims: p = 2 ("fro") scaled by
//! the largest magnitude so that no square overflows or underflows, p = 1, ±inf and 0, and any other order as
//! (Σ|x|^p)^(1/p), as torch computes it.

use crate::api::elementwise::{binary, mul, t, where_};
use crate::base::dtype::opmath;
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The order of a vector norm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ord {
    /// p as a number.
    P(f64),
    /// "fro": the 2-norm of all the elements reduced.
    Fro,
}

/// `torch.linalg.vector_norm(x, ord, dim, keepdim)`.
pub fn vector_norm(x: &Tensor, ord: Ord, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Err(Error::Runtime(format!(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
            x.dtype().name()
        )));
    }
    let a = x.to_dtype(opmath(x.dtype()))?.unary(UnaryOp::Abs)?;
    let p = match ord {
        Ord::Fro => 2.0,
        Ord::P(p) => p,
    };
    let zero = Operand::Scalar(Scalar::Int(0));
    let r = if p == 2.0 {
        // m·√Σ(|x|/m)² with m the largest |x|: no overflow or underflow in the squares (0 and ±inf pass through).
        let m = a.amax_or_zero(dims)?;
        let ok = binary(&t(&binary(&t(&m), &zero, BinaryOp::Gt)?), &t(&m.isfinite()?), BinaryOp::BitAnd)?;
        let safe = where_(&ok, &t(&m), &Operand::Scalar(Scalar::Int(1)))?;
        let q = binary(&t(&a), &t(&safe), BinaryOp::Div)?;
        let s = mul(&q, &q)?.sum(dims, true)?.sqrt()?;
        where_(&ok, &t(&mul(&safe, &s)?), &t(&m))?
    } else if p == 1.0 {
        a.sum(dims, true)?
    } else if p == f64::INFINITY {
        a.amax_or_zero(dims)?
    } else if p == f64::NEG_INFINITY {
        a.amin(dims, true)?
    } else if p == 0.0 {
        binary(&t(&a), &zero, BinaryOp::Ne)?.to_dtype(a.dtype())?.sum(dims, true)?
    } else {
        // Σ|x|^p, then its 1/p-th power, unscaled as torch's (a large |x|^p overflows there too).
        let s = binary(&t(&a), &Operand::Scalar(Scalar::Float(p)), BinaryOp::Pow)?.sum(dims, true)?;
        binary(&t(&s), &Operand::Scalar(Scalar::Float(1.0 / p)), BinaryOp::Pow)?
    };
    let r = if keepdim {
        r
    } else {
        let all: Vec<i64> = match dims {
            Some(d) if !d.is_empty() => d.to_vec(),
            _ => (0..x.ndim() as i64).collect(),
        };
        r.squeeze(Some(&all))?
    };
    r.to_dtype(x.dtype())
}

impl Tensor {
    /// amax over `dims` keeping them, 0 for an empty reduction (a norm of nothing is 0, where amax refuses).
    fn amax_or_zero(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        if self.numel() == 0 {
            let reduced = self.reduce_dims(dims)?;
            let shape: Vec<usize> =
                (0..self.ndim()).map(|d| if reduced.contains(&d) { 1 } else { self.shape()[d] }).collect();
            return Tensor::zeros(&shape, self.dtype(), self.device());
        }
        self.amax(dims, true)
    }
}
