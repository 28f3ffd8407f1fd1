//! torch.result_type: dimensioned tensors outrank zero-dim tensors, which outrank Python scalars; a lower group
//! only matters when its category (bool < int < float) is higher.

use crate::base::dtype::{promote, Category, DType};
use crate::base::scalar::Scalar;
use crate::tensor::Tensor;

/// An operand of an elementwise op.
#[derive(Clone, Debug)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(Scalar),
}

/// The dtype torch computes `operands` in.
pub fn result_type(operands: &[&Operand]) -> DType {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut scalar: Option<DType> = None;
    for op in operands {
        let (slot, d) = match op {
            Operand::Tensor(t) if t.ndim() > 0 => (&mut dim, t.dtype()),
            Operand::Tensor(t) => (&mut zero, t.dtype()),
            Operand::Scalar(s) => (&mut scalar, s.default_dtype()),
        };
        *slot = Some(match *slot {
            Some(p) => promote(p, d),
            None => d,
        });
    }
    let cat = |d: Option<DType>| d.map(|d| d.category());
    let mut out = match (dim, zero) {
        (Some(a), Some(b)) if b.category() > a.category() => b,
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => scalar.unwrap_or(DType::F32),
    };
    if let Some(s) = scalar {
        if cat(Some(s)) > Some(out.category()) {
            // A scalar of a higher category gives that category's default dtype.
            out = match s.category() {
                Category::Float => DType::F32,
                Category::Int => DType::I64,
                Category::Bool => DType::Bool,
            };
        }
    }
    out
}
