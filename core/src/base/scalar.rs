//! Python-style scalars and their "weak" participation in type promotion.

use super::dtype::{promote, Category, DType};

/// A scalar as a user writes it: bool, int or float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The dtype torch gives a tensor made from this scalar alone.
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F32,
        }
    }

    fn category(self) -> Category {
        self.default_dtype().category()
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            // Saturating truncation, the same on every backend (C++ leaves out-of-range undefined).
            Scalar::Float(f) => f as i64,
        }
    }
}

/// torch.result_type(tensor, scalar): a scalar only wins when it is of a higher category.
pub fn promote_with_scalar(t: DType, s: Scalar) -> DType {
    if s.category() > t.category() {
        match s {
            Scalar::Float(_) => DType::F32,
            Scalar::Int(_) => DType::I64,
            Scalar::Bool(_) => DType::Bool,
        }
    } else {
        t
    }
}

/// Promotion between two dimensionless operands that are both scalars.
pub fn promote_scalars(a: Scalar, b: Scalar) -> DType {
    promote(a.default_dtype(), b.default_dtype())
}
