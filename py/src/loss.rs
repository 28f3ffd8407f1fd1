//! The elementwise losses for Python (`vkml.nn.functional`): l1, smooth_l1, huber, binary cross-entropy on
//! probabilities and on logits, and kl_div, with torch's arguments (the deprecated `size_average`/`reduce` aside).

use pyo3::prelude::*;

use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::{self, KlReduction};

use crate::convert::OrPy;
use crate::pytensor::Tensor;

fn red(reduction: &str) -> PyResult<Reduction> {
    Reduction::parse(reduction).py()
}

#[pyfunction]
#[pyo3(signature = (input, target, reduction = "mean"))]
pub fn l1_loss(input: PyRef<'_, Tensor>, target: PyRef<'_, Tensor>, reduction: &str) -> PyResult<Tensor> {
    Ok(Tensor(loss::l1_loss(&input.0, &target.0, red(reduction)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, target, reduction = "mean", beta = 1.0))]
pub fn smooth_l1_loss(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    reduction: &str,
    beta: f64,
) -> PyResult<Tensor> {
    Ok(Tensor(loss::smooth_l1_loss(&input.0, &target.0, red(reduction)?, beta).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, target, reduction = "mean", delta = 1.0))]
pub fn huber_loss(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    reduction: &str,
    delta: f64,
) -> PyResult<Tensor> {
    Ok(Tensor(loss::huber_loss(&input.0, &target.0, red(reduction)?, delta).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, target, weight = None, reduction = "mean"))]
pub fn binary_cross_entropy(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    weight: Option<PyRef<'_, Tensor>>,
    reduction: &str,
) -> PyResult<Tensor> {
    let w = weight.map(|w| w.0.clone());
    Ok(Tensor(loss::binary_cross_entropy(&input.0, &target.0, w.as_ref(), red(reduction)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, target, weight = None, reduction = "mean", pos_weight = None))]
pub fn binary_cross_entropy_with_logits(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    weight: Option<PyRef<'_, Tensor>>,
    reduction: &str,
    pos_weight: Option<PyRef<'_, Tensor>>,
) -> PyResult<Tensor> {
    let (w, p) = (weight.map(|w| w.0.clone()), pos_weight.map(|p| p.0.clone()));
    let r = red(reduction)?;
    Ok(Tensor(loss::binary_cross_entropy_with_logits(&input.0, &target.0, w.as_ref(), r, p.as_ref()).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, target, reduction = "mean", log_target = false))]
pub fn kl_div(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    reduction: &str,
    log_target: bool,
) -> PyResult<Tensor> {
    let r = KlReduction::parse(reduction).py()?;
    Ok(Tensor(loss::kl_div(&input.0, &target.0, r, log_target).py()?))
}
