//! `nn.functional` for JavaScript: the activations without parameters (those with parameters are `described.rs`'s)
//! and one_hot.

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
