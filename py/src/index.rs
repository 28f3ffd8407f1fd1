//! Index expressions for `Tensor.__getitem__`/`__setitem__`: Python keys parsed into `IndexItem`s, and the value
//! written by `__setitem__`.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyTuple};

use vkml_core::api::elementwise;
use vkml_core::api::index::IndexItem;
use vkml_core::api::Tensor as Core;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;

use crate::convert::{opt_device, scalar, type_name, OrPy};
use crate::pytensor::Tensor;

/// A value for `__setitem__`: a tensor, or a scalar made into one on the target's device.
pub fn value_tensor(value: &Bound<'_, PyAny>, target: &Core) -> PyResult<Core> {
    if let Ok(t) = value.extract::<PyRef<'_, Tensor>>() {
        return Ok(t.0.clone());
    }
    let s = scalar(value)
        .ok_or_else(|| PyTypeError::new_err(format!("can't assign a {} to a Tensor", type_name(value))))?;
    elementwise::scalar_tensor(s, target.dtype(), target.device()).py()
}

fn is_ndarray(ob: &Bound<'_, PyAny>) -> PyResult<bool> {
    ob.is_instance(&ob.py().import("numpy")?.getattr("ndarray")?)
}

/// Parse an index expression into items.
pub fn index_items(key: &Bound<'_, PyAny>) -> PyResult<Vec<IndexItem>> {
    let parts: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    let mut out = Vec::new();
    for p in parts {
        if p.is_none() {
            out.push(IndexItem::NewAxis);
        } else if p.is_instance_of::<pyo3::types::PyEllipsis>() {
            out.push(IndexItem::Ellipsis);
        } else if let Ok(s) = p.cast::<PySlice>() {
            let get = |name: &str| -> PyResult<Option<i64>> {
                let v = s.getattr(name)?;
                if v.is_none() {
                    Ok(None)
                } else {
                    v.extract::<i64>().map(Some).map_err(|_| PyTypeError::new_err("slice indices must be integers"))
                }
            };
            out.push(IndexItem::Slice { start: get("start")?, stop: get("stop")?, step: get("step")? });
        } else if p.is_instance_of::<pyo3::types::PyBool>() {
            // x[True] / x[False]: a 0-d mask.
            let b = p.extract::<bool>()?;
            out.push(IndexItem::Tensor(Core::full(&[], Scalar::Bool(b), DType::Bool, opt_device(None)?).py()?));
        } else if let Ok(t) = p.extract::<PyRef<'_, Tensor>>() {
            // Before integers: a one-element tensor converts to one through __index__, but indexes as a tensor
            // (x[:, tensor([1])] keeps the dim, x[tensor(True)] adds one).
            out.push(IndexItem::Tensor(t.0.clone()));
        } else if let Ok(i) = p.extract::<i64>() {
            out.push(IndexItem::Int(i));
        } else if p.is_instance_of::<PyList>() || p.is_instance_of::<PyTuple>() || is_ndarray(&p)? {
            // Sequences and arrays are index tensors, made on the host (their values are then checked without a
            // device round trip); an empty one indexes nothing, as torch's int64 default.
            let empty = p.len().is_ok_and(|n| n == 0);
            let dtype = if empty { Some(DType::I64) } else { None };
            out.push(IndexItem::Tensor(crate::from_data(p.py(), &p, dtype, None)?));
        } else {
            return Err(PyIndexError::new_err(format!(
                "only integers, slices (`:`), ellipsis (`...`) and None are valid indices (got {})",
                type_name(&p)
            )));
        }
    }
    Ok(out)
}
