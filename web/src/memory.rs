//! Device memory for JavaScript, with torch's names (`vkml_core::backend::memory`): what tensors hold, what the GPU
//! pool keeps for reuse on top, the peak and its reset, and empty_cache. `device` is a name; undefined is
//! `best_device()`'s choice, as in Python.

use wasm_bindgen::prelude::*;

use vkml_core::backend::memory::Memory;
use vkml_core::dispatch;

use vkml_core::base::buffer::DeviceId;

use crate::device::{cpu, parse};
use crate::{JsResult, OrJs};

fn device_or_best(device: Option<String>) -> JsResult<DeviceId> {
    match device {
        Some(name) => parse(Some(name)),
        None => {
            cpu()?;
            Ok(dispatch::best_device(true, "").js()?.0)
        }
    }
}

fn memory(device: Option<String>) -> JsResult<Memory> {
    Ok(dispatch::backend(device_or_best(device)?).js()?.memory())
}

/// torch's keys for what vkml counts: allocated_bytes.all.current and .peak, reserved_bytes.all.current.
#[wasm_bindgen(
    unchecked_return_type = "{ \"allocated_bytes.all.current\": number; \"allocated_bytes.all.peak\": number; \
    \"reserved_bytes.all.current\": number }"
)]
pub fn memory_stats(device: Option<String>) -> JsResult<js_sys::Object> {
    let m = memory(device)?;
    let out = js_sys::Object::new();
    for (key, v) in [
        ("allocated_bytes.all.current", m.allocated),
        ("allocated_bytes.all.peak", m.peak),
        ("reserved_bytes.all.current", m.reserved),
    ] {
        js_sys::Reflect::set(&out, &key.into(), &(v as f64).into())?;
    }
    Ok(out)
}

/// Bytes held by tensors' buffers on the device now.
#[wasm_bindgen]
pub fn memory_allocated(device: Option<String>) -> JsResult<f64> {
    Ok(memory(device)?.allocated as f64)
}

/// The most memory_allocated has been since start or reset_peak_memory_stats.
#[wasm_bindgen]
pub fn max_memory_allocated(device: Option<String>) -> JsResult<f64> {
    Ok(memory(device)?.peak as f64)
}

/// Bytes held from the device: allocated plus freed buffers the pool keeps for reuse.
#[wasm_bindgen]
pub fn memory_reserved(device: Option<String>) -> JsResult<f64> {
    Ok(memory(device)?.reserved as f64)
}

/// Start max_memory_allocated again from what is allocated now.
#[wasm_bindgen]
pub fn reset_peak_memory_stats(device: Option<String>) -> JsResult<()> {
    dispatch::backend(device_or_best(device)?).js()?.reset_peak_memory();
    Ok(())
}

/// Give the freed buffers the device's pool keeps back to the device.
#[wasm_bindgen]
pub fn empty_cache(device: Option<String>) -> JsResult<()> {
    dispatch::backend(device_or_best(device)?).js()?.empty_cache();
    Ok(())
}
