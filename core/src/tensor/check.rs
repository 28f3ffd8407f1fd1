//! Dtype checks composites share: the float dtype the softmax family computes in, the dtype a float result of
//! integer inputs takes, and a composite's own op-table row refusing a device and dtype.

use crate::base::dtype::{opmath, DType};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The float dtype the softmax family computes in: 16-bit floats go through f32 and are rounded once, as torch.
/// Integer and bool inputs are refused (softmax, log_softmax) or promoted to float32 (sigmoid, logsumexp).
pub fn compute_dtype(x: &Tensor, op: &str, promote_ints: bool) -> Result<DType> {
    match x.dtype() {
        d if d.is_float() => Ok(opmath(d)),
        _ if promote_ints => Ok(DType::F32),
        d => Err(Error::Unsupported(format!("\"{op}\" not implemented for '{}'", d.name()))),
    }
}

/// The dtype a result of `x`'s values is returned in: x's own if float, else float32.
pub fn out_dtype(x: &Tensor) -> DType {
    if x.dtype().is_float() {
        x.dtype()
    } else {
        DType::F32
    }
}

/// A composite's own op-table row may refuse a device and dtype its primitives accept (or name the composite in
/// the error where a primitive would name itself).
pub fn declared(op: &str, x: &Tensor) -> Result<()> {
    declared_for(op, x.device(), x.dtype())
}

/// As `declared`, for an op computing in `dtype` on `device`.
pub fn declared_for(op: &str, device: crate::base::buffer::DeviceId, dtype: DType) -> Result<()> {
    let label = crate::dispatch::label(device);
    let kind = label.split(':').next().unwrap_or_default();
    match crate::graph::table::unsupported(op, kind, dtype) {
        Some(reason) => Err(Error::Unsupported(format!(
            "{op} is not supported for dtype {} on device '{label}' ({reason})",
            dtype.name()
        ))),
        None => Ok(()),
    }
}
