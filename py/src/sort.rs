//! Sorting for Python: argsort, sort and topk, which `vkml/_methods.py` binds as Tensor methods (sort and topk
//! returning torch's (values, indices) named tuples).

use pyo3::prelude::*;

use vkml_core::api::sort;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

#[pyfunction]
pub fn _argsort(t: PyRef<'_, Tensor>, dim: i64, descending: bool) -> PyResult<Tensor> {
    Ok(Tensor(sort::argsort(&t.0, dim, descending).py()?))
}

#[pyfunction]
pub fn _sort(t: PyRef<'_, Tensor>, dim: i64, descending: bool) -> PyResult<(Tensor, Tensor)> {
    let (v, i) = sort::sort(&t.0, dim, descending).py()?;
    Ok((Tensor(v), Tensor(i)))
}

#[pyfunction]
pub fn _topk(t: PyRef<'_, Tensor>, k: i64, dim: i64, largest: bool) -> PyResult<(Tensor, Tensor)> {
    let (v, i) = sort::topk(&t.0, k, dim, largest).py()?;
    Ok((Tensor(v), Tensor(i)))
}
