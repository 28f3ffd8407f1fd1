//! `vkml.optim` for JavaScript: one optimizer class over the Rust rules (`vkml_core::nn::optimizer`), holding its
//! parameters and their state, and one schedule class over `vkml_core::nn::schedule`; options objects are read by
//! torch's names, with torch's defaults and checks.

use wasm_bindgen::prelude::*;

use vkml_core::api::Tensor as Core;
use vkml_core::nn::optim::State;
use vkml_core::nn::optimizer::{Options, Rule};
use vkml_core::nn::schedule::Schedule;
use vkml_core::util::error::{Error, Result as CoreResult};

use crate::convert::{field, opt_bool, opt_f64, opt_string};
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// An options object as `Options`.
struct Object<'a>(&'a JsValue);

fn value_error(e: JsValue) -> Error {
    Error::Value(js_sys::Error::from(e).message().into())
}

impl Options for Object<'_> {
    fn number(&self, key: &str) -> CoreResult<Option<f64>> {
        opt_f64(self.0, key).map_err(value_error)
    }
    fn flag(&self, key: &str) -> CoreResult<Option<bool>> {
        opt_bool(self.0, key).map_err(value_error)
    }
    fn pair(&self, key: &str) -> CoreResult<Option<(f64, f64)>> {
        let Some(v) = field(self.0, key) else { return Ok(None) };
        let a = wasm_bindgen::JsCast::dyn_ref::<js_sys::Array>(&v)
            .filter(|a| a.length() == 2)
            .ok_or_else(|| Error::Value(format!("option '{key}' must be a pair of numbers")))?;
        let num = |i| a.get(i).as_f64().ok_or_else(|| Error::Value(format!("option '{key}' must hold numbers")));
        Ok(Some((num(0)?, num(1)?)))
    }
    fn numbers(&self, key: &str) -> CoreResult<Option<Vec<f64>>> {
        let Some(v) = field(self.0, key) else { return Ok(None) };
        let a = wasm_bindgen::JsCast::dyn_ref::<js_sys::Array>(&v)
            .ok_or_else(|| Error::Value(format!("option '{key}' must be an array of numbers")))?;
        let nums =
            a.iter().map(|x| x.as_f64().ok_or_else(|| Error::Value(format!("option '{key}' must hold numbers"))));
        nums.collect::<CoreResult<Vec<f64>>>().map(Some)
    }
    fn text(&self, key: &str) -> CoreResult<Option<String>> {
        opt_string(self.0, key).map_err(value_error)
    }
}

/// An optimizer: `kind` is torch's class name (SGD, Adam, AdamW, RMSprop, Adagrad).
#[wasm_bindgen(js_name = "Optimizer")]
pub struct Optimizer {
    params: Vec<Core>,
    rule: Rule,
    states: Vec<State>,
}

#[wasm_bindgen(js_class = "Optimizer")]
impl Optimizer {
    /// The package's wrapper passes fresh handles of the parameters (wasm-bindgen takes ownership).
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, params: Vec<Tensor>, options: JsValue) -> JsResult<Optimizer> {
        if params.is_empty() {
            return Err(js_sys::Error::new("optimizer got an empty parameter list").into());
        }
        let params: Vec<Core> = params.iter().map(|p| p.core().cloned()).collect::<JsResult<_>>()?;
        let rule = Rule::new(kind, &Object(&options)).js()?;
        let states = vec![State::default(); params.len()];
        Ok(Optimizer { params, rule, states })
    }

    /// Update the parameters from their gradients; the new values are computed on the device and realized.
    pub fn step(&mut self) -> JsResult<()> {
        self.rule.step(&self.params, &mut self.states).js()
    }

    pub fn zero_grad(&self) -> JsResult<()> {
        self.params.iter().try_for_each(|p| p.set_grad(None).js())
    }

    #[wasm_bindgen(getter)]
    pub fn lr(&self) -> f64 {
        self.rule.lr()
    }

    #[wasm_bindgen(setter)]
    pub fn set_lr(&mut self, lr: f64) {
        self.rule.set_lr(lr);
    }

    /// The momentum a schedule cycles (SGD's and RMSprop's momentum, Adam's first beta); undefined for Adagrad.
    #[wasm_bindgen(getter)]
    pub fn momentum(&self) -> Option<f64> {
        self.rule.momentum()
    }

    #[wasm_bindgen(setter)]
    pub fn set_momentum(&mut self, m: f64) -> JsResult<()> {
        self.rule.set_momentum(m).js()
    }
}

/// A learning-rate schedule (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR) with its options by
/// torch's names; the package's scheduler classes keep the step count and ask it for rates.
#[wasm_bindgen(js_name = "Schedule")]
pub struct JsSchedule(Schedule);

#[wasm_bindgen(js_class = "Schedule")]
impl JsSchedule {
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, options: JsValue) -> JsResult<JsSchedule> {
        Schedule::new(kind, &Object(&options)).js().map(JsSchedule)
    }

    /// The rate at step `epoch` from base rate `base` (not OneCycleLR).
    pub fn lr(&self, base: f64, epoch: f64) -> JsResult<f64> {
        self.0.lr(base, epoch).js()
    }

    /// OneCycleLR: [rate, momentum] at `step` for a group whose max_lr and momentum bounds are given.
    pub fn cycle_at(&self, max_lr: f64, base_momentum: f64, max_momentum: f64, step: f64) -> JsResult<Vec<f64>> {
        let Schedule::OneCycle(c) = &self.0 else {
            return Err(crate::type_error("cycle_at belongs to OneCycleLR"));
        };
        let (lr, m) = c.at(&c.group(max_lr, base_momentum, max_momentum), step).js()?;
        Ok(vec![lr, m])
    }

    /// OneCycleLR: whether the momentum cycles (torch's default).
    #[wasm_bindgen(getter)]
    pub fn cycle_momentum(&self) -> bool {
        matches!(&self.0, Schedule::OneCycle(c) if c.cycle_momentum)
    }
}
