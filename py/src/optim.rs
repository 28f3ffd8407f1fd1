//! Optimizer steps for `vkml.optim`: the Python classes keep param groups and state; the update math is
//! `vkml_core::optim`.

use pyo3::prelude::*;

use vkml_core::nn::optim::{self, Adagrad, AdagradState, Adam, AdamState, RmsProp, RmsPropState, Sgd};

use crate::convert::OrPy;
use crate::pytensor::Tensor;

type Opt = Option<Tensor>;
type OptIn<'py> = Option<PyRef<'py, Tensor>>;
/// (steps, exp_avg, exp_avg_sq, max_exp_avg_sq) after an Adam step.
type AdamOut = (Vec<u64>, Vec<Opt>, Vec<Opt>, Vec<Opt>);

fn core(ts: &[PyRef<'_, Tensor>]) -> Vec<vkml_core::api::Tensor> {
    ts.iter().map(|t| t.0.clone()).collect()
}

/// One SGD step; returns the momentum buffers.
#[pyfunction]
#[pyo3(signature = (params, bufs, *, lr, momentum, dampening, weight_decay, nesterov, maximize))]
#[allow(clippy::too_many_arguments)]
pub fn sgd_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, Tensor>>,
    bufs: Vec<OptIn<'_>>,
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    maximize: bool,
) -> PyResult<Vec<Opt>> {
    let h = Sgd { lr, momentum, dampening, weight_decay, nesterov, maximize };
    let ps = core(&params);
    let mut bs: Vec<_> = bufs.into_iter().map(|b| b.map(|b| b.0.clone())).collect();
    py.detach(|| optim::sgd_step(&h, &ps, &mut bs)).py()?;
    Ok(bs.into_iter().map(|b| b.map(Tensor)).collect())
}

/// One Adam/AdamW step; returns (steps, exp_avg, exp_avg_sq, max_exp_avg_sq).
#[pyfunction]
#[pyo3(signature = (params, steps, exp_avg, exp_avg_sq, max_exp_avg_sq, *, lr, beta1, beta2, eps, weight_decay,
                    amsgrad, maximize, decoupled))]
#[allow(clippy::too_many_arguments)]
pub fn adam_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, Tensor>>,
    steps: Vec<u64>,
    exp_avg: Vec<OptIn<'_>>,
    exp_avg_sq: Vec<OptIn<'_>>,
    max_exp_avg_sq: Vec<OptIn<'_>>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    amsgrad: bool,
    maximize: bool,
    decoupled: bool,
) -> PyResult<AdamOut> {
    let n = params.len();
    if [steps.len(), exp_avg.len(), exp_avg_sq.len(), max_exp_avg_sq.len()].iter().any(|&l| l != n) {
        return Err(pyo3::exceptions::PyValueError::new_err("adam_step: one state entry per parameter"));
    }
    let h = Adam { lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled };
    let ps = core(&params);
    let mut st: Vec<AdamState> = (0..n)
        .map(|i| AdamState {
            step: steps[i],
            exp_avg: exp_avg[i].as_ref().map(|t| t.0.clone()),
            exp_avg_sq: exp_avg_sq[i].as_ref().map(|t| t.0.clone()),
            max_exp_avg_sq: max_exp_avg_sq[i].as_ref().map(|t| t.0.clone()),
        })
        .collect();
    py.detach(|| optim::adam_step(&h, &ps, &mut st)).py()?;
    let wrap = |x: Option<vkml_core::api::Tensor>| x.map(Tensor);
    Ok((
        st.iter().map(|s| s.step).collect(),
        st.iter().map(|s| wrap(s.exp_avg.clone())).collect(),
        st.iter().map(|s| wrap(s.exp_avg_sq.clone())).collect(),
        st.iter().map(|s| wrap(s.max_exp_avg_sq.clone())).collect(),
    ))
}

/// (square_avg, grad_avg, momentum_buffer) after an RMSprop step.
type RmsOut = (Vec<Opt>, Vec<Opt>, Vec<Opt>);

fn opt_in(v: &[OptIn<'_>]) -> Vec<Option<vkml_core::api::Tensor>> {
    v.iter().map(|t| t.as_ref().map(|t| t.0.clone())).collect()
}

/// One RMSprop step; returns the state tensors.
#[pyfunction]
#[pyo3(signature = (params, square_avg, grad_avg, momentum_buffer, *, lr, alpha, eps, weight_decay, momentum,
                    centered, maximize))]
#[allow(clippy::too_many_arguments)]
pub fn rmsprop_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, Tensor>>,
    square_avg: Vec<OptIn<'_>>,
    grad_avg: Vec<OptIn<'_>>,
    momentum_buffer: Vec<OptIn<'_>>,
    lr: f64,
    alpha: f64,
    eps: f64,
    weight_decay: f64,
    momentum: f64,
    centered: bool,
    maximize: bool,
) -> PyResult<RmsOut> {
    let n = params.len();
    if [square_avg.len(), grad_avg.len(), momentum_buffer.len()].iter().any(|&l| l != n) {
        return Err(pyo3::exceptions::PyValueError::new_err("rmsprop_step: one state entry per parameter"));
    }
    let h = RmsProp { lr, alpha, eps, weight_decay, momentum, centered, maximize };
    let (sq, ga, mb) = (opt_in(&square_avg), opt_in(&grad_avg), opt_in(&momentum_buffer));
    let mut st: Vec<RmsPropState> = (0..n)
        .map(|i| RmsPropState { square_avg: sq[i].clone(), grad_avg: ga[i].clone(), momentum_buffer: mb[i].clone() })
        .collect();
    let ps = core(&params);
    py.detach(|| optim::rmsprop_step(&h, &ps, &mut st)).py()?;
    let wrap = |x: &Option<vkml_core::api::Tensor>| x.clone().map(Tensor);
    Ok((
        st.iter().map(|s| wrap(&s.square_avg)).collect(),
        st.iter().map(|s| wrap(&s.grad_avg)).collect(),
        st.iter().map(|s| wrap(&s.momentum_buffer)).collect(),
    ))
}

/// One Adagrad step; returns (steps, sums).
#[pyfunction]
#[pyo3(signature = (params, steps, sums, *, lr, lr_decay, weight_decay, eps, initial_accumulator_value, maximize))]
#[allow(clippy::too_many_arguments)]
pub fn adagrad_step(
    py: Python<'_>,
    params: Vec<PyRef<'_, Tensor>>,
    steps: Vec<u64>,
    sums: Vec<OptIn<'_>>,
    lr: f64,
    lr_decay: f64,
    weight_decay: f64,
    eps: f64,
    initial_accumulator_value: f64,
    maximize: bool,
) -> PyResult<(Vec<u64>, Vec<Opt>)> {
    if steps.len() != params.len() || sums.len() != params.len() {
        return Err(pyo3::exceptions::PyValueError::new_err("adagrad_step: one state entry per parameter"));
    }
    let h = Adagrad { lr, lr_decay, weight_decay, eps, initial_accumulator_value, maximize };
    let sm = opt_in(&sums);
    let mut st: Vec<AdagradState> = steps.iter().zip(sm).map(|(&step, sum)| AdagradState { step, sum }).collect();
    let ps = core(&params);
    py.detach(|| optim::adagrad_step(&h, &ps, &mut st)).py()?;
    Ok((st.iter().map(|s| s.step).collect(), st.iter().map(|s| s.sum.clone().map(Tensor)).collect()))
}
