//! tril and triu as composites: an index mask built from two aranges (col − row compared with the diagonal) selects
//! the input or zero.

use crate::api::elementwise::{binary, sub, where_};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

impl Tensor {
    /// Lower triangle (elements with col − row ≤ diagonal), zeros elsewhere.
    pub fn tril(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle(diagonal, BinaryOp::Le, "tril")
    }

    /// Upper triangle (elements with col − row ≥ diagonal), zeros elsewhere.
    pub fn triu(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle(diagonal, BinaryOp::Ge, "triu")
    }

    fn triangle(&self, diagonal: i64, keep: BinaryOp, name: &str) -> Result<Tensor> {
        let n = self.ndim();
        if n < 2 {
            return Err(Error::Runtime(format!("{name}: input tensor must have at least 2 dimensions")));
        }
        let (rows, cols) = (self.shape()[n - 2] as i64, self.shape()[n - 1] as i64);
        let dev = self.device();
        let r = Tensor::arange(Scalar::Int(0), Scalar::Int(rows), Scalar::Int(1), DType::I64, dev)?.unsqueeze(1)?;
        let c = Tensor::arange(Scalar::Int(0), Scalar::Int(cols), Scalar::Int(1), DType::I64, dev)?.unsqueeze(0)?;
        let offset = sub(&Operand::Tensor(c), &Operand::Tensor(r))?;
        let mask = binary(&Operand::Tensor(offset), &Operand::Scalar(Scalar::Int(diagonal)), keep)?;
        let zero = Operand::Scalar(if self.dtype() == DType::Bool { Scalar::Bool(false) } else { Scalar::Int(0) });
        where_(&mask, &Operand::Tensor(self.clone()), &zero)
    }
}
