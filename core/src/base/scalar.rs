//! Python-style scalars and their "weak" participation in type promotion.

use super::dtype::{Category, DType};

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

/// torch's check when a scalar becomes a tensor's value (`full`, `fill_`, `where`): it must fit the dtype.
pub fn check_fits(s: Scalar, dtype: DType) -> crate::util::error::Result<()> {
    let fits = match (s, dtype) {
        (Scalar::Bool(_), _) | (_, DType::Bool) => true,
        (Scalar::Int(i), DType::I32) => i32::try_from(i).is_ok(),
        (Scalar::Int(_), DType::I64) => true,
        (Scalar::Float(f), DType::I32) => f.is_finite() && f.abs() < 2_147_483_648.0,
        (Scalar::Float(f), DType::I64) => f.is_finite() && f.abs() < 9.223_372_036_854_776e18,
        (s, DType::F16) => !s.as_f64().is_finite() || s.as_f64().abs() <= 65_504.0,
        (s, DType::BF16 | DType::F32) => !s.as_f64().is_finite() || s.as_f64().abs() <= f32::MAX as f64,
        (_, DType::F64) => true,
    };
    if fits {
        Ok(())
    } else {
        Err(crate::util::error::Error::Runtime(format!(
            "value cannot be converted to type {} without overflow",
            dtype.name()
        )))
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
