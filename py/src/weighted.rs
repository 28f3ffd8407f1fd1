//! The layout of Linear and the convolutions for Python (`vkml_core::nn::weighted`): their parameters' names,
//! shapes and torch's initialisation.

use pyo3::prelude::*;

use vkml_core::nn::weighted::Weighted;

use crate::convert::{cores, OrPy};
use crate::pytensor::Tensor;

#[pyclass(frozen, name = "_Weighted", module = "vkml._vkml")]
pub struct PyWeighted(Weighted);

#[pymethods]
impl PyWeighted {
    /// A weight of shape `weight` and, unless `bias` is None, a bias of that length.
    #[new]
    fn new(weight: Vec<usize>, bias: Option<usize>) -> Self {
        Self(Weighted { weight, bias })
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
