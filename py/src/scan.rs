//! cumsum, cumprod and prod for Python (bound as Tensor methods by `vkml/_methods.py`), with torch's `dtype=`.

use pyo3::prelude::*;

use vkml_core::api::scan;

use crate::convert::{opt_dtype, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
#[pyo3(signature = (t, dim, prod, dtype = None))]
pub fn _cumulative(t: PyRef<'_, Tensor>, dim: i64, prod: bool, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let dt = opt_dtype(dtype)?;
    let r = if prod { scan::cumprod(&t.0, dim, dt) } else { scan::cumsum(&t.0, dim, dt) };
    Ok(Tensor(r.py()?))
}

#[pyfunction]
#[pyo3(signature = (t, dim = None, keepdim = false, dtype = None))]
pub fn _prod(
    t: PyRef<'_, Tensor>,
    dim: Option<i64>,
    keepdim: bool,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    Ok(Tensor(t.0.prod(dim, keepdim, opt_dtype(dtype)?).py()?))
}
