//! Element types, their storage sizes and torch's type promotion.

use crate::util::error::{Error, Result};

/// An element type. Order within a category matters for promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Bool,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

/// Every dtype, in a fixed order.
pub const ALL_DTYPES: [DType; 7] =
    [DType::Bool, DType::I32, DType::I64, DType::F16, DType::BF16, DType::F32, DType::F64];

/// The three kinds torch promotes between: bool < integer < floating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Int,
    Float,
}

impl DType {
    /// torch's name, e.g. "float32".
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Parse torch's names and common aliases.
    pub fn from_name(name: &str) -> Result<DType> {
        Ok(match name {
            "bool" => DType::Bool,
            "int32" | "int" => DType::I32,
            "int64" | "long" => DType::I64,
            "float16" | "half" => DType::F16,
            "bfloat16" => DType::BF16,
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            _ => return Err(Error::Dtype(format!("unknown dtype '{name}'"))),
        })
    }

    /// Bytes per element on the host (and in NumPy).
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::I32 | DType::I64 => Category::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Float,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    /// The dtype of a sum: integers and bool accumulate into int64 (torch), floats keep their dtype.
    pub fn sum_dtype(self) -> DType {
        if self.is_float() {
            self
        } else {
            DType::I64
        }
    }
}

/// torch.promote_types for two tensor dtypes.
pub fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (x, y) if x != y => {
            if x > y {
                a
            } else {
                b
            }
        }
        // Same category, different types.
        (Category::Int, _) => I64,
        (Category::Float, _) => match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            _ => {
                let rank = |d: DType| match d {
                    F16 | BF16 => 0,
                    F32 => 1,
                    _ => 2,
                };
                if rank(a) >= rank(b) {
                    a
                } else {
                    b
                }
            }
        },
        (Category::Bool, _) => Bool,
    }
}

/// The float dtype an op that needs one (exp, true division) computes in: floats keep theirs, others use float32.
/// The dtype a value of `d` is computed in: f32 for the 16-bit floats (rounded once at the end, torch's opmath),
/// every other dtype itself.
pub fn opmath(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    }
}

pub fn to_float(d: DType) -> DType {
    if d.is_float() {
        d
    } else {
        DType::F32
    }
}
