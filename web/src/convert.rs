//! JavaScript values to tensors and back: typed arrays keep their dtype, nested arrays and numbers become float32
//! (bool for booleans), and reading returns the typed array of the tensor's dtype.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use vkml_core::api::Tensor as Core;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;

use crate::device::cpu;
use crate::{type_error, JsResult, OrJs};

/// A field of an options object, `None` when the object or the field is missing or `undefined`.
pub(crate) fn field(options: &JsValue, key: &str) -> Option<JsValue> {
    if !options.is_object() {
        return None;
    }
    js_sys::Reflect::get(options, &key.into()).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

pub(crate) fn opt_string(options: &JsValue, key: &str) -> JsResult<Option<String>> {
    field(options, key)
        .map(|v| v.as_string().ok_or_else(|| type_error(&format!("option '{key}' must be a string"))))
        .transpose()
}

pub(crate) fn opt_bool(options: &JsValue, key: &str) -> JsResult<Option<bool>> {
    field(options, key)
        .map(|v| v.as_bool().ok_or_else(|| type_error(&format!("option '{key}' must be a boolean"))))
        .transpose()
}

pub(crate) fn opt_f64(options: &JsValue, key: &str) -> JsResult<Option<f64>> {
    field(options, key)
        .map(|v| v.as_f64().ok_or_else(|| type_error(&format!("option '{key}' must be a number"))))
        .transpose()
}

/// An integer option (a number with no fraction, exact in a double).
pub(crate) fn opt_i64(options: &JsValue, key: &str) -> JsResult<Option<i64>> {
    opt_f64(options, key)?
        .map(|v| {
            (v.fract() == 0.0 && v.abs() <= 2f64.powi(53))
                .then_some(v as i64)
                .ok_or_else(|| type_error(&format!("option '{key}' must be an integer, not {v}")))
        })
        .transpose()
}

pub(crate) fn opt_dtype(options: &JsValue) -> JsResult<Option<DType>> {
    opt_string(options, "dtype")?.map(|n| DType::from_name(&n).js()).transpose()
}

/// A non-negative integer argument (sizes, shapes), within this platform's address space (2^32 − 1 in wasm32).
pub(crate) fn usize_of(v: f64, what: &str) -> JsResult<usize> {
    if !(v >= 0.0 && v.fract() == 0.0 && v <= 2f64.powi(53)) {
        return Err(type_error(&format!("{what} must be a non-negative integer, not {v}")));
    }
    if v > usize::MAX as f64 {
        return Err(js_sys::RangeError::new(&format!(
            "{what} {v} exceeds this platform's sizes (at most {})",
            usize::MAX
        ))
        .into());
    }
    Ok(v as usize)
}

/// A shape from a JavaScript array of integers.
pub(crate) fn shape_of(v: &JsValue, what: &str) -> JsResult<Vec<usize>> {
    let arr = v.dyn_ref::<js_sys::Array>().ok_or_else(|| type_error(&format!("{what} must be an array of sizes")))?;
    arr.iter()
        .map(|d| {
            d.as_f64().ok_or_else(|| type_error(&format!("{what} must hold numbers"))).and_then(|d| usize_of(d, what))
        })
        .collect()
}

/// The bytes of a typed array's visible part.
fn typed_bytes(buffer: &js_sys::ArrayBuffer, offset: u32, len: u32) -> Vec<u8> {
    js_sys::Uint8Array::new_with_byte_offset_and_length(buffer, offset, len).to_vec()
}

/// A tensor from `data` (a number, a boolean, a typed array, or nested arrays of numbers or booleans).
pub(crate) fn tensor_from_js(data: &JsValue, options: &JsValue, device: DeviceId) -> JsResult<Core> {
    let cpu = cpu()?;
    let shape_opt = field(options, "shape").map(|s| shape_of(&s, "shape")).transpose()?;
    let (bytes, shape, dtype) = if let Some(a) = data.dyn_ref::<js_sys::Float32Array>() {
        (typed_bytes(&a.buffer(), a.byte_offset(), a.byte_length()), vec![a.length() as usize], DType::F32)
    } else if let Some(a) = data.dyn_ref::<js_sys::Float64Array>() {
        (typed_bytes(&a.buffer(), a.byte_offset(), a.byte_length()), vec![a.length() as usize], DType::F64)
    } else if let Some(a) = data.dyn_ref::<js_sys::Int32Array>() {
        (typed_bytes(&a.buffer(), a.byte_offset(), a.byte_length()), vec![a.length() as usize], DType::I32)
    } else if let Some(a) = data.dyn_ref::<js_sys::BigInt64Array>() {
        (typed_bytes(&a.buffer(), a.byte_offset(), a.byte_length()), vec![a.length() as usize], DType::I64)
    } else if data.is_instance_of::<js_sys::Uint8Array>()
        || data.is_instance_of::<js_sys::Uint8ClampedArray>()
        || data.is_instance_of::<js_sys::Int8Array>()
        || data.is_instance_of::<js_sys::Int16Array>()
        || data.is_instance_of::<js_sys::Uint16Array>()
    {
        // vkml has no 8- or 16-bit integer dtypes: small integers (canvas pixels, say) widen exactly to int32.
        let wide = js_sys::Int32Array::new(data);
        let n = wide.length() as usize;
        (typed_bytes(&wide.buffer(), 0, wide.byte_length()), vec![n], DType::I32)
    } else if data.is_instance_of::<js_sys::Uint32Array>() || data.is_instance_of::<js_sys::BigUint64Array>() {
        return Err(type_error(
            "unsigned 32- and 64-bit arrays have no vkml dtype; pass an Int32Array or BigInt64Array",
        ));
    } else {
        if shape_opt.is_some() {
            return Err(type_error("option 'shape' is for typed arrays; nested arrays carry their own shape"));
        }
        let (values, shape, all_bool) = nested(data)?;
        let default = if all_bool && !values.is_empty() { DType::Bool } else { DType::F32 };
        let dtype = opt_dtype(options)?.unwrap_or(default);
        return from_values(&values, &shape, dtype, device);
    };
    let shape = shape_opt.unwrap_or(shape);
    // Host data is created on its device directly: the node keeps the host bytes, which lets class targets be
    // checked without reading them back from a GPU (a browser cannot wait for that).
    match opt_dtype(options)? {
        Some(d) if d != dtype => {
            Core::from_bytes(bytes, &shape, dtype, cpu).js()?.to_dtype(d).js()?.to_device(device).js()
        }
        _ => Core::from_bytes(bytes, &shape, dtype, device).js(),
    }
}

/// A tensor of `dtype` from f64 values: converted on the host where that is exact or a plain rounding, else (16-bit
/// floats, rounded to nearest even by the engine) cast on the CPU first.
fn from_values(values: &[f64], shape: &[usize], dtype: DType, device: DeviceId) -> JsResult<Core> {
    let bytes: Vec<u8> = match dtype {
        DType::F64 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        DType::F32 => values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
        DType::Bool => values.iter().map(|&v| u8::from(v != 0.0)).collect(),
        DType::I32 | DType::I64 if values.iter().any(|v| v.fract() != 0.0 || !v.is_finite()) => {
            return Err(type_error(&format!("{} tensors take integers only", dtype.name())));
        }
        DType::I32 => values.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect(),
        DType::I64 => values.iter().flat_map(|&v| (v as i64).to_le_bytes()).collect(),
        DType::F16 | DType::BF16 => {
            let wide: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let t = Core::from_bytes(wide, shape, DType::F64, cpu()?).js()?;
            return t.to_dtype(dtype).js()?.to_device(device).js();
        }
    };
    Core::from_bytes(bytes, shape, dtype, device).js()
}

/// The most dims nested arrays may give (NumPy's limit).
const MAX_DIMS: usize = 64;

/// The values of nested arrays (row-major, as f64), their shape, and whether every value is a boolean.
fn nested(data: &JsValue) -> JsResult<(Vec<f64>, Vec<usize>, bool)> {
    let mut shape = Vec::new();
    let mut probe = data.clone();
    while let Some(a) = probe.dyn_ref::<js_sys::Array>() {
        // The values are gathered recursively, one level a dim: a bound keeps that within the wasm stack.
        if shape.len() == MAX_DIMS {
            return Err(js_sys::RangeError::new(&format!(
                "tensor data nests arrays past {MAX_DIMS} levels (at most {MAX_DIMS} dims)"
            ))
            .into());
        }
        shape.push(a.length() as usize);
        probe = a.get(0);
    }
    let mut values = Vec::new();
    let mut all_bool = true;
    collect(data, &shape, &mut values, &mut all_bool)?;
    Ok((values, shape, all_bool))
}

fn collect(v: &JsValue, shape: &[usize], out: &mut Vec<f64>, all_bool: &mut bool) -> JsResult<()> {
    match shape.split_first() {
        None => {
            if let Some(b) = v.as_bool() {
                out.push(if b { 1.0 } else { 0.0 });
            } else if let Some(x) = v.as_f64() {
                *all_bool = false;
                out.push(x);
            } else {
                return Err(type_error("tensor data must be numbers or booleans (or nested arrays of them)"));
            }
            Ok(())
        }
        Some((&n, rest)) => {
            let a = v
                .dyn_ref::<js_sys::Array>()
                .filter(|a| a.length() as usize == n)
                .ok_or_else(|| type_error("nested arrays must be rectangular: every row of a level has one length"))?;
            a.iter().try_for_each(|x| collect(&x, rest, out, all_bool))
        }
    }
}

/// The typed array for a tensor's bytes: Float32Array (float16/bfloat16 are widened first), Float64Array,
/// Int32Array, BigInt64Array, or Uint8Array of 0/1 for bool.
pub(crate) fn typed_array(bytes: &[u8], dtype: DType) -> JsValue {
    let raw = js_sys::Uint8Array::from(bytes).buffer();
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => js_sys::Float32Array::new(&raw).into(),
        DType::F64 => js_sys::Float64Array::new(&raw).into(),
        DType::I32 => js_sys::Int32Array::new(&raw).into(),
        DType::I64 => js_sys::BigInt64Array::new(&raw).into(),
        DType::Bool => js_sys::Uint8Array::new(&raw).into(),
    }
}

/// Float16 and bfloat16 are read as float32 (exactly); other dtypes as they are.
pub(crate) fn readable(t: &Core) -> JsResult<Core> {
    match t.dtype() {
        DType::F16 | DType::BF16 => t.to_dtype(DType::F32).js(),
        _ => Ok(t.clone()),
    }
}

/// The engine's tensors of a list of JavaScript ones (a layer's parameters, in its layout's order).
pub(crate) fn cores(params: &[crate::tensor::Tensor]) -> JsResult<Vec<Core>> {
    params.iter().map(|p| p.core().cloned()).collect()
}

/// A layout's `(name, shape)` list as `[[name, [sizes]], …]`.
pub(crate) fn named_shapes(list: Vec<(String, Vec<usize>)>) -> js_sys::Array {
    list.into_iter()
        .map(|(name, shape)| {
            let dims: js_sys::Array = shape.into_iter().map(|d| JsValue::from(d as f64)).collect();
            js_sys::Array::of2(&name.into(), &dims)
        })
        .collect()
}
