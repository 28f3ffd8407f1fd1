//! Devices in JavaScript: the CPU oracle always, the browser's WebGPU once `init_webgpu()` resolves, and
//! `best_device()` with the same `why` sentence as Python.

use std::cell::RefCell;
use std::sync::{Arc, Once};

use wasm_bindgen::prelude::*;

use vkml_backend_cpu::CpuBackend;
use vkml_core::base::buffer::DeviceId;
use vkml_core::dispatch;

use crate::{JsResult, OrJs};

static CPU: Once = Once::new();

thread_local! {
    /// Why WebGPU is not in use, once `init_webgpu` has tried (best_device's sentence names it).
    static NO_GPU: RefCell<String> =
        RefCell::new("WebGPU has not been opened (call await vkml.init_webgpu() first)".to_string());
}

/// The CPU device, registered on first use.
pub(crate) fn cpu() -> JsResult<DeviceId> {
    CPU.call_once(|| {
        dispatch::register(Arc::new(CpuBackend::new()));
    });
    dispatch::find("cpu").js()
}

/// A device by name ("cpu", "webgpu", "webgpu:floor"); `undefined` means the CPU.
pub(crate) fn parse(device: Option<String>) -> JsResult<DeviceId> {
    cpu()?;
    match device.as_deref() {
        None | Some("cpu") => cpu(),
        Some(label) => dispatch::find(label).js(),
    }
}

/// Open the browser's WebGPU adapter (`min_spec`: only the limits both Vulkan 1.3 and WebGPU guarantee, as
/// `VKML_MIN_SPEC=1` natively). Resolves to the device name, or rejects saying why there is no WebGPU; either way
/// `best_device()` then explains its choice.
#[wasm_bindgen]
pub async fn init_webgpu(min_spec: Option<bool>) -> JsResult<String> {
    cpu()?;
    match open(min_spec.unwrap_or(false)).await {
        Ok(id) => Ok(dispatch::label(id)),
        Err(why) => {
            NO_GPU.with(|n| *n.borrow_mut() = why.clone());
            Err(js_sys::Error::new(&why).into())
        }
    }
}

#[cfg(target_arch = "wasm32")]
async fn open(min_spec: bool) -> Result<DeviceId, String> {
    // wgpu's WebGPU instance panics where `navigator.gpu` is missing (Node, older browsers): ask first.
    let global = js_sys::global();
    let navigator = js_sys::Reflect::get(&global, &"navigator".into()).unwrap_or(JsValue::UNDEFINED);
    let gpu = if navigator.is_object() {
        js_sys::Reflect::get(&navigator, &"gpu".into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    };
    if gpu.is_undefined() || gpu.is_null() {
        return Err("this JavaScript runtime has no WebGPU (navigator.gpu is missing)".to_string());
    }
    let backend = vkml_backend_vulkan::VulkanBackend::new_webgpu(min_spec).await.map_err(|e| e.to_string())?;
    Ok(dispatch::register(Arc::new(backend)))
}

#[cfg(not(target_arch = "wasm32"))]
async fn open(_min_spec: bool) -> Result<DeviceId, String> {
    Err("WebGPU exists only in the wasm build (natively, use the Python package's Vulkan devices)".to_string())
}

/// The names of the open devices ("cpu" first).
#[wasm_bindgen]
pub fn devices() -> JsResult<Vec<String>> {
    cpu()?;
    Ok(dispatch::devices().into_iter().map(dispatch::label).collect())
}

/// `{device, why}`: WebGPU when it was opened (in a browser even a software adapter beats wasm on one thread), else
/// the CPU, with a sentence saying why.
#[wasm_bindgen]
pub fn best_device() -> JsResult<js_sys::Object> {
    cpu()?;
    let no_gpu = NO_GPU.with(|n| n.borrow().clone());
    let (id, why) = dispatch::best_device(true, &no_gpu).js()?;
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"device".into(), &dispatch::label(id).into())?;
    js_sys::Reflect::set(&out, &"why".into(), &why.into())?;
    Ok(out)
}

/// Seed the generator behind `rand`, `randn`, dropout and the initialisers (Philox, as in Python).
#[wasm_bindgen]
pub fn manual_seed(seed: f64) -> JsResult<()> {
    if !(seed >= 0.0 && seed.fract() == 0.0 && seed < 2f64.powi(64)) {
        return Err(crate::type_error(&format!("manual_seed takes a non-negative integer, not {seed}")));
    }
    vkml_core::api::create::manual_seed(seed as u64);
    Ok(())
}
