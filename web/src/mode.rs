//! Execution mode and counters for JavaScript, as Python's `vkml.set_eager`, `vkml.is_eager` and `vkml.stats`.

use wasm_bindgen::prelude::*;

use vkml_core::tensor::realize;
use vkml_core::util::stats::{get, COUNTERS};

use crate::JsResult;

/// Run each operation as it is called (true) or record lazily until a value is read (false, the default).
#[wasm_bindgen]
pub fn set_eager(on: bool) {
    realize::set_eager(on);
}

#[wasm_bindgen]
pub fn is_eager() -> bool {
    realize::is_eager()
}

/// The engine's counters (realizations, dispatches, bytes moved, ...) as an object of numbers.
#[wasm_bindgen]
pub fn stats() -> JsResult<js_sys::Object> {
    let out = js_sys::Object::new();
    for (c, name) in COUNTERS {
        js_sys::Reflect::set(&out, &name.into(), &(get(c) as f64).into())?;
    }
    Ok(out)
}
