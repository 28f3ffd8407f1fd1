//! `vkml.nn.functional` for JavaScript: the Rust layer math (linear, conv2d, unfold/fold, pools, norms) with torch's
//! argument names in an options object. Functions taking optional tensors are `_`-named: wasm-bindgen takes
//! ownership of such arguments, so the package's `index.js` passes fresh handles (`t._handle()`).

use wasm_bindgen::prelude::*;

use vkml_core::nn::conv::{self, Padding};
use vkml_core::nn::fold::{self, Blocks};
use vkml_core::nn::norm;

use crate::convert::{field, opt_bool, opt_f64, opt_string, usize_of};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{type_error, JsResult, OrJs};

/// A pair option: a number (both sides) or `[h, w]`; `default` when missing.
fn pair(options: &JsValue, key: &str, default: [usize; 2]) -> JsResult<[usize; 2]> {
    field(options, key).map_or(Ok(default), |v| pair_of(&v, key))
}

/// A number (both sides) or `[h, w]`, as the argument `name`.
fn pair_of(v: &JsValue, name: &str) -> JsResult<[usize; 2]> {
    if let Some(x) = v.as_f64() {
        let n = usize_of(x, name)?;
        return Ok([n, n]);
    }
    let arr: &js_sys::Array = wasm_bindgen::JsCast::dyn_ref(v)
        .filter(|a: &&js_sys::Array| a.length() == 2)
        .ok_or_else(|| type_error(&format!("{name} must be a number or [h, w]")))?;
    let h = usize_of(arr.get(0).as_f64().unwrap_or(f64::NAN), name)?;
    let w = usize_of(arr.get(1).as_f64().unwrap_or(f64::NAN), name)?;
    Ok([h, w])
}

/// `conv2d(x, weight, bias, {stride, padding, dilation, groups})`; padding may be a number, `[h, w]`, "same" or
/// "valid".
#[wasm_bindgen(js_name = "_conv2d")]
pub fn conv2d(x: &Tensor, weight: &Tensor, bias: Option<Tensor>, options: JsValue) -> JsResult<Tensor> {
    let b = bias.as_ref().map(|b| b.core()).transpose()?;
    let padding = match opt_padding(&options)? {
        Some(p) => p,
        None => Padding::Explicit(pair(&options, "padding", [0, 0])?),
    };
    let groups = opt_f64(&options, "groups")?.map(|g| usize_of(g, "groups")).transpose()?.unwrap_or(1);
    ok(conv::conv2d(
        x.core()?,
        weight.core()?,
        b,
        pair(&options, "stride", [1, 1])?,
        padding,
        pair(&options, "dilation", [1, 1])?,
        groups,
    ))
}

/// `conv_transpose2d(x, weight, bias, {stride, padding, output_padding, groups, dilation})`.
#[wasm_bindgen(js_name = "_conv_transpose2d")]
pub fn conv_transpose2d(x: &Tensor, weight: &Tensor, bias: Option<Tensor>, options: JsValue) -> JsResult<Tensor> {
    let b = bias.as_ref().map(|b| b.core()).transpose()?;
    let groups = opt_f64(&options, "groups")?.map(|g| usize_of(g, "groups")).transpose()?.unwrap_or(1);
    ok(vkml_core::nn::conv_transpose::conv_transpose2d(
        x.core()?,
        weight.core()?,
        b,
        pair(&options, "stride", [1, 1])?,
        pair(&options, "padding", [0, 0])?,
        pair(&options, "output_padding", [0, 0])?,
        groups,
        pair(&options, "dilation", [1, 1])?,
    ))
}

