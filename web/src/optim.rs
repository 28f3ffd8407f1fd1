//! `vkml.optim` for JavaScript: SGD and Adam/AdamW over the Rust update rules, holding their per-parameter state.

use wasm_bindgen::prelude::*;

use vkml_core::api::Tensor as Core;
use vkml_core::optim::{adam_step, sgd_step, Adam as AdamHp, AdamState, Sgd as SgdHp};

use crate::convert::{opt_bool, opt_f64};
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

fn params_of(params: Vec<Tensor>) -> JsResult<Vec<Core>> {
    if params.is_empty() {
        return Err(js_sys::Error::new("optimizer got an empty parameter list").into());
    }
    params.iter().map(|p| p.core().cloned()).collect()
}

fn zero(params: &[Core]) -> JsResult<()> {
    params.iter().try_for_each(|p| p.set_grad(None).js())
}

/// `new SGD(params, {lr, momentum, dampening, weight_decay, nesterov, maximize})`.
#[wasm_bindgen(js_name = "SGD")]
pub struct Sgd {
    params: Vec<Core>,
    hp: SgdHp,
    bufs: Vec<Option<Core>>,
}

#[wasm_bindgen(js_class = "SGD")]
impl Sgd {
    #[wasm_bindgen(constructor)]
    pub fn new(params: Vec<Tensor>, options: JsValue) -> JsResult<Sgd> {
        let params = params_of(params)?;
        let hp = SgdHp {
            lr: opt_f64(&options, "lr")?.unwrap_or(1e-3),
            momentum: opt_f64(&options, "momentum")?.unwrap_or(0.0),
            dampening: opt_f64(&options, "dampening")?.unwrap_or(0.0),
            weight_decay: opt_f64(&options, "weight_decay")?.unwrap_or(0.0),
            nesterov: opt_bool(&options, "nesterov")?.unwrap_or(false),
            maximize: opt_bool(&options, "maximize")?.unwrap_or(false),
        };
        if hp.nesterov && (hp.momentum <= 0.0 || hp.dampening != 0.0) {
            return Err(js_sys::Error::new("Nesterov momentum requires a momentum and zero dampening").into());
        }
        if hp.lr < 0.0 || hp.momentum < 0.0 || hp.weight_decay < 0.0 {
            return Err(js_sys::Error::new("lr, momentum and weight_decay must be non-negative").into());
        }
        let bufs = vec![None; params.len()];
        Ok(Sgd { params, hp, bufs })
    }

    /// Update the parameters from their gradients; the new values are computed on the device and realized.
    pub fn step(&mut self) -> JsResult<()> {
        sgd_step(&self.hp, &self.params, &mut self.bufs).js()
    }

    pub fn zero_grad(&self) -> JsResult<()> {
        zero(&self.params)
    }

    #[wasm_bindgen(getter)]
    pub fn lr(&self) -> f64 {
        self.hp.lr
    }

    #[wasm_bindgen(setter)]
    pub fn set_lr(&mut self, lr: f64) {
        self.hp.lr = lr;
    }
}

/// `new Adam(params, {lr, betas, eps, weight_decay, amsgrad, maximize, decoupled})`; `decoupled: true` is AdamW.
#[wasm_bindgen]
pub struct Adam {
    params: Vec<Core>,
    hp: AdamHp,
    states: Vec<AdamState>,
}

#[wasm_bindgen]
impl Adam {
    #[wasm_bindgen(constructor)]
    pub fn new(params: Vec<Tensor>, options: JsValue) -> JsResult<Adam> {
        let params = params_of(params)?;
        let betas = match crate::convert::field(&options, "betas") {
            None => (0.9, 0.999),
            Some(b) => {
                let a: &js_sys::Array = wasm_bindgen::JsCast::dyn_ref(&b)
                    .filter(|a: &&js_sys::Array| a.length() == 2)
                    .ok_or_else(|| crate::type_error("betas must be [beta1, beta2]"))?;
                (a.get(0).as_f64().unwrap_or(f64::NAN), a.get(1).as_f64().unwrap_or(f64::NAN))
            }
        };
        let decoupled = opt_bool(&options, "decoupled")?.unwrap_or(false);
        let hp = AdamHp {
            lr: opt_f64(&options, "lr")?.unwrap_or(1e-3),
            beta1: betas.0,
            beta2: betas.1,
            eps: opt_f64(&options, "eps")?.unwrap_or(1e-8),
            weight_decay: opt_f64(&options, "weight_decay")?.unwrap_or(if decoupled { 1e-2 } else { 0.0 }),
            amsgrad: opt_bool(&options, "amsgrad")?.unwrap_or(false),
            maximize: opt_bool(&options, "maximize")?.unwrap_or(false),
            decoupled,
        };
        for (name, v, ok) in [
            ("lr", hp.lr, hp.lr >= 0.0),
            ("eps", hp.eps, hp.eps >= 0.0),
            ("beta1", hp.beta1, (0.0..1.0).contains(&hp.beta1)),
            ("beta2", hp.beta2, (0.0..1.0).contains(&hp.beta2)),
            ("weight_decay", hp.weight_decay, hp.weight_decay >= 0.0),
        ] {
            if !ok {
                return Err(js_sys::Error::new(&format!("Invalid {name} value: {v}")).into());
            }
        }
        let states = vec![AdamState::default(); params.len()];
        Ok(Adam { params, hp, states })
    }

    /// Update the parameters from their gradients; the new values are computed on the device and realized.
    pub fn step(&mut self) -> JsResult<()> {
        adam_step(&self.hp, &self.params, &mut self.states).js()
    }

    pub fn zero_grad(&self) -> JsResult<()> {
        zero(&self.params)
    }

    #[wasm_bindgen(getter)]
    pub fn lr(&self) -> f64 {
        self.hp.lr
    }

    #[wasm_bindgen(setter)]
    pub fn set_lr(&mut self, lr: f64) {
        self.hp.lr = lr;
    }
}
