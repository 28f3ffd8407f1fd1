//! The elementwise losses for JavaScript (`nn.functional`): l1, smooth_l1, huber, binary cross-entropy on
//! probabilities and on logits, and kl_div, each with an options object as the package's other losses.

use wasm_bindgen::prelude::*;

use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::{self, KlReduction};

use crate::convert::{opt_bool, opt_f64, opt_string};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

fn reduction(options: &JsValue) -> JsResult<Reduction> {
    Reduction::parse(opt_string(options, "reduction")?.as_deref().unwrap_or("mean")).js()
}

/// `l1_loss(input, target, {reduction})`.
#[wasm_bindgen]
pub fn l1_loss(input: &Tensor, target: &Tensor, options: JsValue) -> JsResult<Tensor> {
    ok(loss::l1_loss(input.core()?, target.core()?, reduction(&options)?))
}

/// `smooth_l1_loss(input, target, {reduction, beta})`.
#[wasm_bindgen]
pub fn smooth_l1_loss(input: &Tensor, target: &Tensor, options: JsValue) -> JsResult<Tensor> {
    let beta = opt_f64(&options, "beta")?.unwrap_or(1.0);
    ok(loss::smooth_l1_loss(input.core()?, target.core()?, reduction(&options)?, beta))
}

/// `huber_loss(input, target, {reduction, delta})`.
#[wasm_bindgen]
pub fn huber_loss(input: &Tensor, target: &Tensor, options: JsValue) -> JsResult<Tensor> {
    let delta = opt_f64(&options, "delta")?.unwrap_or(1.0);
    ok(loss::huber_loss(input.core()?, target.core()?, reduction(&options)?, delta))
}

/// `binary_cross_entropy(input, target, {reduction}, weight)`.
#[wasm_bindgen(js_name = "_binary_cross_entropy")]
pub fn binary_cross_entropy(
    input: &Tensor,
    target: &Tensor,
    options: JsValue,
    weight: Option<Tensor>,
) -> JsResult<Tensor> {
    let w = weight.as_ref().map(|w| w.core()).transpose()?;
    ok(loss::binary_cross_entropy(input.core()?, target.core()?, w, reduction(&options)?))
}

/// `binary_cross_entropy_with_logits(input, target, {reduction}, weight, pos_weight)`.
#[wasm_bindgen(js_name = "_binary_cross_entropy_with_logits")]
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    options: JsValue,
    weight: Option<Tensor>,
    pos_weight: Option<Tensor>,
) -> JsResult<Tensor> {
    let w = weight.as_ref().map(|w| w.core()).transpose()?;
    let p = pos_weight.as_ref().map(|p| p.core()).transpose()?;
    ok(loss::binary_cross_entropy_with_logits(input.core()?, target.core()?, w, reduction(&options)?, p))
}

/// `kl_div(input, target, {reduction, log_target})`; reduction may be "batchmean".
#[wasm_bindgen]
pub fn kl_div(input: &Tensor, target: &Tensor, options: JsValue) -> JsResult<Tensor> {
    let r = KlReduction::parse(opt_string(&options, "reduction")?.as_deref().unwrap_or("mean")).js()?;
    let log_target = opt_bool(&options, "log_target")?.unwrap_or(false);
    ok(loss::kl_div(input.core()?, target.core()?, r, log_target))
}
