//! `vkml.nn.functional` entry points: thin wrappers over `vkml_core::api::nn`, where the math lives.

use pyo3::prelude::*;

use vkml_core::nn::conv::{self, Padding};
use vkml_core::nn::functional as nn;
use vkml_core::nn::norm;

use crate::convert::{int_list, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
pub fn sigmoid(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
    Ok(Tensor(nn::sigmoid(&input.0).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, dtype = None))]
pub fn softmax(input: PyRef<'_, Tensor>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let x = with_dtype(&input, dtype)?;
    Ok(Tensor(nn::softmax(&x, dim).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, dtype = None))]
pub fn log_softmax(input: PyRef<'_, Tensor>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    let x = with_dtype(&input, dtype)?;
    Ok(Tensor(nn::log_softmax(&x, dim).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, dim, keepdim = false))]
pub fn logsumexp(input: PyRef<'_, Tensor>, dim: &Bound<'_, PyAny>, keepdim: bool) -> PyResult<Tensor> {
    Ok(Tensor(nn::logsumexp(&input.0, &int_list(dim)?, keepdim).py()?))
}

/// An int or a pair of ints (torch's `_pair`).
fn pair(ob: &Bound<'_, PyAny>, name: &str) -> PyResult<[usize; 2]> {
    if let Ok(v) = ob.extract::<usize>() {
        return Ok([v, v]);
    }
    let v = int_list(ob)?;
    match v.as_slice() {
        [a, b] if *a >= 0 && *b >= 0 => Ok([*a as usize, *b as usize]),
        _ => {
            Err(pyo3::exceptions::PyValueError::new_err(format!("{name} must be an int or a pair of ints, got {v:?}")))
        }
    }
}

/// `pair` of an optional argument; absent or None gives `default` (a pool's stride defaults to its kernel).
fn pair_or(ob: Option<&Bound<'_, PyAny>>, name: &str, default: [usize; 2]) -> PyResult<[usize; 2]> {
    match ob {
        Some(o) if !o.is_none() => pair(o, name),
        _ => Ok(default),
    }
}

/// An int or a one-element sequence (torch's `_single`).
fn single(ob: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    if let Ok(v) = ob.extract::<usize>() {
        return Ok(v);
    }
    match int_list(ob)?.as_slice() {
        [a] if *a >= 0 => Ok(*a as usize),
        v => Err(pyo3::exceptions::PyValueError::new_err(format!("{name} must be an int or a 1-tuple, got {v:?}"))),
    }
}

/// `padding` of a convolution: "same", "valid", or explicit amounts read by `explicit`.
fn conv_padding(
    padding: Option<&Bound<'_, PyAny>>,
    explicit: impl Fn(&Bound<'_, PyAny>) -> PyResult<[usize; 2]>,
) -> PyResult<Padding> {
    let Some(p) = padding else { return Ok(Padding::Explicit([0, 0])) };
    match p.extract::<String>() {
        Ok(s) if s == "same" => Ok(Padding::Same),
        Ok(s) if s == "valid" => Ok(Padding::Valid),
        Ok(s) => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "Invalid padding string '{s}', should be one of {{'valid', 'same'}}"
        ))),
        Err(_) => Ok(Padding::Explicit(explicit(p)?)),
    }
}

#[pyfunction]
#[pyo3(signature = (input, weight, bias = None, stride = None, padding = None, output_padding = None, groups = 1, dilation = None))]
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose2d(
    input: PyRef<'_, Tensor>,
    weight: PyRef<'_, Tensor>,
    bias: Option<PyRef<'_, Tensor>>,
    stride: Option<&Bound<'_, PyAny>>,
    padding: Option<&Bound<'_, PyAny>>,
    output_padding: Option<&Bound<'_, PyAny>>,
    groups: usize,
    dilation: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let (s, d) = (pair_or(stride, "stride", [1, 1])?, pair_or(dilation, "dilation", [1, 1])?);
    let (p, op) = (pair_or(padding, "padding", [0, 0])?, pair_or(output_padding, "output_padding", [0, 0])?);
    let b = bias.as_ref().map(|b| &b.0);
    Ok(Tensor(vkml_core::nn::conv_transpose::conv_transpose2d(&input.0, &weight.0, b, s, p, op, groups, d).py()?))
}

/// An argument read as a 2-d (`pair_or`, default 1) or 1-d (`single`, default 1) convolution takes it.
fn pair_arg(ob: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<[usize; 2]> {
    pair_or(ob, name, [1, 1])
}

fn single_arg(ob: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<usize> {
    ob.filter(|o| !o.is_none()).map_or(Ok(1), |o| single(o, name))
}

/// conv1d and conv2d with torch's signature: `$arg` reads stride and dilation, `$pad` explicit padding.
macro_rules! conv {
    ($name:ident, $conv:path, $arg:ident, $pad:expr) => {
        #[pyfunction]
        #[pyo3(signature = (input, weight, bias = None, stride = None, padding = None, dilation = None, groups = 1))]
        pub fn $name(
            input: PyRef<'_, Tensor>,
            weight: PyRef<'_, Tensor>,
            bias: Option<PyRef<'_, Tensor>>,
            stride: Option<&Bound<'_, PyAny>>,
            padding: Option<&Bound<'_, PyAny>>,
            dilation: Option<&Bound<'_, PyAny>>,
            groups: usize,
        ) -> PyResult<Tensor> {
            let pad = conv_padding(padding, $pad)?;
            let (s, d) = ($arg(stride, "stride")?, $arg(dilation, "dilation")?);
            let b = bias.as_ref().map(|b| &b.0);
            Ok(Tensor($conv(&input.0, &weight.0, b, s, pad, d, groups).py()?))
        }
    };
}
conv!(conv2d, conv::conv2d, pair_arg, |p| pair(p, "padding"));
conv!(conv1d, conv::conv1d, single_arg, |p| Ok([0, single(p, "padding")?]));

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride = None, padding = None, dilation = None, ceil_mode = false,
                    return_indices = false))]
