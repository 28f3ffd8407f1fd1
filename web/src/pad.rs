//! `F.pad` for JavaScript: (before, after) amounts from the last dim, the mode and value in an options object.

use wasm_bindgen::prelude::*;

use crate::convert::{opt_f64, opt_string};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// `pad(x, pad, {mode, value})`: (before, after) pairs from the last dim; constant, reflect, replicate, circular.
#[wasm_bindgen]
pub fn pad(x: &Tensor, pad: Vec<f64>, options: JsValue) -> JsResult<Tensor> {
    let mode =
        vkml_core::api::pad::PadMode::parse(opt_string(&options, "mode")?.as_deref().unwrap_or("constant")).js()?;
    let amounts: Vec<i64> = pad.iter().map(|&p| p as i64).collect();
    ok(vkml_core::api::pad::pad(x.core()?, &amounts, mode, opt_f64(&options, "value")?.unwrap_or(0.0)))
}
