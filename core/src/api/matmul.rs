//! Matrix products with torch's rules for 1-d operands and broadcast batch dims; one batched primitive.

use crate::api::precision::split_product;
use crate::base::dtype::{opmath, DType};
use crate::base::view::broadcast_shapes;
use crate::graph::op::Op;
use crate::tensor::{device_mismatch, Tensor};
use crate::util::error::{Error, Result};

impl Tensor {
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        self.matmul_acc(other)?.to_dtype(self.dtype())
    }

    /// The product in its accumulation dtype (float32 for 16-bit inputs), for composites such as `linear` that
    /// add to it before the one rounding torch does.
    pub fn matmul_acc(&self, other: &Tensor) -> Result<Tensor> {
        let (a, b) = (self, other);
        if a.ndim() == 0 || b.ndim() == 0 {
            return Err(Error::Runtime(format!(
                "both arguments to matmul need to be at least 1D, but they are {}D and {}D",
                a.ndim(),
                b.ndim()
            )));
        }
        if a.dtype() == DType::Bool {
            return Err(Error::Unsupported("\"addmm_impl_cpu_\" not implemented for 'Bool'".into()));
        }
        if a.dtype() != b.dtype() {
            return Err(Error::Runtime(format!(
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                a.dtype().name(),
                b.dtype().name()
            )));
        }
        if a.device() != b.device() {
            return Err(device_mismatch(a.device(), b.device()));
        }
        // Promote 1-d operands to matrices, remembering which dims to drop afterwards.
        let a2 = if a.ndim() == 1 { a.unsqueeze(0)? } else { a.clone() };
        let b2 = if b.ndim() == 1 { b.unsqueeze(1)? } else { b.clone() };
        let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
        let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
        if k != k2 {
            return Err(Error::Shape(format!(
                "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{}) (operands {:?} and {:?})",
                m,
                k,
                k2,
                n,
                a.shape(),
                b.shape()
            )));
        }
        let batch = broadcast_shapes(&a2.shape()[..a2.ndim() - 2], &b2.shape()[..b2.ndim() - 2])?;
        let mut sa = batch.clone();
        sa.extend([m, k]);
        let mut sb = batch.clone();
        sb.extend([k, n]);
        let (a3, b3) = (a2.expand(&sa)?, b2.expand(&sb)?);
        let mut out_shape = batch.clone();
        out_shape.extend([m, n]);
        let mut r = match split_product(&a3, &b3)? {
            Some(r) => r,
            None => Tensor::make(Op::Matmul, &[&a3, &b3], out_shape, opmath(a.dtype()), a.device())?,
        };
        if b.ndim() == 1 {
            r = r.squeeze(Some(&[-1]))?;
        }
        if a.ndim() == 1 {
            let d = r.ndim() as i64 - if b.ndim() == 1 { 1 } else { 2 };
            r = r.squeeze(Some(&[d]))?;
        }
        Ok(r)
    }
}
