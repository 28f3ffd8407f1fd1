//! `t.norm(p, dim, keepdim)` for JavaScript: orders 2 (or "fro"), 1, Infinity, -Infinity and 0.

use wasm_bindgen::prelude::*;

use vkml_core::api::vector_norm::{vector_norm, Ord};

use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

#[wasm_bindgen]
impl Tensor {
    pub fn norm(&self, p: JsValue, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<Tensor> {
        let ord = match (p.as_string(), p.as_f64()) {
            (Some(s), _) if s == "fro" => Ord::Fro,
            (_, Some(v)) => Ord::P(v),
            _ if p.is_undefined() || p.is_null() => Ord::Fro,
            _ => return Err(crate::type_error("norm: p must be a number or \"fro\"")),
        };
        let dims = dim.map(|d| vec![d as i64]);
        ok(vector_norm(self.core()?, ord, dims.as_deref(), keepdim.unwrap_or(false)))
    }
}
