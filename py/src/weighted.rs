//! The layout of Linear, the convolutions and Embedding for Python (`vkml_core::nn::weighted`): their parameters'
//! names, shapes and torch's initialisation.

use pyo3::prelude::*;

use vkml_core::nn::weighted::Weighted;

use crate::convert::{cores, OrPy};
use crate::pytensor::Tensor;

#[pyclass(frozen, name = "_Weighted", module = "vkml._vkml")]
pub struct PyWeighted(Weighted);

#[pymethods]
impl PyWeighted {
    /// A weight of shape `weight` and, unless `bias` is None, a bias of that length (Linear, the convolutions).
    #[new]
    fn new(weight: Vec<usize>, bias: Option<usize>) -> Self {
        Self(Weighted::fan_in(weight, bias))
    }

    /// Embedding's weight (rows, dim), N(0, 1) with the row `padding_idx` (non-negative) zero.
    #[staticmethod]
    #[pyo3(signature = (rows, dim, padding_idx = None))]
    fn embedding(rows: usize, dim: usize, padding_idx: Option<usize>) -> PyResult<Self> {
        Ok(Self(Weighted::embedding(rows, dim, padding_idx).py()?))
    }

    /// (name, shape) of every parameter.
    fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        self.0.parameters()
    }

    /// torch's initialisation of `params` (in `parameters()` order), in place.
    fn reset(&self, params: Vec<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.reset(&cores(&params)).py()
    }
}
