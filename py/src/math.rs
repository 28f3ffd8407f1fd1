//! Tensor methods kept out of pytensor.rs (which holds the core set within the line limit), as functions of the
//! tensor that `vkml/_methods.py` binds as methods: the unary math family by name, the division family, clamping,
//! moments, fixed-rank products and rearrangements.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use vkml_core::api::{division, elementwise, linalg, pointwise};
use vkml_core::graph::op::{BinaryOp, UnaryOp};
use vkml_core::nn::activation;

use crate::convert::{int_list, OrPy};
use crate::pytensor::{dims, operand_or_err, Tensor};

/// The unary method `name` (primitives by their op-table names, torch's `arc*` aliases, and composites).
#[pyfunction]
pub fn _unary(t: PyRef<'_, Tensor>, name: &str) -> PyResult<Tensor> {
    let x = &t.0;
    let r = match name {
        "log10" => x.log10(),
        "frac" => x.frac(),
        "isnan" => x.isnan(),
        "isinf" => x.isinf(),
        "isfinite" => x.isfinite(),
        _ => {
            // torch's arcsin is asin, and so on.
            let key = name.strip_prefix("arc").map_or_else(|| name.to_string(), |rest| format!("a{rest}"));
            let op = UnaryOp::from_name(&key).ok_or_else(|| PyValueError::new_err(format!("no unary op {name}")))?;
            x.unary(op)
        }
    };
    Ok(Tensor(r.py()?))
}

/// The binary method `name` of `a` (a tensor or a number on either side).
#[pyfunction]
pub fn _binary(a: &Bound<'_, PyAny>, name: &str, b: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let (a, b) = (operand_or_err(a)?, operand_or_err(b)?);
    let r = match name {
        "fmod" => division::fmod(&a, &b),
        "remainder" => division::remainder(&a, &b),
        "floor_divide" => division::floor_divide(&a, &b),
        "atan2" => elementwise::binary(&a, &b, BinaryOp::Atan2),
        "copysign" => elementwise::binary(&a, &b, BinaryOp::CopySign),
        "hypot" => pointwise::hypot(&a, &b),
        "pow" => pointwise::pow(&a, &b),
        _ => return Err(PyValueError::new_err(format!("no binary op {name}"))),
    };
    Ok(Tensor(r.py()?))
}

/// `t op= other` in place (torch's cast rule: the result must fit t's dtype), for methods bound in Python.
#[pyfunction]
pub fn _update(t: PyRef<'_, Tensor>, other: &Bound<'_, PyAny>, op: &str) -> PyResult<()> {
    t.0.update(&operand_or_err(other)?, op).py()
}

#[pyfunction]
#[pyo3(signature = (t, min = None, max = None))]
pub fn _clamp(
    t: PyRef<'_, Tensor>,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let lo = min.filter(|v| !v.is_none()).map(operand_or_err).transpose()?;
    let hi = max.filter(|v| !v.is_none()).map(operand_or_err).transpose()?;
    Ok(Tensor(activation::clamp(&t.0, lo.as_ref(), hi.as_ref()).py()?))
}

/// var and std (`std = true`): `unbiased` (torch's older flag, also accepted positionally for `dim`) and
/// `correction` are exclusive; the default correction is 1.
#[pyfunction]
#[pyo3(signature = (t, is_std, dim = None, unbiased = None, keepdim = false, correction = None))]
pub fn _moment(
    t: PyRef<'_, Tensor>,
    is_std: bool,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
) -> PyResult<Tensor> {
    let flag = dim.filter(|d| d.is_instance_of::<pyo3::types::PyBool>()).map(|d| d.extract::<bool>()).transpose()?;
    let (dims, c) = match (flag, unbiased, correction) {
        (Some(u), _, _) => (None, f64::from(u8::from(u))),
        (None, Some(_), Some(_)) => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "std/var: cannot specify both unbiased and correction",
            ));
        }
        (None, Some(u), None) => (dims(dim)?, f64::from(u8::from(u))),
        (None, None, c) => (dims(dim)?, c.unwrap_or(1.0)),
    };
    let r = if is_std { t.0.std(dims.as_deref(), c, keepdim) } else { t.0.var(dims.as_deref(), c, keepdim) };
    Ok(Tensor(r.py()?))
}

/// mm, bmm, dot and outer by name.
#[pyfunction]
pub fn _product(a: PyRef<'_, Tensor>, name: &str, b: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    let r = match name {
        "mm" => linalg::mm(&a.0, &b.0),
        "bmm" => linalg::bmm(&a.0, &b.0),
        "dot" => linalg::dot(&a.0, &b.0),
        "outer" => linalg::outer(&a.0, &b.0),
        _ => return Err(PyValueError::new_err(format!("no product {name}"))),
    };
    Ok(Tensor(r.py()?))
}

#[pyfunction]
pub fn _lerp(t: PyRef<'_, Tensor>, end: PyRef<'_, Tensor>, weight: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    Ok(Tensor(pointwise::lerp(&t.0, &end.0, &operand_or_err(weight)?).py()?))
}

#[pyfunction]
pub fn _masked_fill(t: PyRef<'_, Tensor>, mask: PyRef<'_, Tensor>, value: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    Ok(Tensor(elementwise::masked_fill(&t.0, &mask.0, &operand_or_err(value)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (t, shifts, dims = None))]
pub fn _roll(t: PyRef<'_, Tensor>, shifts: &Bound<'_, PyAny>, dims: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let dims = match dims {
        Some(d) if !d.is_none() => int_list(d)?,
        _ => vec![],
    };
    Ok(Tensor(t.0.roll(&int_list(shifts)?, &dims).py()?))
}
