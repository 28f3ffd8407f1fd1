//! `vkml.optim`'s entries into Rust: a param group's options are read from its dict by torch's names and its
//! parameters' state from and back into their dicts in `optimizer.state` (torch's layout); the rule, its checks and
//! its math are `vkml_core::nn::optimizer`, the learning-rate schedules `vkml_core::nn::schedule`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use vkml_core::nn::optim::State;
use vkml_core::nn::optimizer::{Options, Rule};
use vkml_core::nn::schedule::{CycleGroup, OneCycle, Schedule};
use vkml_core::util::error::{Error, Result as CoreResult};

use crate::convert::{type_name, OrPy};
use crate::pytensor::Tensor;

/// A param group's dict as `Options`.
struct Group<'a, 'py>(&'a Bound<'py, PyDict>);

impl<'py> Group<'_, 'py> {
    fn get<T: for<'x> FromPyObject<'x, 'py>>(&self, key: &str, what: &str) -> CoreResult<Option<T>> {
        let value = self.0.get_item(key).map_err(|e| Error::Value(e.to_string()))?;
        match value {
            Some(v) if !v.is_none() => v
                .extract::<T>()
                .map(Some)
                .map_err(|_| Error::Value(format!("option '{key}' must be {what}, got {}", type_name(&v)))),
            _ => Ok(None),
        }
    }
}

impl Options for Group<'_, '_> {
    fn number(&self, key: &str) -> CoreResult<Option<f64>> {
        self.get(key, "a number")
    }
    fn flag(&self, key: &str) -> CoreResult<Option<bool>> {
        self.get(key, "a bool")
    }
    fn pair(&self, key: &str) -> CoreResult<Option<(f64, f64)>> {
        self.get(key, "a pair of numbers")
    }
    fn numbers(&self, key: &str) -> CoreResult<Option<Vec<f64>>> {
        self.get(key, "a list of numbers")
    }
    fn text(&self, key: &str) -> CoreResult<Option<String>> {
        self.get(key, "a string")
    }
}

/// A parameter's state dict as `State`: `step` (an int, or a one-element tensor as torch stores it) and tensors.
fn read_state(d: &Bound<'_, PyDict>) -> PyResult<State> {
    let mut st = State::default();
    for (k, v) in d.iter() {
        let name: String = k.extract()?;
        if name == "step" {
            st.step = v.call_method0("__int__")?.extract()?;
        } else if let Ok(t) = v.extract::<PyRef<'_, Tensor>>() {
            st.tensors.push((name, t.0.clone()));
        }
    }
    Ok(st)
}

/// Write a step's new state into the dict: the count, and the tensors made by this step (the others were
/// updated in place, so their Python objects stay).
fn write_state(d: &Bound<'_, PyDict>, st: State) -> PyResult<()> {
    if st.step > 0 {
        d.set_item("step", st.step)?;
    }
    for (name, t) in st.tensors {
        if !d.contains(&name)? {
            d.set_item(name, Tensor(t))?;
        }
    }
    Ok(())
}

/// Check a group's options for optimizer `kind` as torch's constructor does (ValueError with torch's message).
#[pyfunction]
pub fn optimizer_check(kind: &str, group: &Bound<'_, PyDict>) -> PyResult<()> {
    Rule::new(kind, &Group(group)).py().map(|_| ())
}

/// One step of a param group: `params` with their state dicts, updated in place and realized.
#[pyfunction]
pub fn optimizer_step(
    py: Python<'_>,
    kind: &str,
    group: &Bound<'_, PyDict>,
    params: Vec<PyRef<'_, Tensor>>,
    states: Vec<Bound<'_, PyDict>>,
) -> PyResult<()> {
    let rule = Rule::new(kind, &Group(group)).py()?;
    let mut st: Vec<State> = states.iter().map(read_state).collect::<PyResult<_>>()?;
    let ps: Vec<_> = params.iter().map(|p| p.0.clone()).collect();
    py.detach(|| rule.step(&ps, &mut st)).py()?;
    states.iter().zip(st).try_for_each(|(d, s)| write_state(d, s))
}

/// A schedule's rate at step `epoch` for a group whose base rate is `base` (StepLR, MultiStepLR, ExponentialLR,
/// CosineAnnealingLR with their options by torch's names).
#[pyfunction]
pub fn schedule_lr(kind: &str, options: &Bound<'_, PyDict>, base: f64, epoch: f64) -> PyResult<f64> {
    Schedule::new(kind, &Group(options)).py()?.lr(base, epoch).py()
}

fn one_cycle(options: &Bound<'_, PyDict>) -> PyResult<OneCycle> {
    match Schedule::new("OneCycleLR", &Group(options)).py()? {
        Schedule::OneCycle(c) => Ok(c),
        _ => Err(pyo3::exceptions::PyRuntimeError::new_err("OneCycleLR: not a one-cycle schedule")),
    }
}

/// OneCycleLR's values of a group, (initial_lr, max_lr, min_lr, max_momentum, base_momentum), from its max_lr and
/// momentum bounds; checks the options as torch's constructor does.
#[pyfunction]
pub fn one_cycle_group(
    options: &Bound<'_, PyDict>,
    max_lr: f64,
    base_momentum: f64,
    max_momentum: f64,
) -> PyResult<(f64, f64, f64, f64, f64)> {
    let g = one_cycle(options)?.group(max_lr, base_momentum, max_momentum);
    Ok((g.initial_lr, g.max_lr, g.min_lr, g.max_momentum, g.base_momentum))
}

/// OneCycleLR's (rate, momentum) at `step` for a param group holding the values `one_cycle_group` gave.
#[pyfunction]
pub fn one_cycle_at(options: &Bound<'_, PyDict>, group: &Bound<'_, PyDict>, step: f64) -> PyResult<(f64, f64)> {
    let g = Group(group);
    let value = |k: &str| -> PyResult<f64> {
        g.number(k).py()?.ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(k.to_string()))
    };
    let cg = CycleGroup {
        initial_lr: value("initial_lr")?,
        max_lr: value("max_lr")?,
        min_lr: value("min_lr")?,
        max_momentum: g.number("max_momentum").py()?.unwrap_or(0.0),
        base_momentum: g.number("base_momentum").py()?.unwrap_or(0.0),
    };
    one_cycle(options)?.at(&cg, step).py()
}
