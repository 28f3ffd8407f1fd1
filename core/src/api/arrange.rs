//! Rearrangements written over views and joins: roll (two narrows and a cat per dim), diagonal (a strided view)
//! and diag (a vector onto a diagonal, or a diagonal out of a matrix).

use crate::api::elementwise::{t, where_};
use crate::api::join::cat;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::base::view::{wrap_dim, View};
use crate::graph::op::BinaryOp;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

impl Tensor {
    /// `roll(shifts, dims)`: elements shifted cyclically along each dim; with no dims, over the flattened tensor.
    pub fn roll(&self, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        if dims.is_empty() {
            if shifts.len() != 1 {
                return Err(Error::Runtime(format!(
                    "shifts and dimensions must align. shifts: {}, dims:0",
                    shifts.len()
                )));
            }
            let shape: Vec<i64> = self.shape().iter().map(|&d| d as i64).collect();
            return self.flatten(0, -1)?.roll(shifts, &[0])?.reshape(&shape);
        }
        if shifts.len() != dims.len() {
            return Err(Error::Runtime(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            )));
        }
        let mut r = self.clone();
        for (&shift, &dim) in shifts.iter().zip(dims) {
            let d = wrap_dim(dim, r.ndim())?;
            let n = r.shape()[d] as i64;
            if n == 0 {
                continue;
            }
            let s = shift.rem_euclid(n);
            if s != 0 {
                r = cat(&[r.narrow(d as i64, n - s, s)?, r.narrow(d as i64, 0, n - s)?], d as i64)?;
            }
        }
        Ok(r)
    }

    /// `diagonal(offset, dim1, dim2)`: a view of the elements (i, i + offset) of dims dim1 and dim2, as a new last
    /// dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let nd = self.ndim();
        // torch wraps the dims first, so a 1-d tensor's default dims (0, 1) are an IndexError.
        let (d1, d2) = (wrap_dim(dim1, nd)?, wrap_dim(dim2, nd)?);
        if d1 == d2 {
            return Err(Error::Runtime(format!("diagonal dimensions cannot be identical {dim1}, {dim2}")));
        }
        self.derive(|v: &View| {
            let (n1, n2) = (v.shape[d1] as i64, v.shape[d2] as i64);
            let len = if offset >= 0 { n1.min(n2 - offset) } else { (n1 + offset).min(n2) }.max(0) as usize;
            let start = if len == 0 {
                0
            } else if offset >= 0 {
                offset as isize * v.strides[d2]
            } else {
                -offset as isize * v.strides[d1]
            };
            let mut shape = Vec::with_capacity(nd - 1);
            let mut strides = Vec::with_capacity(nd - 1);
            for d in (0..nd).filter(|&d| d != d1 && d != d2) {
                shape.push(v.shape[d]);
                strides.push(v.strides[d]);
            }
            shape.push(len);
            strides.push(v.strides[d1] + v.strides[d2]);
            Ok(View { shape, strides, offset: (v.offset as isize + start) as usize })
        })
    }

    /// `diag(diagonal)`: a vector placed on a diagonal of a square matrix of zeros, or a matrix's diagonal as a
    /// new vector.
    pub fn diag(&self, k: i64) -> Result<Tensor> {
        match self.ndim() {
            2 => self.diagonal(k, 0, 1)?.contiguous(),
            1 => {
                let n = self.shape()[0];
                let side = n + k.unsigned_abs() as usize;
                let dev = self.device();
                let idx = |len: usize| -> Result<Tensor> {
                    Tensor::arange(Scalar::Int(0), Scalar::Int(len as i64), Scalar::Int(1), DType::I64, dev)
                };
                let (rows, cols) = (idx(side)?.unsqueeze(1)?, idx(side)?.unsqueeze(0)?);
                let gap = crate::api::elementwise::sub(&t(&cols), &t(&rows))?;
                let on = crate::api::elementwise::binary(&t(&gap), &Operand::Scalar(Scalar::Int(k)), BinaryOp::Eq)?;
                // The vector padded to the side: entry i sits in row i (k ≥ 0) or column i (k < 0).
                let pad = Tensor::zeros(&[side - n], self.dtype(), dev)?;
                let v = cat(&[self.clone(), pad], 0)?;
                let spread = if k >= 0 { v.unsqueeze(1)? } else { v.unsqueeze(0)? }.expand(&[side, side])?;
                let zero = if self.dtype() == DType::Bool { Scalar::Bool(false) } else { Scalar::Int(0) };
                where_(&on, &t(&spread), &Operand::Scalar(zero))
            }
            d => Err(Error::Runtime(format!("diag(): Supports 1D or 2D tensors. Got {d}D"))),
        }
    }
}
