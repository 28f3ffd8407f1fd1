//! Checkpoints: `vkml.load_safetensors(bytes)` gives `{name: Tensor}`, `vkml.load(bytes)` also reads the zip
//! `torch.save` writes, and `await vkml.save_safetensors({name: Tensor})` gives the bytes (the same readers and
//! writer as Python's `vkml.load`/`save`).

use std::collections::HashMap;

use wasm_bindgen::prelude::*;

use vkml_core::io::safetensors::{load_safetensors as read_safetensors, serialize, Entry};
use vkml_core::io::torchfile::{load_torch, Value};
use vkml_core::tensor::realize::read_bytes_async;

use crate::device::parse;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// The tensors in safetensors `bytes`, as an object from name to tensor on `device` (default "cpu").
#[wasm_bindgen]
pub fn load_safetensors(bytes: &[u8], device: Option<String>) -> JsResult<js_sys::Object> {
    let out = js_sys::Object::new();
    for (name, t) in read_safetensors(bytes, parse(device)?).js()? {
        js_sys::Reflect::set(&out, &name.into(), &Tensor::wrap(t).into())?;
    }
    Ok(out)
}

/// A checkpoint's bytes, safetensors or the zip `torch.save` writes (read without running pickle code, as
/// Python's `vkml.load`), as JavaScript values: objects for dicts with string keys (Maps otherwise), arrays for
/// lists and tuples, tensors on `device` (default "cpu").
#[wasm_bindgen]
pub fn load(bytes: &[u8], device: Option<String>) -> JsResult<JsValue> {
    if bytes.starts_with(b"PK\x03\x04") {
        return to_js(load_torch(bytes, parse(device)?).js()?, &mut HashMap::new());
    }
    Ok(load_safetensors(bytes, device)?.into())
}

/// A checkpoint value as JavaScript values; a value the checkpoint shares is one object, which `given` holds by its
/// id from where it first appears.
fn to_js(v: Value, given: &mut HashMap<usize, JsValue>) -> JsResult<JsValue> {
    Ok(match v {
        Value::None => JsValue::NULL,
        Value::Bool(b) => b.into(),
        Value::Int(i) => (i as f64).into(),
        Value::Float(f) => f.into(),
        Value::Str(s) => s.into(),
        Value::List(items) | Value::Tuple(items) => {
            items.into_iter().map(|x| to_js(x, given)).collect::<JsResult<js_sys::Array>>()?.into()
        }
        Value::Dict(pairs) => {
            if pairs.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
                let out = js_sys::Object::new();
                for (k, v) in pairs {
                    js_sys::Reflect::set(&out, &to_js(k, given)?, &to_js(v, given)?)?;
                }
                out.into()
            } else {
                let out = js_sys::Map::new();
                for (k, v) in pairs {
                    out.set(&to_js(k, given)?, &to_js(v, given)?);
                }
                out.into()
            }
        }
        Value::Tensor(t) => Tensor::wrap(t).into(),
        Value::Shared(id, v) => {
            let ob = to_js(*v, given)?;
            given.insert(id, ob.clone());
            ob
        }
        Value::Ref(id) => given
            .get(&id)
            .cloned()
            .ok_or_else(|| js_sys::Error::new("the checkpoint refers to a value before it is complete"))?,
        Value::Storage(..) | Value::Global(_) | Value::Mark => {
            return Err(js_sys::Error::new("the checkpoint ends with a bare storage or callable, not data").into())
        }
    })
}

/// safetensors bytes of `names[i] → tensors[i]` (the package's `save_safetensors(obj)` passes an object's entries).
/// Async: the values are read back from their devices first.
#[wasm_bindgen(js_name = "_save_safetensors")]
pub async fn save_safetensors(names: Vec<String>, tensors: Vec<Tensor>) -> JsResult<Vec<u8>> {
    if names.len() != tensors.len() {
        return Err(js_sys::Error::new("save_safetensors: one name per tensor").into());
    }
    crate::gather::raise_deferred().await?;
    let mut entries = Vec::with_capacity(names.len());
    for (name, t) in names.into_iter().zip(tensors.iter()) {
        let t = t.core()?;
        let bytes = read_bytes_async(t).await.js()?;
        entries.push(Entry { name, dtype: t.dtype(), shape: t.shape().to_vec(), bytes });
    }
    serialize(&entries, None).js()
}
