//! The layout of the normalisation layers for Python (`vkml_core::nn::affine`): the affine parameters and
//! BatchNorm's running statistics, named, shaped and started as torch does.

use pyo3::prelude::*;

use vkml_core::nn::affine::Affine;

use crate::convert::{cores, OrPy};
use crate::pytensor::Tensor;

#[pyclass(frozen, name = "_Affine", module = "vkml._vkml")]
pub struct PyAffine(Affine);

#[pymethods]
impl PyAffine {
    /// Over `shape`: a weight and a bias where asked, and the running statistics where `running_stats`.
    #[new]
    fn new(shape: Vec<usize>, weight: bool, bias: bool, running_stats: bool) -> Self {
        Self(Affine { shape, weight, bias, running_stats })
    }

    /// (name, shape) of every parameter.
    fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        self.0.parameters()
    }

    /// (name, shape, dtype name or None for the layer's) of every buffer.
    fn buffers(&self) -> Vec<(String, Vec<usize>, Option<&'static str>)> {
        self.0.buffers().into_iter().map(|(n, s, d)| (n, s, d.map(|d| d.name()))).collect()
    }

    /// torch's `reset_parameters` of `params` (in `parameters()` order), in place.
    fn reset(&self, params: Vec<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.reset(&cores(&params)).py()
    }

    /// torch's `reset_running_stats` of `buffers` (in `buffers()` order), in place.
    fn reset_running_stats(&self, buffers: Vec<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.reset_running_stats(&cores(&buffers)).py()
    }
}
