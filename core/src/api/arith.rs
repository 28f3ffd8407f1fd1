//! The Rust face of `Tensor`'s arithmetic: methods (`a.mul(&b)?`, `a.add_scalar(1.0)?`) and operators on tensors,
//! references and `Result<Tensor>` (`(&a * &b)?`, `((&a + 1.0) * &b)?`), so composites and backward rules read like
//! the math.
//! Each is the primitive or composite a front end reaches by the same name, under torch's promotion.
//!
//! ```
//! use std::sync::Arc;
//! use vkml_core::api::Tensor;
//! use vkml_core::tensor::realize::read_bytes;
//! use vkml_core::base::{dtype::DType, scalar::Scalar};
//!
//! # fn main() -> vkml_core::Result<()> {
//! let cpu = vkml_core::dispatch::register(Arc::new(vkml_backend_cpu::CpuBackend::new()));
//! let x = Tensor::arange(Scalar::Int(1), Scalar::Int(4), Scalar::Int(1), DType::F32, cpu)?; // [1, 2, 3]
//! let y = ((&x * &x)? - 1.0)?; // x² − 1, lazily
//! let bytes = read_bytes(&y)?; // runs the graph
//! let values: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
//! assert_eq!(values, [0.0, 3.0, 8.0]);
//! let mask = Tensor::full(&[2], Scalar::Bool(true), DType::Bool, cpu)?;
//! assert!((&mask - 1.0).is_err()); // torch refuses `-` on bool tensors
//! # Ok(())
//! # }
//! ```

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::api::elementwise::{binary, div, mul, plus, s, scale, sub, t};
use crate::api::pointwise::pow;
use crate::graph::op::BinaryOp;
use crate::tensor::Tensor;
use crate::util::error::Result;

impl Tensor {
    /// self + other (torch.add).
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        binary(&t(self), &t(other), BinaryOp::Add)
    }

    /// self − other (torch.sub; bool operands are refused as in torch).
    pub fn sub(&self, other: &Tensor) -> Result<Tensor> {
        sub(&t(self), &t(other))
    }

    /// self · other (torch.mul).
    pub fn mul(&self, other: &Tensor) -> Result<Tensor> {
        mul(self, other)
    }

    /// self / other, true division (torch.div).
    pub fn div(&self, other: &Tensor) -> Result<Tensor> {
        div(self, other)
    }

    /// The larger of each pair, NaN if either is (torch.maximum).
    pub fn maximum(&self, other: &Tensor) -> Result<Tensor> {
        binary(&t(self), &t(other), BinaryOp::Maximum)
    }

    /// The smaller of each pair, NaN if either is (torch.minimum).
    pub fn minimum(&self, other: &Tensor) -> Result<Tensor> {
        binary(&t(self), &t(other), BinaryOp::Minimum)
    }

    /// self raised to other (torch.pow).
    pub fn pow(&self, other: &Tensor) -> Result<Tensor> {
        pow(&t(self), &t(other))
    }

    /// self + c for a float c.
    pub fn add_scalar(&self, c: f64) -> Result<Tensor> {
        plus(self, c)
    }

    /// self − c for a float c (a bool tensor is refused, as torch's sub refuses it).
    pub fn sub_scalar(&self, c: f64) -> Result<Tensor> {
        sub(&t(self), &s(c))
    }

    /// self · c for a float c.
    pub fn mul_scalar(&self, c: f64) -> Result<Tensor> {
        scale(self, c)
    }

    /// self / c for a float c.
    pub fn div_scalar(&self, c: f64) -> Result<Tensor> {
        binary(&t(self), &s(c), BinaryOp::Div)
    }

    /// self raised to a float c.
    pub fn pow_scalar(&self, c: f64) -> Result<Tensor> {
        pow(&t(self), &s(c))
    }
}

/// `a op b` and `a op c` (a float) for a tensor `a` or `&a`, and `r op &b` for a `Result<Tensor>` `r`, so a chain
/// needs a `?` only where a scalar follows a result (Rust lets no crate give `Result<Tensor>` a float operator).
macro_rules! operator {
    ($trait:ident, $method:ident, $tensor_fn:ident, $scalar:expr) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                Tensor::$tensor_fn(self, rhs)
            }
        }

        impl $trait<f64> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                let f: fn(&Tensor, f64) -> Result<Tensor> = $scalar;
                f(self, rhs)
            }
        }

        impl $trait<&Tensor> for Result<Tensor> {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                Tensor::$tensor_fn(&self?, rhs)
            }
        }

        impl $trait<&Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                Tensor::$tensor_fn(&self, rhs)
            }
        }

        impl $trait<f64> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                $trait::$method(&self, rhs)
            }
        }

        impl $trait<Result<Tensor>> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Result<Tensor>) -> Result<Tensor> {
                Tensor::$tensor_fn(self, &rhs?)
            }
        }
    };
}

operator!(Add, add, add, |a, c| a.add_scalar(c));
operator!(Sub, sub, sub, |a, c| a.sub_scalar(c));
operator!(Mul, mul, mul, |a, c| a.mul_scalar(c));
operator!(Div, div, div, |a, c| a.div_scalar(c));

impl Neg for &Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        Tensor::neg(self)
    }
}

impl Neg for Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        Tensor::neg(&self)
    }
}