/// `interpolate(x, {size, scale_factor, mode, align_corners})`: nearest, linear (3-d) or bilinear (4-d); size and
/// scale_factor a number or one per spatial dim.
#[wasm_bindgen]
pub fn interpolate(x: &Tensor, options: JsValue) -> JsResult<Tensor> {
    use vkml_core::nn::interpolate::{interpolate as core_interpolate, Mode};
    let core = x.core()?;
    let n = core.ndim().saturating_sub(2);
    let per_dim = |key: &str| -> JsResult<Option<Vec<f64>>> {
        match field(&options, key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(f) => Ok(Some(vec![f; n])),
                None => Ok(Some(
                    js_sys::Array::from(&v).iter().map(|e| e.as_f64().unwrap_or(f64::NAN)).collect::<Vec<f64>>(),
                )),
            },
        }
    };
    let mode = match opt_string(&options, "mode")?.as_deref().unwrap_or("nearest") {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        m => return Err(type_error(&format!("interpolate: mode {m:?} is not supported"))),
    };
    let size =
        per_dim("size")?.map(|v| v.iter().map(|&f| usize_of(f, "size")).collect::<JsResult<Vec<_>>>()).transpose()?;
    let scale = per_dim("scale_factor")?;
    let align = opt_bool(&options, "align_corners")?.unwrap_or(false);
    ok(core_interpolate(core, size.as_deref(), scale.as_deref(), mode, align))
}

/// `conv1d(x, weight, bias, {stride, padding, dilation, groups})`: numbers, or "same"/"valid" padding.
#[wasm_bindgen(js_name = "_conv1d")]
pub fn conv1d(x: &Tensor, weight: &Tensor, bias: Option<Tensor>, options: JsValue) -> JsResult<Tensor> {
    let b = bias.as_ref().map(|b| b.core()).transpose()?;
    let int =
        |key: &str, default: f64| -> JsResult<usize> { usize_of(opt_f64(&options, key)?.unwrap_or(default), key) };
    let padding = match opt_padding(&options)? {
        Some(p) => p,
        None => Padding::Explicit([0, int("padding", 0.0)?]),
    };
    ok(conv::conv1d(
        x.core()?,
        weight.core()?,
        b,
        int("stride", 1.0)?,
        padding,
        int("dilation", 1.0)?,
        int("groups", 1.0)?,
    ))
}

fn opt_padding(options: &JsValue) -> JsResult<Option<Padding>> {
    match field(options, "padding").and_then(|p| p.as_string()).as_deref() {
        None => Ok(None),
        Some("same") => Ok(Some(Padding::Same)),
        Some("valid") => Ok(Some(Padding::Valid)),
        Some(other) => Err(type_error(&format!("padding must be a number, [h, w], 'same' or 'valid', not '{other}'"))),
    }
}

/// `max_pool2d(x, kernel_size, {stride, padding, dilation, ceil_mode})` (stride defaults to the kernel size).
#[wasm_bindgen]
pub fn max_pool2d(x: &Tensor, kernel_size: JsValue, options: JsValue) -> JsResult<Tensor> {
    let k = pair_of(&kernel_size, "kernel_size")?;
    let (out, _) = conv::max_pool2d(
        x.core()?,
        k,
        pair(&options, "stride", k)?,
        pair(&options, "padding", [0, 0])?,
        pair(&options, "dilation", [1, 1])?,
        opt_bool(&options, "ceil_mode")?.unwrap_or(false),
        false,
    )
    .js()?;
    Ok(Tensor::wrap(out))
}

/// `avg_pool2d(x, kernel_size, {stride, padding})`.
#[wasm_bindgen]
pub fn avg_pool2d(x: &Tensor, kernel_size: JsValue, options: JsValue) -> JsResult<Tensor> {
    let k = pair_of(&kernel_size, "kernel_size")?;
    ok(conv::avg_pool2d(x.core()?, k, pair(&options, "stride", k)?, pair(&options, "padding", [0, 0])?))
}

/// The `{dilation, padding, stride}` of unfold and fold beside their kernel size.
fn blocks(kernel_size: &JsValue, options: &JsValue) -> JsResult<Blocks> {
    Ok(Blocks {
        kernel: pair_of(kernel_size, "kernel_size")?,
        dilation: pair(options, "dilation", [1, 1])?,
        padding: pair(options, "padding", [0, 0])?,
        stride: pair(options, "stride", [1, 1])?,
    })
}

/// `unfold(x, kernel_size, {dilation, padding, stride})`: im2col, (N, C, H, W) to (N, C·KH·KW, L).
#[wasm_bindgen]
pub fn unfold(x: &Tensor, kernel_size: JsValue, options: JsValue) -> JsResult<Tensor> {
    ok(fold::unfold(x.core()?, blocks(&kernel_size, &options)?))
}

