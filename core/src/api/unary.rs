//! Unary ops: the dtype rule of each primitive (float ops promote integers to float32, rounding ops pass integers
//! through) and the composites square and reciprocal.

use super::elementwise::binary;
use super::promote::Operand;
use super::tensor::Tensor;
use crate::base::dtype::{to_float, DType};
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, Op, UnaryOp};
use crate::util::error::{Error, Result};

impl Tensor {
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let d = self.dtype();
        let no_bool = |what: &str| -> Result<()> {
            if d == DType::Bool {
                return Err(Error::Unsupported(format!("\"{what}\" not implemented for 'Bool'")));
            }
            Ok(())
        };
        let dtype = match op {
            UnaryOp::Neg => {
                if d == DType::Bool {
                    return Err(Error::Dtype(
                        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert \
                         a mask, use the `~` or `logical_not()` operator instead."
                            .into(),
                    ));
                }
                d
            }
            UnaryOp::Abs => {
                no_bool("abs_cpu")?;
                d
            }
            UnaryOp::Sign => d,
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Trunc | UnaryOp::Round => {
                no_bool(&format!("{}_vml_cpu", Op::Unary(op).name()))?;
                if !d.is_float() {
                    // Integers are already integral: torch returns a copy.
                    return self.copy();
                }
                d
            }
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Sqrt
            | UnaryOp::Exp2
            | UnaryOp::Log2
            | UnaryOp::Rsqrt
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Asin
            | UnaryOp::Acos
            | UnaryOp::Atan
            | UnaryOp::Sinh
            | UnaryOp::Cosh
            | UnaryOp::Tanh
            | UnaryOp::Asinh
            | UnaryOp::Acosh
            | UnaryOp::Atanh
            | UnaryOp::Erf
            | UnaryOp::Erfc
            | UnaryOp::Expm1
            | UnaryOp::Log1p => to_float(d),
        };
        let x = self.to_dtype(dtype)?;
        Tensor::make(Op::Unary(op), &[&x], x.shape().to_vec(), dtype, x.device())
    }

    pub fn neg(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Neg)
    }
    pub fn exp(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Exp)
    }
    pub fn log(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Log)
    }
    pub fn sqrt(&self) -> Result<Tensor> {
        self.unary(UnaryOp::Sqrt)
    }

    /// x · x; bool squares as int64, as in torch.
    pub fn square(&self) -> Result<Tensor> {
        let x = if self.dtype() == DType::Bool { self.to_dtype(DType::I64)? } else { self.clone() };
        let t = Operand::Tensor(x);
        binary(&t, &t, BinaryOp::Mul)
    }

    /// 1 / x in float.
    pub fn reciprocal(&self) -> Result<Tensor> {
        let x = self.to_dtype(to_float(self.dtype()))?;
        binary(&Operand::Scalar(Scalar::Int(1)), &Operand::Tensor(x), BinaryOp::Div)
    }
}
