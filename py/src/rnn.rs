//! The forward of `nn.RNN`, `nn.LSTM` and `nn.GRU` for Python (the modules in `vkml/nn/recurrent.py` hold the
//! parameters with torch's names).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use vkml_core::nn::rnn::{rnn, Cell, Rnn};

use crate::convert::OrPy;
use crate::pytensor::Tensor;

type PyWeights<'py> = (PyRef<'py, Tensor>, PyRef<'py, Tensor>, Option<PyRef<'py, Tensor>>, Option<PyRef<'py, Tensor>>);

/// (output, h_n, c_n or None).
#[pyfunction]
#[pyo3(signature = (mode, hidden, layers, bidirectional, batch_first, dropout, training, weights, x, h0 = None, c0 = None,
    proj = 0, proj_weights = Vec::new()))]
#[allow(clippy::too_many_arguments)]
pub fn _rnn(
    mode: &str,
    hidden: usize,
    layers: usize,
    bidirectional: bool,
    batch_first: bool,
    dropout: f64,
    training: bool,
    weights: Vec<PyWeights<'_>>,
    x: PyRef<'_, Tensor>,
    h0: Option<PyRef<'_, Tensor>>,
    c0: Option<PyRef<'_, Tensor>>,
    proj: usize,
    proj_weights: Vec<PyRef<'_, Tensor>>,
) -> PyResult<(Tensor, Tensor, Option<Tensor>)> {
    let cell = match mode {
        "RNN_TANH" => Cell::Tanh,
        "RNN_RELU" => Cell::Relu,
        "LSTM" => Cell::Lstm,
        "GRU" => Cell::Gru,
        m => return Err(PyValueError::new_err(format!("unknown recurrent mode {m:?}"))),
    };
    let ws =
        weights.iter().map(|w| (&w.0 .0, &w.1 .0, w.2.as_ref().map(|b| &b.0), w.3.as_ref().map(|b| &b.0))).collect();
    let proj_weights = proj_weights.iter().map(|w| &w.0).collect();
    let m =
        Rnn { cell, hidden, layers, bidirectional, batch_first, dropout, training, weights: ws, proj, proj_weights };
    let (out, h, c) = rnn(&m, &x.0, h0.as_ref().map(|t| &t.0), c0.as_ref().map(|t| &t.0)).py()?;
    Ok((Tensor(out), Tensor(h), c.map(Tensor)))
}
