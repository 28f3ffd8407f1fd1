//! `vkml.einsum(equation, [a, b])` for JavaScript.

use wasm_bindgen::prelude::*;

use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

#[wasm_bindgen(js_name = "_einsum")]
pub fn einsum(equation: &str, operands: Vec<Tensor>) -> JsResult<Tensor> {
    let ts = operands.iter().map(|t| t.core().cloned()).collect::<JsResult<Vec<_>>>()?;
    ok(vkml_core::api::einsum::einsum(equation, &ts))
}