#[allow(clippy::too_many_arguments)]
pub fn max_pool2d<'py>(
    py: Python<'py>,
    input: PyRef<'py, Tensor>,
    kernel_size: &Bound<'py, PyAny>,
    stride: Option<&Bound<'py, PyAny>>,
    padding: Option<&Bound<'py, PyAny>>,
    dilation: Option<&Bound<'py, PyAny>>,
    ceil_mode: bool,
    return_indices: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let k = pair(kernel_size, "kernel_size")?;
    let (s, p) = (pair_or(stride, "stride", k)?, pair_or(padding, "padding", [0, 0])?);
    let d = pair_or(dilation, "dilation", [1, 1])?;
    match conv::max_pool2d(&input.0, k, s, p, d, ceil_mode, return_indices).py()? {
        (v, Some(i)) => Ok((Tensor(v), Tensor(i)).into_pyobject(py)?.into_any()),
        (v, None) => Ok(Bound::new(py, Tensor(v))?.into_any()),
    }
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride = None, padding = None))]
pub fn avg_pool2d(
    input: PyRef<'_, Tensor>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Option<&Bound<'_, PyAny>>,
    padding: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let k = pair(kernel_size, "kernel_size")?;
    let (s, p) = (pair_or(stride, "stride", k)?, pair_or(padding, "padding", [0, 0])?);
    Ok(Tensor(conv::avg_pool2d(&input.0, k, s, p).py()?))
}

#[pyfunction]
pub fn adaptive_avg_pool2d(input: PyRef<'_, Tensor>, output_size: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    Ok(Tensor(conv::adaptive_avg_pool2d(&input.0, pair(output_size, "output_size")?).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, running_mean, running_var, weight = None, bias = None, training = false, momentum = 0.1,
                    eps = 1e-5))]
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    py: Python<'_>,
    input: PyRef<'_, Tensor>,
    running_mean: Option<PyRef<'_, Tensor>>,
    running_var: Option<PyRef<'_, Tensor>>,
    weight: Option<PyRef<'_, Tensor>>,
    bias: Option<PyRef<'_, Tensor>>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> PyResult<Tensor> {
    let c = |t: &Option<PyRef<'_, Tensor>>| t.as_ref().map(|t| t.0.clone());
    let (rm, rv, w, b) = (c(&running_mean), c(&running_var), c(&weight), c(&bias));
    let x = input.0.clone();
    let out =
        py.detach(|| norm::batch_norm(&x, rm.as_ref(), rv.as_ref(), w.as_ref(), b.as_ref(), training, momentum, eps));
    Ok(Tensor(out.py()?))
}

#[pyfunction]
#[pyo3(signature = (input, normalized_shape, weight = None, bias = None, eps = 1e-5))]
pub fn layer_norm(
    input: PyRef<'_, Tensor>,
    normalized_shape: &Bound<'_, PyAny>,
    weight: Option<PyRef<'_, Tensor>>,
    bias: Option<PyRef<'_, Tensor>>,
    eps: f64,
) -> PyResult<Tensor> {
    let shape = crate::convert::sizes(&int_list(normalized_shape)?)?;
    let (w, b) = (weight.as_ref().map(|t| &t.0), bias.as_ref().map(|t| &t.0));
    Ok(Tensor(norm::layer_norm(&input.0, &shape, w, b, eps).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, num_groups, weight = None, bias = None, eps = 1e-5))]
pub fn group_norm(
    input: PyRef<'_, Tensor>,
    num_groups: usize,
    weight: Option<PyRef<'_, Tensor>>,
    bias: Option<PyRef<'_, Tensor>>,
    eps: f64,
) -> PyResult<Tensor> {
    let (w, b) = (weight.as_ref().map(|t| &t.0), bias.as_ref().map(|t| &t.0));
    Ok(Tensor(norm::group_norm(&input.0, num_groups, w, b, eps).py()?))
}

/// torch's `dtype=` of the softmax family: the input is cast first.
fn with_dtype(input: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<vkml_core::api::Tensor> {
    match crate::convert::opt_dtype(dtype)? {
        Some(d) => input.0.to_dtype(d).py(),
        None => Ok(input.0.clone()),
    }
}

#[pyfunction]
#[pyo3(signature = (tensor, num_classes = -1), text_signature = "(tensor, num_classes=-1)")]
pub fn one_hot(tensor: PyRef<'_, Tensor>, num_classes: i64) -> PyResult<Tensor> {
    Ok(Tensor(nn::one_hot(&tensor.0, num_classes).py()?))
}
