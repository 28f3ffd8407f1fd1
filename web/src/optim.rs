//! `vkml.optim` for JavaScript: SGD, Adam/AdamW, RMSprop and Adagrad over the Rust update rules, each holding its
//! per-parameter state. One macro writes the shared shell (constructor, step, zero_grad, lr).

use wasm_bindgen::prelude::*;

use vkml_core::api::Tensor as Core;
use vkml_core::nn::optim::{
    adagrad_step, adam_step, rmsprop_step, sgd_step, Adagrad as AdagradHp, AdagradState, Adam as AdamHp, AdamState,
    RmsProp as RmsPropHp, RmsPropState, Sgd as SgdHp,
};

use crate::convert::{field, opt_bool, opt_f64};
use crate::tensor::Tensor;
use crate::{type_error, JsResult, OrJs};

fn params_of(params: Vec<Tensor>) -> JsResult<Vec<Core>> {
    if params.is_empty() {
        return Err(js_sys::Error::new("optimizer got an empty parameter list").into());
    }
    params.iter().map(|p| p.core().cloned()).collect()
}

/// torch's "Invalid <name> value" for a hyper-parameter outside its range.
fn require(checks: &[(&str, f64, bool)]) -> JsResult<()> {
    match checks.iter().find(|(_, _, ok)| !ok) {
        Some((name, v, _)) => Err(js_sys::Error::new(&format!("Invalid {name} value: {v}")).into()),
        None => Ok(()),
    }
}

fn num(options: &JsValue, key: &str, default: f64) -> JsResult<f64> {
    Ok(opt_f64(options, key)?.unwrap_or(default))
}

fn flag(options: &JsValue, key: &str) -> JsResult<bool> {
    Ok(opt_bool(options, key)?.unwrap_or(false))
}

