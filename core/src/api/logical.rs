//! Truth and bit composites: logical_and/or/xor/not over `!= 0` and the bitwise primitives, and bitwise_not as
//! −x − 1 (two's complement; logical not for bool).

use crate::api::elementwise::{binary, sub};
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// `x != 0` as bool (NaN is true, as in torch).
fn truth(x: &Operand) -> Result<Operand> {
    Ok(match x {
        Operand::Tensor(t) if t.dtype() == DType::Bool => x.clone(),
        Operand::Tensor(t) => {
            Operand::Tensor(binary(&Operand::Tensor(t.clone()), &Operand::Scalar(Scalar::Int(0)), BinaryOp::Ne)?)
        }
        Operand::Scalar(s) => Operand::Scalar(Scalar::Bool(s.as_f64() != 0.0)),
    })
}

/// logical_and / logical_or / logical_xor: bool results from any dtypes.
pub fn logical(a: &Operand, b: &Operand, op: BinaryOp) -> Result<Tensor> {
    binary(&truth(a)?, &truth(b)?, op)
}

impl Tensor {
    pub fn logical_not(&self) -> Result<Tensor> {
        // A bool input compares with `false`: an integer 0 would promote it to int64 first (a cast of every element).
        let zero = if self.dtype() == DType::Bool { Scalar::Bool(false) } else { Scalar::Int(0) };
        binary(&Operand::Tensor(self.clone()), &Operand::Scalar(zero), BinaryOp::Eq)
    }

    /// logical not for bool, −x − 1 for integers; floats have no bits to flip in torch either (Python's `~` on
    /// a float tensor is torch's TypeError, raised by the binding before this).
    pub fn bitwise_not(&self) -> Result<Tensor> {
        match self.dtype() {
            DType::Bool => self.logical_not(),
            d if d.is_float() => {
                Err(Error::Unsupported(format!("\"bitwise_not_cpu\" not implemented for '{}'", d.name())))
            }
            _ => sub(&Operand::Tensor(self.neg()?), &Operand::Scalar(Scalar::Int(1))),
        }
    }
}
