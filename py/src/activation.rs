//! `vkml.nn.functional` activations: thin wrappers over `vkml_core::api::activation`, with torch's signatures.

use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

use vkml_core::nn::activation as act;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// In-place activations rewrite their input; vkml refuses them with a pointer to the out-of-place form.
fn not_inplace(name: &str, inplace: bool) -> PyResult<()> {
    if inplace {
        return Err(PyNotImplementedError::new_err(format!(
            "{name}(inplace=True): in-place activations are not supported; use inplace=False"
        )));
    }
    Ok(())
}

#[pyfunction]
#[pyo3(signature = (input, min_val = -1.0, max_val = 1.0, inplace = false))]
pub fn hardtanh(input: PyRef<'_, Tensor>, min_val: f64, max_val: f64, inplace: bool) -> PyResult<Tensor> {
    not_inplace("hardtanh", inplace)?;
    Ok(Tensor(act::hardtanh(&input.0, min_val, max_val).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn relu6(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("relu6", inplace)?;
    Ok(Tensor(act::relu6(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, negative_slope = 0.01, inplace = false))]
pub fn leaky_relu(input: PyRef<'_, Tensor>, negative_slope: f64, inplace: bool) -> PyResult<Tensor> {
    not_inplace("leaky_relu", inplace)?;
    Ok(Tensor(act::leaky_relu(&input.0, negative_slope).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, alpha = 1.0, inplace = false))]
pub fn elu(input: PyRef<'_, Tensor>, alpha: f64, inplace: bool) -> PyResult<Tensor> {
    not_inplace("elu", inplace)?;
    Ok(Tensor(act::elu(&input.0, alpha).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn selu(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("selu", inplace)?;
    Ok(Tensor(act::selu(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, alpha = 1.0, inplace = false))]
pub fn celu(input: PyRef<'_, Tensor>, alpha: f64, inplace: bool) -> PyResult<Tensor> {
    not_inplace("celu", inplace)?;
    Ok(Tensor(act::celu(&input.0, alpha).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, approximate = "none"))]
pub fn gelu(input: PyRef<'_, Tensor>, approximate: &str) -> PyResult<Tensor> {
    Ok(Tensor(act::gelu(&input.0, approximate).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn silu(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("silu", inplace)?;
    Ok(Tensor(act::silu(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn mish(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("mish", inplace)?;
    Ok(Tensor(act::mish(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, beta = 1.0, threshold = 20.0))]
pub fn softplus(input: PyRef<'_, Tensor>, beta: f64, threshold: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::softplus(&input.0, beta, threshold).py()?))
}

#[pyfunction]
pub fn logsigmoid(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(act::logsigmoid(&input.0).py()?))
}

#[pyfunction]
pub fn softsign(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(act::softsign(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn hardsigmoid(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("hardsigmoid", inplace)?;
    Ok(Tensor(act::hardsigmoid(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, inplace = false))]
pub fn hardswish(input: PyRef<'_, Tensor>, inplace: bool) -> PyResult<Tensor> {
    not_inplace("hardswish", inplace)?;
    Ok(Tensor(act::hardswish(&input.0).py()?))
}
