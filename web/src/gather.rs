//! Indexing by tensors for JavaScript: gather, scatter, scatter_add, index_select, take_along_dim and embedding.
//! Each is async (a Promise): an index computed on the device has its [min, max] read back, without blocking, to
//! check it as torch's CPU kernels do; one made from a JavaScript array is checked from its host data at once.

use wasm_bindgen::prelude::*;

use vkml_core::api::gather::{self as g, Bounds};
use vkml_core::api::Tensor as Core;
use vkml_core::tensor::realize::read_bytes_async;

use crate::convert::{opt_bool, opt_f64};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// An index's [min, max]: from its host data at once, else read back from its device without blocking (also for
/// `one_hot`).
pub(crate) async fn bounds(idx: &Core) -> JsResult<Option<(i64, i64)>> {
    match g::bounds(idx).js()? {
        Bounds::Known(b) => Ok(b),
        Bounds::Device(r) => Ok(Some(g::range_from_bytes(&read_bytes_async(&r).await.js()?).js()?)),
    }
}

#[wasm_bindgen(js_name = "_gather")]
pub async fn gather(x: Tensor, dim: f64, index: Tensor) -> JsResult<Tensor> {
    let b = bounds(index.core()?).await?;
    ok(g::gather_with(x.core()?, dim as i64, index.core()?, b))
}

/// `scatter(x, dim, index, src, add)`: src a tensor (a number is filled into one by the package).
#[wasm_bindgen(js_name = "_scatter")]
pub async fn scatter(x: Tensor, dim: f64, index: Tensor, src: Tensor, add: bool) -> JsResult<Tensor> {
    let b = bounds(index.core()?).await?;
    ok(g::scatter_with(x.core()?, dim as i64, index.core()?, src.core()?, add, b))
}

#[wasm_bindgen(js_name = "_index_select")]
pub async fn index_select(x: Tensor, dim: f64, index: Tensor) -> JsResult<Tensor> {
    let b = bounds(index.core()?).await?;
    ok(g::index_select_with(x.core()?, dim as i64, index.core()?, b))
}

/// `take_along_dim(x, indices, dim)`; dim null or undefined flattens both.
#[wasm_bindgen(js_name = "_take_along_dim")]
pub async fn take_along_dim(x: Tensor, indices: Tensor, dim: Option<f64>) -> JsResult<Tensor> {
    let b = bounds(indices.core()?).await?;
    ok(g::take_along_dim_with(x.core()?, indices.core()?, dim.map(|d| d as i64), b))
}

/// `embedding(input, weight, {padding_idx})`.
#[wasm_bindgen(js_name = "_embedding")]
pub async fn embedding(input: Tensor, weight: Tensor, options: JsValue) -> JsResult<Tensor> {
    if opt_f64(&options, "max_norm")?.is_some() || opt_bool(&options, "sparse")?.unwrap_or(false) {
        return Err(crate::type_error("embedding: max_norm and sparse are not supported"));
    }
    let pad = opt_f64(&options, "padding_idx")?.map(|p| p as i64);
    let b = bounds(input.core()?).await?;
    ok(g::embedding_with(input.core()?, weight.core()?, pad, b))
}
