//! `t.cumsum(dim)`, `t.cumprod(dim)` and `t.prod(dim, keepdim)` for JavaScript.

use wasm_bindgen::prelude::*;

use vkml_core::api::scan;

use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

#[wasm_bindgen]
impl Tensor {
    pub fn cumsum(&self, dim: f64) -> JsResult<Tensor> {
        ok(scan::cumsum(self.core()?, dim as i64, None))
    }

    pub fn cumprod(&self, dim: f64) -> JsResult<Tensor> {
        ok(scan::cumprod(self.core()?, dim as i64, None))
    }

    /// `t.prod()` over everything, or `t.prod(dim, keepdim)`.
    pub fn prod(&self, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<Tensor> {
        ok(self.core()?.prod(dim.map(|d| d as i64), keepdim.unwrap_or(false), None))
    }
}
