//! `vkml.einsum(equation, *operands)` (or a list of operands, as torch).

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use vkml_core::api::einsum as core_einsum;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

#[pyfunction]
#[pyo3(signature = (equation, *operands))]
pub fn einsum(equation: &str, operands: &Bound<'_, PyTuple>) -> PyResult<Tensor> {
    let items: Vec<Bound<'_, PyAny>> = match operands.len() {
        // A single list or tuple of tensors, as torch also accepts.
        1 if operands.get_item(0)?.extract::<PyRef<'_, Tensor>>().is_err() => {
            operands.get_item(0)?.try_iter()?.collect::<PyResult<_>>()?
        }
        _ => operands.iter().collect(),
    };
    let mut ts = Vec::with_capacity(items.len());
    for o in &items {
        let t: PyRef<'_, Tensor> = o.extract()?;
        ts.push(t.0.clone());
    }
    Ok(Tensor(core_einsum::einsum(equation, &ts).py()?))
}
