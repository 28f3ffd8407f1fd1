//! `vkml.nn.functional` activations: thin wrappers over `vkml_core::api::activation`, with torch's signatures.

use pyo3::prelude::*;

use vkml_core::nn::activation as act;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// A binding per parameterless activation (`vkml_core::plain_activations!` lists them).
macro_rules! bind_plain {
    ($($name:ident),*) => {
        $(
            #[pyfunction]
            pub fn $name(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
                Ok(Tensor(act::$name(&input.0).py()?))
            }
        )*
    };
}
vkml_core::plain_activations!(bind_plain);

// torch's `inplace=` of these is `vkml.nn.functional`'s: it writes the result computed here into the input.

#[pyfunction]
#[pyo3(signature = (input, min_val = -1.0, max_val = 1.0))]
pub fn hardtanh(input: PyRef<'_, Tensor>, min_val: f64, max_val: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::hardtanh(&input.0, min_val, max_val).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, negative_slope = 0.01))]
pub fn leaky_relu(input: PyRef<'_, Tensor>, negative_slope: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::leaky_relu(&input.0, negative_slope).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, alpha = 1.0))]
pub fn elu(input: PyRef<'_, Tensor>, alpha: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::elu(&input.0, alpha).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, alpha = 1.0))]
pub fn celu(input: PyRef<'_, Tensor>, alpha: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::celu(&input.0, alpha).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, approximate = "none"))]
pub fn gelu(input: PyRef<'_, Tensor>, approximate: &str) -> PyResult<Tensor> {
    Ok(Tensor(act::gelu(&input.0, approximate).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, beta = 1.0, threshold = 20.0))]
pub fn softplus(input: PyRef<'_, Tensor>, beta: f64, threshold: f64) -> PyResult<Tensor> {
    Ok(Tensor(act::softplus(&input.0, beta, threshold).py()?))
}
