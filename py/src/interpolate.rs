//! `nn.functional.interpolate` for Python: nearest, linear (3-d) and bilinear (4-d).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use vkml_core::nn::interpolate::{interpolate as core_interpolate, Mode};

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// An int or a sequence of them, one per spatial dim.
fn sizes(ob: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<usize>> {
    match ob.extract::<usize>() {
        Ok(v) => Ok(vec![v; n]),
        Err(_) => ob.extract::<Vec<usize>>(),
    }
}

/// A number or a sequence of them, one per spatial dim.
fn factors(ob: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f64>> {
    match ob.extract::<f64>() {
        Ok(v) => Ok(vec![v; n]),
        Err(_) => ob.extract::<Vec<f64>>(),
    }
}

#[pyfunction]
#[pyo3(signature = (input, size = None, scale_factor = None, mode = "nearest", align_corners = None, recompute_scale_factor = None, antialias = false))]
pub fn interpolate(
    input: PyRef<'_, Tensor>,
    size: Option<&Bound<'_, PyAny>>,
    scale_factor: Option<&Bound<'_, PyAny>>,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> PyResult<Tensor> {
    let n = input.0.ndim().saturating_sub(2);
    let m = match (mode, n) {
        ("nearest", _) => Mode::Nearest,
        ("linear", 1) | ("bilinear", 2) => Mode::Linear,
        _ => {
            return Err(PyValueError::new_err(format!(
                "interpolate: mode {mode:?} is not supported for {}-d input (nearest for 3-d and 4-d, linear for 3-d, \
                 bilinear for 4-d)",
                input.0.ndim()
            )))
        }
    };
    if antialias {
        return Err(PyValueError::new_err("interpolate: antialias=True is not supported"));
    }
    if m == Mode::Nearest && align_corners.is_some() {
        return Err(PyValueError::new_err(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
        ));
    }
    let size: Option<Vec<usize>> = size.filter(|s| !s.is_none()).map(|s| sizes(s, n)).transpose()?;
    let mut scale: Option<Vec<f64>> = scale_factor.filter(|s| !s.is_none()).map(|s| factors(s, n)).transpose()?;
    let mut size = size;
    // recompute_scale_factor: the output size from the factor, then the scale from the sizes.
    if recompute_scale_factor == Some(true) {
        if let Some(f) = scale.take() {
            size = Some(input.0.shape()[2..].iter().zip(&f).map(|(&i, &s)| (i as f64 * s).floor() as usize).collect());
        }
    }
    let r = core_interpolate(&input.0, size.as_deref(), scale.as_deref(), m, align_corners.unwrap_or(false));
    Ok(Tensor(r.py()?))
}
