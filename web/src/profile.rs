//! The profiler for JavaScript (`vkml_core::backend::profile`): start and stop a recording (the package's
//! `vkml.profile(fn)` wraps them); the session it hands back renders its table and Chrome trace and lists its
//! kernels. The host clock is the page's `performance.now()`, which Rust's std lacks in a browser.

use wasm_bindgen::prelude::*;

use vkml_core::backend::profile::{self, Session};

use crate::{JsResult, OrJs};

/// `performance.now()` in milliseconds (0 where the runtime has no `performance`).
fn performance_now() -> f64 {
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let now = performance.as_ref().and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok());
    match (performance, now.and_then(|f| f.dyn_into::<js_sys::Function>().ok())) {
        (Some(p), Some(now)) => now.call0(&p).ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Start recording (one recording at a time).
#[wasm_bindgen(js_name = "_profile_start")]
pub fn profile_start() -> JsResult<()> {
    profile::set_clock(performance_now);
    profile::start().js()
}

/// Stop recording and hand back what it saw.
#[wasm_bindgen(js_name = "_profile_stop")]
pub fn profile_stop() -> ProfileSession {
    ProfileSession(profile::stop())
}

/// What one recording saw.
#[wasm_bindgen]
pub struct ProfileSession(Session);

#[wasm_bindgen]
impl ProfileSession {
    /// Where the time went, one line per kernel group.
    pub fn table(&self) -> String {
        self.0.table()
    }

    /// The Chrome trace-event JSON (Perfetto opens it).
    pub fn chrome_trace(&self) -> String {
        self.0.chrome_trace()
    }

    /// Summed device time of the timed kernels (ms).
    #[wasm_bindgen(getter)]
    pub fn device_ms(&self) -> f64 {
        self.0.device_ms()
    }

    /// Summed host time of the realizations (ms).
    #[wasm_bindgen(getter)]
    pub fn host_ms(&self) -> f64 {
        self.0.host_ms()
    }

    /// What could not be measured.
    #[wasm_bindgen(getter)]
    pub fn notes(&self) -> Vec<String> {
        self.0.notes.clone()
    }

    /// One object per kernel: device, op, pipeline, shape, dtype, bytes, flops, batch, device_ms (undefined where
    /// the device has no timestamps).
    #[wasm_bindgen(
        getter,
        unchecked_return_type = "{ device: string; op: string; pipeline: string; shape: number[]; \
        dtype: string; bytes: number; flops: number; batch: number; device_ms?: number }[]"
    )]
    pub fn kernels(&self) -> JsResult<js_sys::Array> {
        let out = js_sys::Array::new();
        for k in &self.0.kernels {
            let o = js_sys::Object::new();
            let set = |key: &str, v: JsValue| js_sys::Reflect::set(&o, &key.into(), &v).map(|_| ());
            set("device", k.device.as_str().into())?;
            set("op", k.op.into())?;
            set("pipeline", k.pipeline.into())?;
            set("shape", k.shape.iter().map(|d| JsValue::from(*d as f64)).collect::<js_sys::Array>().into())?;
            set("dtype", k.dtype.into())?;
            set("bytes", (k.bytes as f64).into())?;
            set("flops", (k.flops as f64).into())?;
            set("batch", (k.batch as f64).into())?;
            if let Some(ns) = k.device_ns {
                set("device_ms", (ns / 1e6).into())?;
            }
            out.push(&o);
        }
        Ok(out)
    }
}
