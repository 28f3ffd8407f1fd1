//! Autograd entry points: `vkml.backward`, grad mode, and what `Tensor.grad_fn` returns. The engine is
//! `vkml_core::autograd`; the Tensor methods (`backward`, `grad`, `requires_grad_`) live with the Tensor class.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use vkml_core::api::Tensor as Core;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// What `Tensor.grad_fn` returns: the name of the recorded backward step (`MulBackward0`).
#[pyclass(name = "GradFn", module = "vkml", frozen)]
pub struct GradNode(pub String);

#[pymethods]
impl GradNode {
    fn name(&self) -> String {
        self.0.clone()
    }
    fn __repr__(&self) -> String {
        format!("<{}>", self.0)
    }
}

/// torch's `backward(inputs=...)`: one tensor or a sequence of them; `None` when not given.
pub fn inputs_arg(inputs: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Core>>> {
    match inputs {
        Some(ob) if !ob.is_none() => match ob.extract::<PyRef<'_, Tensor>>() {
            Ok(t) => Ok(Some(vec![t.0.clone()])),
            Err(_) => Ok(Some(crate::tensor_list(ob)?)),
        },
        _ => Ok(None),
    }
}

/// `vkml.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)`, as
/// `torch.autograd.backward`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors = None, retain_graph = None, create_graph = false, inputs = None))]
pub fn backward(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    if create_graph {
        return Err(PyRuntimeError::new_err("create_graph=True (higher-order gradients) is not supported"));
    }
    let inputs = inputs_arg(inputs)?;
    let one_or_many = |ob: &Bound<'_, PyAny>| match ob.extract::<PyRef<'_, Tensor>>() {
        Ok(t) => Ok(vec![t.0.clone()]),
        Err(_) => crate::tensor_list(ob),
    };
    let outs = one_or_many(tensors)?;
    let grads: Vec<Option<Core>> = match grad_tensors {
        Some(g) if !g.is_none() => {
            let gs = one_or_many(g)?;
            if gs.len() != outs.len() {
                return Err(PyRuntimeError::new_err(format!("got {} tensors and {} gradients", outs.len(), gs.len())));
            }
            gs.into_iter().map(Some).collect()
        }
        _ => vec![None; outs.len()],
    };
    let roots: Vec<(Core, Option<Core>)> = outs.into_iter().zip(grads).collect();
    py.detach(|| vkml_core::autograd::backward(&roots, retain_graph.unwrap_or(false), inputs.as_deref())).py()
}

#[pyfunction]
pub fn is_grad_enabled() -> bool {
    vkml_core::tensor::grad::is_grad_enabled()
}

/// Set grad mode for this thread; returns the previous mode (the `no_grad` context manager restores it).
#[pyfunction]
pub fn set_grad_enabled(on: bool) -> bool {
    vkml_core::tensor::grad::set_grad_enabled(on)
}
