//! Binary cross-entropy for JavaScript (`nn.functional`), on probabilities and on logits, with its optional weight
//! tensors passed apart (the losses with options only are `described.rs`'s).

use wasm_bindgen::prelude::*;

use vkml_core::nn::loss;

use crate::convert::reduction;
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

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
