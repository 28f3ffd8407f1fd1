//! `nn.functional` activations for JavaScript: the engine's activation composites, torch's parameter order.

use wasm_bindgen::prelude::*;

use vkml_core::nn::activation as act;
use vkml_core::nn::functional as nn;

use crate::ops::ok;
use crate::tensor::Tensor;
use crate::JsResult;

/// A binding per parameterless activation (`vkml_core::plain_activations!` lists them).
macro_rules! bind_plain {
    ($($name:ident),*) => {
        $(
            #[wasm_bindgen]
            pub fn $name(x: &Tensor) -> JsResult<Tensor> {
                ok(act::$name(x.core()?))
            }
        )*
    };
}
vkml_core::plain_activations!(bind_plain);

#[wasm_bindgen]
pub fn gelu(x: &Tensor, approximate: Option<String>) -> JsResult<Tensor> {
    ok(act::gelu(x.core()?, approximate.as_deref().unwrap_or("none")))
}

#[wasm_bindgen]
pub fn elu(x: &Tensor, alpha: Option<f64>) -> JsResult<Tensor> {
    ok(act::elu(x.core()?, alpha.unwrap_or(1.0)))
}

#[wasm_bindgen]
pub fn celu(x: &Tensor, alpha: Option<f64>) -> JsResult<Tensor> {
    ok(act::celu(x.core()?, alpha.unwrap_or(1.0)))
}

#[wasm_bindgen]
pub fn leaky_relu(x: &Tensor, negative_slope: Option<f64>) -> JsResult<Tensor> {
    ok(act::leaky_relu(x.core()?, negative_slope.unwrap_or(0.01)))
}

#[wasm_bindgen]
pub fn softplus(x: &Tensor, beta: Option<f64>, threshold: Option<f64>) -> JsResult<Tensor> {
    ok(act::softplus(x.core()?, beta.unwrap_or(1.0), threshold.unwrap_or(20.0)))
}

#[wasm_bindgen]
pub fn hardtanh(x: &Tensor, min_val: Option<f64>, max_val: Option<f64>) -> JsResult<Tensor> {
    ok(act::hardtanh(x.core()?, min_val.unwrap_or(-1.0), max_val.unwrap_or(1.0)))
}

/// `one_hot(x, num_classes)` with a class count: at once; values computed on the device are checked at the next
/// read (`gather::raise_deferred`), as the indexing ops' are.
#[wasm_bindgen(js_name = "_one_hot")]
pub fn one_hot(x: &Tensor, num_classes: f64) -> JsResult<Tensor> {
    let core = x.core()?;
    ok(nn::one_hot_with(core, num_classes as i64, crate::gather::check(core)?))
}

/// `one_hot(x)` with the class count inferred from the values: async, as their maximum is read back first (the
/// package's `nn.functional.one_hot` passes a fresh handle).
#[wasm_bindgen(js_name = "_one_hot_infer")]
pub async fn one_hot_infer(x: Tensor) -> JsResult<Tensor> {
    let core = x.core()?;
    let bounds = crate::gather::bounds(core).await?;
    ok(nn::one_hot_with(core, -1, bounds.into()))
}
