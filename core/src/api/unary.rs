//! Unary ops: each primitive under its row's dtype rule (float ops promote integers to float32, rounding ops copy
//! integers) and the composites square, reciprocal, log10, frac, the float classifications and nan_to_num.

use crate::api::elementwise::{binary, sub, where_};
use crate::base::dtype::{to_float, DType};
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, Op, UnaryOp, UnaryRule};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

impl Tensor {
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let d = self.dtype();
        if d == DType::Bool {
            // torch's refusals, with its messages.
            if op == UnaryOp::Neg {
                return Err(Error::Runtime(
                    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a \
                     mask, use the `~` or `logical_not()` operator instead."
                        .into(),
                ));
            }
            let kernel = match op.rule() {
                UnaryRule::Integral => Some(format!("{}_vml_cpu", op.name())),
                UnaryRule::Same | UnaryRule::Float => (op == UnaryOp::Abs).then(|| "abs_cpu".to_string()),
            };
            if let Some(kernel) = kernel {
                return Err(Error::Unsupported(format!("\"{kernel}\" not implemented for 'Bool'")));
            }
        }
        let dtype = match op.rule() {
            UnaryRule::Same => d,
            // Integers are already integral: torch returns a copy.
            UnaryRule::Integral if !d.is_float() => return self.copy(),
            UnaryRule::Integral => d,
            UnaryRule::Float => to_float(d),
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

    /// log(x)/ln 10 in float.
    pub fn log10(&self) -> Result<Tensor> {
        let x = self.to_dtype(to_float(self.dtype()))?;
        binary(&Operand::Tensor(x.log()?), &Operand::Scalar(Scalar::Float(std::f64::consts::LOG10_E)), BinaryOp::Mul)
    }

    /// x − trunc(x): exact in floating point; torch refuses integers.
    pub fn frac(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Err(Error::Unsupported(format!("\"frac_cpu\" not implemented for '{}'", self.dtype().name())));
        }
        sub(&Operand::Tensor(self.clone()), &Operand::Tensor(self.unary(UnaryOp::Trunc)?))
    }

    /// NaN tests by comparison (x ≠ x; the GPU compares bits); integers are never NaN.
    pub fn isnan(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Tensor::full(self.shape(), Scalar::Bool(false), DType::Bool, self.device());
        }
        let me = Operand::Tensor(self.clone());
        binary(&me, &me, BinaryOp::Ne)
    }

    /// |x| = inf; integers are never infinite.
    pub fn isinf(&self) -> Result<Tensor> {
        self.abs_vs_inf(BinaryOp::Eq, false)
    }

    /// |x| < inf (false for NaN); integers are always finite.
    pub fn isfinite(&self) -> Result<Tensor> {
        self.abs_vs_inf(BinaryOp::Lt, true)
    }

    /// |x| `op` inf, or `ints` everywhere for an integer tensor.
    fn abs_vs_inf(&self, op: BinaryOp, ints: bool) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Tensor::full(self.shape(), Scalar::Bool(ints), DType::Bool, self.device());
        }
        let inf = Operand::Scalar(Scalar::Float(f64::INFINITY));
        binary(&Operand::Tensor(self.unary(UnaryOp::Abs)?), &inf, op)
    }

    /// `nan_to_num(nan, posinf, neginf)`: the infinities default to the dtype's largest finite values; integer
    /// and bool tensors come back as copies.
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        let big = match self.dtype() {
            DType::F32 => f32::MAX as f64,
            DType::F64 => f64::MAX,
            DType::F16 => 65504.0,
            DType::BF16 => 3.3895313892515355e38,
            DType::I32 | DType::I64 | DType::Bool => return self.copy(),
        };
        let me = Operand::Tensor(self.clone());
        let inf = Operand::Scalar(Scalar::Float(f64::INFINITY));
        let val = |v: f64| Operand::Scalar(Scalar::Float(v));
        let r = where_(&self.isnan()?, &val(nan), &me)?;
        let r = where_(&binary(&me, &inf, BinaryOp::Eq)?, &val(posinf.unwrap_or(big)), &Operand::Tensor(r))?;
        let minus_inf = Operand::Scalar(Scalar::Float(f64::NEG_INFINITY));
        where_(&binary(&me, &minus_inf, BinaryOp::Eq)?, &val(neginf.unwrap_or(-big)), &Operand::Tensor(r))
    }

    /// 1 / x in float.
    pub fn reciprocal(&self) -> Result<Tensor> {
        let x = self.to_dtype(to_float(self.dtype()))?;
        binary(&Operand::Scalar(Scalar::Int(1)), &Operand::Tensor(x), BinaryOp::Div)
    }
}
