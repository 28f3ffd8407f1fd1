//! `vkml.optim` for JavaScript: one optimizer class over the Rust rules (`vkml_core::nn::optimizer`), holding its
//! parameters and their state; the options object is read by torch's names, with torch's defaults and checks.

use wasm_bindgen::prelude::*;

use vkml_core::api::Tensor as Core;
use vkml_core::nn::optim::State;
use vkml_core::nn::optimizer::{Options, Rule};
use vkml_core::util::error::{Error, Result as CoreResult};

use crate::convert::{field, opt_bool, opt_f64};
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
}
