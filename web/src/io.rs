//! State dicts as safetensors bytes: `vkml.load_safetensors(bytes)` gives `{name: Tensor}` and
//! `await vkml.save_safetensors({name: Tensor})` the bytes (the same reader and writer as Python's `vkml.load`/`save`).

use wasm_bindgen::prelude::*;

use vkml_core::io::safetensors::{load_safetensors as load, serialize, Entry};
use vkml_core::tensor::realize::read_bytes_async;

use crate::device::parse;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// The tensors in safetensors `bytes`, as an object from name to tensor on `device` (default "cpu").
#[wasm_bindgen]
pub fn load_safetensors(bytes: &[u8], device: Option<String>) -> JsResult<js_sys::Object> {
    let tensors = load(bytes, parse(device)?).js()?;
    let out = js_sys::Object::new();
    for (name, t) in tensors {
        js_sys::Reflect::set(&out, &name.into(), &Tensor::wrap(t).into())?;
    }
    Ok(out)
}

/// safetensors bytes of `names[i] → tensors[i]` (the package's `save_safetensors(obj)` passes an object's entries).
/// Async: the values are read back from their devices first.
#[wasm_bindgen(js_name = "_save_safetensors")]
pub async fn save_safetensors(names: Vec<String>, tensors: Vec<Tensor>) -> JsResult<Vec<u8>> {
    if names.len() != tensors.len() {
        return Err(js_sys::Error::new("save_safetensors: one name per tensor").into());
    }
    let mut entries = Vec::with_capacity(names.len());
    for (name, t) in names.into_iter().zip(tensors.iter()) {
        let t = t.core()?;
        let bytes = read_bytes_async(t).await.js()?;
        entries.push(Entry { name, dtype: t.dtype(), shape: t.shape().to_vec(), bytes });
    }
    serialize(&entries, None).js()
}
