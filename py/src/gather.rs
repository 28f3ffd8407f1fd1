//! Indexing by tensors for Python: gather, scatter (a tensor or a number as the source), scatter_add,
//! index_select, take_along_dim and embedding. `vkml/_methods.py` binds the first five as Tensor methods.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use vkml_core::api::gather;

use crate::convert::{scalar, type_name, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
pub fn _gather(t: PyRef<'_, Tensor>, dim: i64, index: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(gather::gather(&t.0, dim, &index.0).py()?))
}

/// `scatter(dim, index, src)` or `scatter(dim, index, value)`; `reduce="add"` is scatter_add, as torch's
/// deprecated argument.
#[pyfunction]
#[pyo3(signature = (t, dim, index, src, add, reduce = None))]
pub fn _scatter(
    t: PyRef<'_, Tensor>,
    dim: i64,
    index: PyRef<'_, Tensor>,
    src: &Bound<'_, PyAny>,
    add: bool,
    reduce: Option<&str>,
) -> PyResult<Tensor> {
    let add = match reduce {
        None => add,
        Some("add") => true,
        Some(r) => {
            return Err(PyValueError::new_err(format!(
                "scatter(): reduce={r:?} is not supported (None and \"add\" are; scatter_reduce is not implemented)"
            )))
        }
    };
    let src = match src.extract::<PyRef<'_, Tensor>>() {
        Ok(s) => s.0.clone(),
        Err(_) => {
            let v = scalar(src).ok_or_else(|| {
                PyTypeError::new_err(format!("scatter(): src must be a Tensor or a number, not {}", type_name(src)))
            })?;
            gather::scatter_value(&t.0, &index.0, v).py()?
        }
    };
    Ok(Tensor(gather::scatter(&t.0, dim, &index.0, &src, add).py()?))
}

#[pyfunction]
pub fn _index_select(t: PyRef<'_, Tensor>, dim: i64, index: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(gather::index_select(&t.0, dim, &index.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (t, indices, dim = None))]
pub fn _take_along_dim(t: PyRef<'_, Tensor>, indices: PyRef<'_, Tensor>, dim: Option<i64>) -> PyResult<Tensor> {
    Ok(Tensor(gather::take_along_dim(&t.0, &indices.0, dim).py()?))
}

/// `F.embedding(input, weight, padding_idx=None)`; `max_norm` (which renormalizes the weight in place) is not
/// implemented and says so.
#[pyfunction]
#[pyo3(signature = (input, weight, padding_idx = None, max_norm = None, norm_type = 2.0, scale_grad_by_freq = false, sparse = false))]
pub fn embedding(
    input: PyRef<'_, Tensor>,
    weight: PyRef<'_, Tensor>,
    padding_idx: Option<i64>,
    max_norm: Option<f64>,
    norm_type: f64,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> PyResult<Tensor> {
    let _ = norm_type;
    if max_norm.is_some() || scale_grad_by_freq || sparse {
        return Err(PyValueError::new_err(
            "embedding(): max_norm, scale_grad_by_freq and sparse are not supported (dense gradients only)",
        ));
    }
    Ok(Tensor(gather::embedding(&input.0, &weight.0, padding_idx).py()?))
}