macro_rules! optimizer {
    ($name:ident, $js:literal, $hp:ty, $state:ty, $step:path, $parse:path) => {
        #[wasm_bindgen(js_name = $js)]
        pub struct $name {
            params: Vec<Core>,
            hp: $hp,
            states: Vec<$state>,
        }

        #[wasm_bindgen(js_class = $js)]
        impl $name {
            /// The package's wrapper passes fresh handles of the parameters (wasm-bindgen takes ownership).
            #[wasm_bindgen(constructor)]
            pub fn new(params: Vec<Tensor>, options: JsValue) -> JsResult<$name> {
                let params = params_of(params)?;
                let hp = $parse(&options)?;
                let states = vec![<$state>::default(); params.len()];
                Ok($name { params, hp, states })
            }

            /// Update the parameters from their gradients; the new values are computed on the device and realized.
            pub fn step(&mut self) -> JsResult<()> {
                $step(&self.hp, &self.params, &mut self.states).js()
            }

            pub fn zero_grad(&self) -> JsResult<()> {
                self.params.iter().try_for_each(|p| p.set_grad(None).js())
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
    };
}

optimizer!(Sgd, "SGD", SgdHp, Option<Core>, sgd_step, sgd);
optimizer!(Adam, "Adam", AdamHp, AdamState, adam_step, adam);
optimizer!(RmsProp, "RMSprop", RmsPropHp, RmsPropState, rmsprop_step, rmsprop);
optimizer!(Adagrad, "Adagrad", AdagradHp, AdagradState, adagrad_step, adagrad);

/// `{lr, momentum, dampening, weight_decay, nesterov, maximize}`.
fn sgd(o: &JsValue) -> JsResult<SgdHp> {
    let hp = SgdHp {
        lr: num(o, "lr", 1e-3)?,
        momentum: num(o, "momentum", 0.0)?,
        dampening: num(o, "dampening", 0.0)?,
        weight_decay: num(o, "weight_decay", 0.0)?,
        nesterov: flag(o, "nesterov")?,
        maximize: flag(o, "maximize")?,
    };
    require(&[
        ("learning rate", hp.lr, hp.lr >= 0.0),
        ("momentum", hp.momentum, hp.momentum >= 0.0),
        ("weight_decay", hp.weight_decay, hp.weight_decay >= 0.0),
    ])?;
    if hp.nesterov && (hp.momentum <= 0.0 || hp.dampening != 0.0) {
        return Err(js_sys::Error::new("Nesterov momentum requires a momentum and zero dampening").into());
    }
    Ok(hp)
}

/// `{lr, betas, eps, weight_decay, amsgrad, maximize, decoupled}`; `decoupled: true` is AdamW (weight decay 1e-2).
fn adam(o: &JsValue) -> JsResult<AdamHp> {
    let (beta1, beta2) = match field(o, "betas") {
        None => (0.9, 0.999),
        Some(b) => {
            let a: &js_sys::Array = wasm_bindgen::JsCast::dyn_ref(&b)
                .filter(|a: &&js_sys::Array| a.length() == 2)
                .ok_or_else(|| type_error("betas must be [beta1, beta2]"))?;
            (a.get(0).as_f64().unwrap_or(f64::NAN), a.get(1).as_f64().unwrap_or(f64::NAN))
        }
    };
    let decoupled = flag(o, "decoupled")?;
    let hp = AdamHp {
        lr: num(o, "lr", 1e-3)?,
        beta1,
        beta2,
        eps: num(o, "eps", 1e-8)?,
        weight_decay: num(o, "weight_decay", if decoupled { 1e-2 } else { 0.0 })?,
        amsgrad: flag(o, "amsgrad")?,
        maximize: flag(o, "maximize")?,
        decoupled,
    };
    require(&[
        ("learning rate", hp.lr, hp.lr >= 0.0),
        ("epsilon", hp.eps, hp.eps >= 0.0),
        ("beta parameter at index 0", beta1, (0.0..1.0).contains(&beta1)),
        ("beta parameter at index 1", beta2, (0.0..1.0).contains(&beta2)),
        ("weight_decay", hp.weight_decay, hp.weight_decay >= 0.0),
    ])?;
    Ok(hp)
}

/// `{lr, alpha, eps, weight_decay, momentum, centered, maximize}` with torch's defaults (lr 1e-2, alpha 0.99).
fn rmsprop(o: &JsValue) -> JsResult<RmsPropHp> {
    let hp = RmsPropHp {
        lr: num(o, "lr", 1e-2)?,
        alpha: num(o, "alpha", 0.99)?,
        eps: num(o, "eps", 1e-8)?,
        weight_decay: num(o, "weight_decay", 0.0)?,
        momentum: num(o, "momentum", 0.0)?,
        centered: flag(o, "centered")?,
        maximize: flag(o, "maximize")?,
    };
    require(&[
        ("learning rate", hp.lr, hp.lr >= 0.0),
        ("epsilon", hp.eps, hp.eps >= 0.0),
        ("momentum", hp.momentum, hp.momentum >= 0.0),
        ("weight_decay", hp.weight_decay, hp.weight_decay >= 0.0),
        ("alpha", hp.alpha, hp.alpha >= 0.0),
    ])?;
    Ok(hp)
}

/// `{lr, lr_decay, weight_decay, eps, initial_accumulator_value, maximize}` with torch's defaults (lr 1e-2).
fn adagrad(o: &JsValue) -> JsResult<AdagradHp> {
    let hp = AdagradHp {
        lr: num(o, "lr", 1e-2)?,
        lr_decay: num(o, "lr_decay", 0.0)?,
        weight_decay: num(o, "weight_decay", 0.0)?,
        eps: num(o, "eps", 1e-10)?,
        initial_accumulator_value: num(o, "initial_accumulator_value", 0.0)?,
        maximize: flag(o, "maximize")?,
    };
    require(&[
        ("learning rate", hp.lr, hp.lr >= 0.0),
        ("lr_decay", hp.lr_decay, hp.lr_decay >= 0.0),
        ("weight_decay", hp.weight_decay, hp.weight_decay >= 0.0),
        ("initial_accumulator_value", hp.initial_accumulator_value, hp.initial_accumulator_value >= 0.0),
        ("epsilon", hp.eps, hp.eps >= 0.0),
    ])?;
    Ok(hp)
}
