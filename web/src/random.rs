//! Sorting and the random ops for JavaScript: `t.sort`, `t.argsort`, `t.topk` (sync: nothing is read back), and
//! randint, randperm, normal, bernoulli and empty (Philox, the same bits as Python for the same seed).

use wasm_bindgen::prelude::*;

use vkml_core::api::{random, sort};
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::tensor::promote::Operand;

use crate::convert::{opt_bool, opt_dtype, opt_f64, opt_string, shape_of};
use crate::device::parse;
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

fn pair(r: vkml_core::Result<(vkml_core::api::Tensor, vkml_core::api::Tensor)>) -> JsResult<JsValue> {
    let (values, indices) = r.js()?;
    let out = js_sys::Array::new();
    out.push(&Tensor::wrap(values).into());
    out.push(&Tensor::wrap(indices).into());
    Ok(out.into())
}

#[wasm_bindgen]
impl Tensor {
    /// `t.sort(dim = -1, {descending})` → `[values, indices]`, stable.
    pub fn sort(&self, dim: Option<f64>, options: JsValue) -> JsResult<JsValue> {
        let desc = opt_bool(&options, "descending")?.unwrap_or(false);
        pair(sort::sort(self.core()?, dim.unwrap_or(-1.0) as i64, desc))
    }

    /// `t.argsort(dim = -1, {descending})`, stable.
    pub fn argsort(&self, dim: Option<f64>, options: JsValue) -> JsResult<Tensor> {
        let desc = opt_bool(&options, "descending")?.unwrap_or(false);
        ok(sort::argsort(self.core()?, dim.unwrap_or(-1.0) as i64, desc))
    }

    /// `t.topk(k, {dim, largest})` → `[values, indices]`.
    pub fn topk(&self, k: f64, options: JsValue) -> JsResult<JsValue> {
        let dim = opt_f64(&options, "dim")?.unwrap_or(-1.0) as i64;
        pair(sort::topk(self.core()?, k as i64, dim, opt_bool(&options, "largest")?.unwrap_or(true)))
    }

    /// `t.bernoulli()`: 1 with probability t (each element).
    pub fn bernoulli(&self) -> JsResult<Tensor> {
        ok(random::bernoulli(self.core()?))
    }
}

fn device(options: &JsValue) -> JsResult<vkml_core::base::buffer::DeviceId> {
    parse(opt_string(options, "device")?)
}

/// `randint(low, high, shape, {dtype, device})`: int64 unless `dtype` says otherwise.
#[wasm_bindgen]
pub fn randint(low: f64, high: f64, shape: JsValue, options: JsValue) -> JsResult<Tensor> {
    let dtype = opt_dtype(&options)?.unwrap_or(DType::I64);
    ok(random::randint(low as i64, high as i64, &shape_of(&shape, "shape")?, dtype, device(&options)?))
}

/// `randperm(n, {dtype, device})`.
#[wasm_bindgen]
pub fn randperm(n: f64, options: JsValue) -> JsResult<Tensor> {
    ok(random::randperm(n as i64, opt_dtype(&options)?.unwrap_or(DType::I64), device(&options)?))
}

/// `normal(mean, std, shape, {dtype, device})` with numbers.
#[wasm_bindgen]
pub fn normal(mean: f64, std: f64, shape: JsValue, options: JsValue) -> JsResult<Tensor> {
    let (m, s) = (Operand::Scalar(Scalar::Float(mean)), Operand::Scalar(Scalar::Float(std)));
    let dtype = opt_dtype(&options)?.unwrap_or(DType::F32);
    ok(random::normal(&m, &s, Some(&shape_of(&shape, "shape")?), dtype, device(&options)?))
}

/// `empty(shape, {dtype, device})`: zeros (torch leaves the values undefined).
#[wasm_bindgen]
pub fn empty(shape: JsValue, options: JsValue) -> JsResult<Tensor> {
    let dtype = opt_dtype(&options)?.unwrap_or(DType::F32);
    ok(random::empty(&shape_of(&shape, "shape")?, dtype, device(&options)?))
}