/// `fold(x, output_size, kernel_size, {dilation, padding, stride})`: col2im, overlapping blocks added.
#[wasm_bindgen]
pub fn fold(x: &Tensor, output_size: JsValue, kernel_size: JsValue, options: JsValue) -> JsResult<Tensor> {
    let size = pair_of(&output_size, "output_size")?;
    ok(fold::fold(x.core()?, size, blocks(&kernel_size, &options)?))
}

/// `adaptive_avg_pool2d(x, output_size)`: output sizes that divide the input's.
#[wasm_bindgen]
pub fn adaptive_avg_pool2d(x: &Tensor, output_size: JsValue) -> JsResult<Tensor> {
    ok(conv::adaptive_avg_pool2d(x.core()?, pair_of(&output_size, "output_size")?))
}

fn opt_core(t: &Option<Tensor>) -> JsResult<Option<&vkml_core::api::Tensor>> {
    t.as_ref().map(|t| t.core()).transpose()
}

/// `batch_norm(x, running_mean, running_var, weight, bias, {training, momentum, eps})`: batch statistics in
/// training (updating the running ones in place), the running ones otherwise.
#[wasm_bindgen(js_name = "_batch_norm")]
pub fn batch_norm(
    x: &Tensor,
    running_mean: Option<Tensor>,
    running_var: Option<Tensor>,
    weight: Option<Tensor>,
    bias: Option<Tensor>,
    options: JsValue,
) -> JsResult<Tensor> {
    ok(norm::batch_norm(
        x.core()?,
        opt_core(&running_mean)?,
        opt_core(&running_var)?,
        opt_core(&weight)?,
        opt_core(&bias)?,
        opt_bool(&options, "training")?.unwrap_or(false),
        opt_f64(&options, "momentum")?.unwrap_or(0.1),
        opt_f64(&options, "eps")?.unwrap_or(1e-5),
    ))
}

/// `layer_norm(x, normalized_shape, weight, bias, {eps})`.
#[wasm_bindgen(js_name = "_layer_norm")]
pub fn layer_norm(
    x: &Tensor,
    normalized_shape: JsValue,
    weight: Option<Tensor>,
    bias: Option<Tensor>,
    options: JsValue,
) -> JsResult<Tensor> {
    let shape = match normalized_shape.as_f64() {
        Some(n) => vec![usize_of(n, "normalized_shape")?],
        None => crate::convert::shape_of(&normalized_shape, "normalized_shape")?,
    };
    let eps = opt_f64(&options, "eps")?.unwrap_or(1e-5);
    ok(norm::layer_norm(x.core()?, &shape, opt_core(&weight)?, opt_core(&bias)?, eps))
}

/// `group_norm(x, num_groups, weight, bias, {eps})`.
#[wasm_bindgen(js_name = "_group_norm")]
pub fn group_norm(
    x: &Tensor,
    num_groups: f64,
    weight: Option<Tensor>,
    bias: Option<Tensor>,
    options: JsValue,
) -> JsResult<Tensor> {
    let groups = usize_of(num_groups, "num_groups")?;
    let eps = opt_f64(&options, "eps")?.unwrap_or(1e-5);
    ok(norm::group_norm(x.core()?, groups, opt_core(&weight)?, opt_core(&bias)?, eps))
}

/// `pad(x, pad, {mode, value})`: (before, after) pairs from the last dim; constant, reflect, replicate, circular.
#[wasm_bindgen]
pub fn pad(x: &Tensor, pad: Vec<f64>, options: JsValue) -> JsResult<Tensor> {
    let mode =
        vkml_core::api::pad::PadMode::parse(opt_string(&options, "mode")?.as_deref().unwrap_or("constant")).js()?;
    let amounts: Vec<i64> = pad.iter().map(|&p| p as i64).collect();
    ok(vkml_core::api::pad::pad(x.core()?, &amounts, mode, opt_f64(&options, "value")?.unwrap_or(0.0)))
}
