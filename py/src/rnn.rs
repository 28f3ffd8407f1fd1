//! `nn.RNN`, `nn.LSTM` and `nn.GRU` for Python: the layout, initialisation and forward of `vkml_core::nn::rnn`;
//! the modules in `vkml/nn/recurrent.py` hold the parameters under the names it gives.

use pyo3::prelude::*;

use vkml_core::nn::rnn::{Cell, Rnn, Run, Sizes};

use crate::convert::{cores, OrPy};
use crate::pytensor::Tensor;

/// A recurrent layer stack's layout (torch's constructor arguments, checked with torch's messages).
#[pyclass(frozen, name = "_Rnn", module = "vkml._vkml")]
pub struct PyRnn(Rnn);

#[pymethods]
impl PyRnn {
    #[new]
    #[pyo3(signature = (mode, input_size, hidden_size, num_layers, bias, bidirectional, proj_size, dropout))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        mode: &str,
        input_size: i64,
        hidden_size: i64,
        num_layers: i64,
        bias: bool,
        bidirectional: bool,
        proj_size: i64,
        dropout: f64,
    ) -> PyResult<Self> {
        let sizes = Sizes { input_size, hidden_size, num_layers, proj_size };
        Ok(Self(Rnn::new(Cell::parse(mode).py()?, sizes, bias, bidirectional, dropout).py()?))
    }

    /// (name, shape) of every parameter, in torch's order.
    fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        self.0.parameters()
    }

    /// torch's initialisation of `params` (given in `parameters()` order), in place.
    fn reset(&self, params: Vec<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.reset(&cores(&params)).py()
    }

    /// (output, h_n, c_n or None) over `params` in `parameters()` order.
    #[pyo3(signature = (params, x, h0, c0, batch_first, dropout, training))]
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        params: Vec<PyRef<'_, Tensor>>,
        x: PyRef<'_, Tensor>,
        h0: Option<PyRef<'_, Tensor>>,
        c0: Option<PyRef<'_, Tensor>>,
        batch_first: bool,
        dropout: f64,
        training: bool,
    ) -> PyResult<(Tensor, Tensor, Option<Tensor>)> {
        let run = Run { batch_first, dropout, training };
        let (h0, c0) = (h0.as_ref().map(|t| &t.0), c0.as_ref().map(|t| &t.0));
        let (out, h, c) = self.0.forward(&cores(&params), &x.0, h0, c0, run).py()?;
        Ok((Tensor(out), Tensor(h), c.map(Tensor)))
    }
}
