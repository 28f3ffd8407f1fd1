//! Vector norms for Python: `Tensor.norm`, `vkml.norm` and `vkml.linalg.vector_norm` (through `vkml/_methods.py`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use vkml_core::api::vector_norm::{vector_norm, Ord};

use crate::convert::OrPy;
use crate::pytensor::{dims, Tensor};

#[pyfunction]
#[pyo3(signature = (t, p, dim = None, keepdim = false))]
pub fn _norm(
    t: PyRef<'_, Tensor>,
    p: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
) -> PyResult<Tensor> {
    let ord = match p.extract::<String>() {
        Ok(s) if s == "fro" => Ord::Fro,
        Ok(s) => return Err(PyValueError::new_err(format!("norm: p={s:?} is not a vector norm ('fro' or a number)"))),
        Err(_) => Ord::P(p.extract::<f64>()?),
    };
    let d = dims(dim)?;
    Ok(Tensor(vector_norm(&t.0, ord, d.as_deref(), keepdim).py()?))
}
