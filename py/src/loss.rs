//! Binary cross-entropy for Python (`vkml.nn.functional`), on probabilities and on logits, with its optional weight
//! tensors (the losses with options only are `described.rs`'s; `size_average`/`reduce` are the Python layer's).

use pyo3::prelude::*;

use vkml_core::nn::loss;

use crate::convert::{parse_reduction, OrPy};
use crate::pytensor::Tensor;

#[pyfunction]
#[pyo3(signature = (input, target, weight = None, reduction = "mean"))]
pub fn binary_cross_entropy(
    input: PyRef<'_, Tensor>,
    target: PyRef<'_, Tensor>,
    weight: Option<PyRef<'_, Tensor>>,
    reduction: &str,
) -> PyResult<Tensor> {
    let w = weight.map(|w| w.0.clone());
    Ok(Tensor(loss::binary_cross_entropy(&input.0, &target.0, w.as_ref(), parse_reduction(reduction)?).py()?))
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
    let r = parse_reduction(reduction)?;
    Ok(Tensor(loss::binary_cross_entropy_with_logits(&input.0, &target.0, w.as_ref(), r, p.as_ref()).py()?))
}
