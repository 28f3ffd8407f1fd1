//! Indexing by tensors for JavaScript: gather, scatter, scatter_add, index_select, take_along_dim and embedding.
//! Each returns at once: an index made from a JavaScript array is checked from its host data now; one computed on
//! the device has its check deferred (the op runs with the index clamped into range) and the next read of any value
//! raises the fault (`raise_deferred`), as a device-side assert surfaces in torch on CUDA. `one_hot` without a class
//! count still reads the index's range back (its result's shape depends on it), so it stays async.

use wasm_bindgen::prelude::*;

use vkml_core::api::gather::{self as g, Bounds, Check};
use vkml_core::api::Tensor as Core;
use vkml_core::tensor::realize::read_bytes_async;

use crate::convert::{opt_bool, opt_f64};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// An index's [min, max]: from its host data at once, else read back from its device without blocking (`one_hot`).
pub(crate) async fn bounds(idx: &Core) -> JsResult<Option<(i64, i64)>> {
    match g::bounds(idx).js()? {
        Bounds::Known(b) => Ok(b),
        Bounds::Device(r) => Ok(Some(g::range_from_bytes(&read_bytes_async(&r).await.js()?).js()?)),
    }
}

/// How an indexing op checks `idx` here: now from host data, or deferred to the next read.
pub(crate) fn check(idx: &Core) -> JsResult<Check> {
    Ok(match g::bounds(idx).js()? {
        Bounds::Known(b) => Check::Known(b),
        Bounds::Device(r) => Check::Defer(r),
    })
}

/// Raise an index fault an indexing op deferred: every read calls this first, reading each deferred range back.
pub(crate) async fn raise_deferred() -> JsResult<()> {
    for d in g::take_deferred() {
        let bytes = read_bytes_async(&d.range).await.js()?;
        d.check(&bytes).js()?;
    }
    Ok(())
}

#[wasm_bindgen(js_name = "_gather")]
pub fn gather(x: &Tensor, dim: f64, index: &Tensor) -> JsResult<Tensor> {
    ok(g::gather_with(x.core()?, dim as i64, index.core()?, check(index.core()?)?))
}

/// `scatter(x, dim, index, src, add)`: src a tensor (a number is filled into one by the package).
#[wasm_bindgen(js_name = "_scatter")]
pub fn scatter(x: &Tensor, dim: f64, index: &Tensor, src: &Tensor, add: bool) -> JsResult<Tensor> {
    ok(g::scatter_with(x.core()?, dim as i64, index.core()?, src.core()?, add, check(index.core()?)?))
}

#[wasm_bindgen(js_name = "_index_select")]
pub fn index_select(x: &Tensor, dim: f64, index: &Tensor) -> JsResult<Tensor> {
    ok(g::index_select_with(x.core()?, dim as i64, index.core()?, check(index.core()?)?))
}

/// `take_along_dim(x, indices, dim)`; dim null or undefined flattens both.
#[wasm_bindgen(js_name = "_take_along_dim")]
pub fn take_along_dim(x: &Tensor, indices: &Tensor, dim: Option<f64>) -> JsResult<Tensor> {
    ok(g::take_along_dim_with(x.core()?, indices.core()?, dim.map(|d| d as i64), check(indices.core()?)?))
}

/// `embedding(input, weight, {padding_idx})`.
#[wasm_bindgen(js_name = "_embedding")]
pub fn embedding(input: &Tensor, weight: &Tensor, options: JsValue) -> JsResult<Tensor> {
    if opt_f64(&options, "max_norm")?.is_some() || opt_bool(&options, "sparse")?.unwrap_or(false) {
        return Err(crate::type_error("embedding: max_norm and sparse are not supported"));
    }
    let pad = opt_f64(&options, "padding_idx")?.map(|p| p as i64);
    ok(g::embedding_with(input.core()?, weight.core()?, pad, check(input.core()?)?))
}
