//! `nn.functional.pad` for Python.

use pyo3::prelude::*;

use vkml_core::api::pad::{pad as pad_core, PadMode};

use crate::convert::{int_list, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
#[pyo3(signature = (input, pad, mode = "constant", value = None))]
pub fn pad(input: PyRef<'_, Tensor>, pad: &Bound<'_, PyAny>, mode: &str, value: Option<f64>) -> PyResult<Tensor> {
    let amounts = int_list(pad)?;
    Ok(Tensor(pad_core(&input.0, &amounts, PadMode::parse(mode).py()?, value.unwrap_or(0.0)).py()?))
}
