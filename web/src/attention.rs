//! `nn.functional.scaled_dot_product_attention` for JavaScript.

use wasm_bindgen::prelude::*;

use crate::convert::{opt_bool, opt_f64};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

/// `scaled_dot_product_attention(q, k, v, {is_causal, scale, dropout_p}, attn_mask)`.
#[wasm_bindgen(js_name = "_scaled_dot_product_attention")]
pub fn scaled_dot_product_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    options: JsValue,
    attn_mask: Option<Tensor>,
) -> JsResult<Tensor> {
    let mask = attn_mask.as_ref().map(|m| m.core()).transpose()?;
    ok(vkml_core::nn::attention::scaled_dot_product_attention(
        q.core()?,
        k.core()?,
        v.core()?,
        mask,
        opt_f64(&options, "dropout_p")?.unwrap_or(0.0),
        opt_bool(&options, "is_causal")?.unwrap_or(false),
        opt_f64(&options, "scale")?,
    ))
}
