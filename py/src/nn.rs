//! `vkml.nn.functional` entry points the description does not cover (the softmax family's `dtype=`, `one_hot`):
//! thin wrappers over `vkml_core::nn`, where the math lives.

use pyo3::prelude::*;

use vkml_core::nn::functional as nn;

use crate::convert::{int_list, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
pub fn sigmoid(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(nn::sigmoid(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, dtype = None))]
pub fn softmax(input: PyRef<'_, Tensor>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let x = with_dtype(&input, dtype)?;
    Ok(Tensor(nn::softmax(&x, dim).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, dtype = None))]
pub fn log_softmax(input: PyRef<'_, Tensor>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let x = with_dtype(&input, dtype)?;
    Ok(Tensor(nn::log_softmax(&x, dim).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, keepdim = false))]
pub fn logsumexp(input: PyRef<'_, Tensor>, dim: &Bound<'_, PyAny>, keepdim: bool) -> PyResult<Tensor> {
    Ok(Tensor(nn::logsumexp(&input.0, &int_list(dim)?, keepdim).py()?))
}

/// torch's `dtype=` of the softmax family: the input is cast first.
fn with_dtype(input: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<vkml_core::api::Tensor> {
    match crate::convert::opt_dtype(dtype)? {
        Some(d) => input.0.to_dtype(d).py(),
        None => Ok(input.0.clone()),
    }
}

#[pyfunction]
#[pyo3(signature = (tensor, num_classes = -1), text_signature = "(tensor, num_classes=-1)")]
pub fn one_hot(tensor: PyRef<'_, Tensor>, num_classes: i64) -> PyResult<Tensor> {
    Ok(Tensor(nn::one_hot(&tensor.0, num_classes).py()?))
}
