//! Random ops for Python: randint, normal, bernoulli, randperm, multinomial and empty (`vkml/_random.py` gives them torch's
//! overloaded signatures).

use pyo3::prelude::*;

use vkml_core::api::random;
use vkml_core::base::dtype::DType;

use crate::convert::{opt_device, opt_dtype, sizes, OrPy};
use crate::pytensor::{operand_or_err, Tensor};

#[pyfunction]
#[pyo3(signature = (low, high, size, dtype = None, device = None))]
pub fn _randint(
    low: i64,
    high: i64,
    size: Vec<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let dt = opt_dtype(dtype)?.unwrap_or(DType::I64);
    Ok(Tensor(random::randint(low, high, &sizes(&size)?, dt, opt_device(device)?).py()?))
}

/// `normal(mean, std, size)`: mean and std tensors or numbers; size only when both are numbers.
#[pyfunction]
#[pyo3(signature = (mean, std, size = None, dtype = None, device = None))]
pub fn _normal(
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    size: Option<Vec<i64>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let (m, s) = (operand_or_err(mean)?, operand_or_err(std)?);
    let shape = size.map(|v| sizes(&v)).transpose()?;
    // A tensor argument decides the device; otherwise the one asked for.
    let dev = [&m, &s].iter().find_map(|o| {
        if let vkml_core::tensor::promote::Operand::Tensor(t) = o {
            Some(t.device())
        } else {
            None
        }
    });
    let dev = match dev {
        Some(d) => d,
        None => opt_device(device)?,
    };
    let dt = opt_dtype(dtype)?.unwrap_or(DType::F32);
    Ok(Tensor(random::normal(&m, &s, shape.as_deref(), dt, dev).py()?))
}

#[pyfunction]
pub fn _bernoulli(p: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(random::bernoulli(&p.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (n, dtype = None, device = None))]
pub fn _randperm(n: i64, dtype: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let dt = opt_dtype(dtype)?.unwrap_or(DType::I64);
    Ok(Tensor(random::randperm(n, dt, opt_device(device)?).py()?))
}

#[pyfunction]
pub fn _multinomial(probs: PyRef<'_, Tensor>, num_samples: i64, replacement: bool) -> PyResult<Tensor> {
    Ok(Tensor(random::multinomial(&probs.0, num_samples, replacement).py()?))
}

#[pyfunction]
#[pyo3(signature = (size, dtype = None, device = None))]
pub fn _empty(size: Vec<i64>, dtype: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let dt = opt_dtype(dtype)?.unwrap_or(DType::F32);
    Ok(Tensor(random::empty(&sizes(&size)?, dt, opt_device(device)?).py()?))
}
