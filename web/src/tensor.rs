//! The JavaScript `Tensor`: creation, properties, reading values (async, since a page cannot block), devices,
//! dtypes, autograd state, and `dispose()`.

use wasm_bindgen::prelude::*;

use vkml_core::api::Tensor as Core;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::tensor::realize::read_bytes_async;

use crate::convert::{field, opt_bool, opt_dtype, opt_string, readable, shape_of, tensor_from_js, typed_array};
use crate::device::parse;
use crate::{JsResult, OrJs};

/// A tensor. Operations build a lazy graph; `await t.data()` realizes it and reads the values.
#[wasm_bindgen]
pub struct Tensor {
    inner: Option<Core>,
}

impl Tensor {
    pub(crate) fn wrap(t: Core) -> Tensor {
        Tensor { inner: Some(t) }
    }

    /// The engine tensor, or the error a disposed tensor gives.
    pub(crate) fn core(&self) -> JsResult<&Core> {
        self.inner.as_ref().ok_or_else(|| {
            js_sys::Error::new("this tensor was disposed (t.dispose()) and can no longer be used").into()
        })
    }
}

/// `vkml.tensor(data, {dtype, device, requires_grad, shape})`: from a number, a boolean, nested arrays or a typed
/// array (Float32Array → float32, Float64Array → float64, Int32Array and smaller integer arrays → int32,
/// BigInt64Array → int64). Nested arrays of numbers give float32, of booleans bool.
#[wasm_bindgen]
pub fn tensor(data: JsValue, options: JsValue) -> JsResult<Tensor> {
    let device = parse(opt_string(&options, "device")?)?;
    let t = tensor_from_js(&data, &options, device)?;
    if opt_bool(&options, "requires_grad")?.unwrap_or(false) {
        t.set_requires_grad(true).js()?;
    }
    Ok(Tensor::wrap(t))
}

/// A filled tensor of `shape` (`zeros`, `ones`, `full`, `rand`, `randn` share the options).
fn filled(
    shape: JsValue,
    options: &JsValue,
    make: impl FnOnce(&[usize], DType, vkml_core::base::buffer::DeviceId) -> vkml_core::Result<Core>,
) -> JsResult<Tensor> {
    let shape = shape_of(&shape, "shape")?;
    let dtype = opt_dtype(options)?.unwrap_or(DType::F32);
    let device = parse(opt_string(options, "device")?)?;
    let t = make(&shape, dtype, device).js()?;
    if opt_bool(options, "requires_grad")?.unwrap_or(false) {
        t.set_requires_grad(true).js()?;
    }
    Ok(Tensor::wrap(t))
}

/// The creators of a shape (`vkml_core::sized_creators!` lists them): `(shape, {dtype, device, requires_grad})`.
macro_rules! sized {
    ($($(#[doc = $doc:literal])* $name:ident => $make:path;)*) => {$(
        $(#[doc = $doc])*
        #[wasm_bindgen]
        pub fn $name(shape: JsValue, options: JsValue) -> JsResult<Tensor> {
            filled(shape, &options, $make)
        }
    )*};
}
vkml_core::sized_creators!(sized);

#[wasm_bindgen]
pub fn full(shape: JsValue, value: f64, options: JsValue) -> JsResult<Tensor> {
    filled(shape, &options, |s, d, dev| Core::full(s, Scalar::Float(value), d, dev))
}

/// `arange(start, end, step, {dtype, device})`: float32 unless `dtype` says otherwise.
#[wasm_bindgen]
pub fn arange(start: f64, end: f64, step: Option<f64>, options: JsValue) -> JsResult<Tensor> {
    let dtype = opt_dtype(&options)?.unwrap_or(DType::F32);
    let device = parse(opt_string(&options, "device")?)?;
    let step = step.unwrap_or(1.0);
    let t = Core::arange(Scalar::Float(start), Scalar::Float(end), Scalar::Float(step), dtype, device).js()?;
    Ok(Tensor::wrap(t))
}

/// `linspace(start, end, steps, {dtype, device})`.
#[wasm_bindgen]
pub fn linspace(start: f64, end: f64, steps: f64, options: JsValue) -> JsResult<Tensor> {
    let dtype = opt_dtype(&options)?.unwrap_or(DType::F32);
    let device = parse(opt_string(&options, "device")?)?;
    Ok(Tensor::wrap(Core::linspace(start, end, steps as i64, dtype, device).js()?))
}

/// `eye(n, m = n, {dtype, device})`.
#[wasm_bindgen]
pub fn eye(n: f64, m: Option<f64>, options: JsValue) -> JsResult<Tensor> {
    let dtype = opt_dtype(&options)?.unwrap_or(DType::F32);
    let device = parse(opt_string(&options, "device")?)?;
    let size = |v: f64| crate::convert::usize_of(v, "eye size");
    Ok(Tensor::wrap(Core::eye(size(n)?, size(m.unwrap_or(n))?, dtype, device).js()?))
}

#[wasm_bindgen]
impl Tensor {
    /// The sizes, as a plain array of numbers.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> JsResult<js_sys::Array> {
        Ok(self.core()?.shape().iter().map(|&d| JsValue::from_f64(d as f64)).collect())
    }

    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> JsResult<String> {
        Ok(self.core()?.dtype().name().to_string())
    }

    #[wasm_bindgen(getter)]
    pub fn device(&self) -> JsResult<String> {
        Ok(vkml_core::dispatch::label(self.core()?.device()))
    }

    #[wasm_bindgen(getter)]
    pub fn ndim(&self) -> JsResult<usize> {
        Ok(self.core()?.ndim())
    }

    pub fn numel(&self) -> JsResult<usize> {
        Ok(self.core()?.numel())
    }

    /// Whether `dispose()` was called.
    #[wasm_bindgen(getter)]
    pub fn disposed(&self) -> bool {
        self.inner.is_none()
    }

    /// Release this handle now rather than when the garbage collector finds it; the values stay alive while other
    /// tensors (views, the graph) still use them. Using the tensor afterwards throws.
    pub fn dispose(&mut self) {
        self.inner = None;
    }

    /// The values as a typed array (see `vkml.tensor` for the types), realizing the pending graph.
    pub async fn data(&self) -> JsResult<JsValue> {
        crate::gather::raise_deferred().await?;
        let t = readable(self.core()?)?;
        let bytes = read_bytes_async(&t).await.js()?;
        Ok(typed_array(&bytes, t.dtype()))
    }

    /// The one value of a one-element tensor: a number (a BigInt for int64 beyond 2^53), or a boolean.
    pub async fn item(&self) -> JsResult<JsValue> {
        let core = self.core()?;
        if core.numel() != 1 {
            return Err(js_sys::Error::new(&format!(
                "a Tensor with {} elements cannot be converted to a scalar",
                core.numel()
            ))
            .into());
        }
        crate::gather::raise_deferred().await?;
        let t = readable(core)?;
        let b = read_bytes_async(&t).await.js()?;
        let word = |n: usize| -> [u8; 8] {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&b[..n]);
            w
        };
        Ok(match t.dtype() {
            DType::Bool => JsValue::from_bool(b[0] != 0),
            DType::F32 | DType::F16 | DType::BF16 => {
                JsValue::from_f64(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
            }
            DType::F64 => JsValue::from_f64(f64::from_le_bytes(word(8))),
            DType::I32 => JsValue::from_f64(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
            DType::I64 => {
                let v = i64::from_le_bytes(word(8));
                if v.unsigned_abs() <= 1 << 53 {
                    JsValue::from_f64(v as f64)
                } else {
                    js_sys::BigInt::from(v).into()
                }
            }
        })
    }

    /// A copy on `device` ("cpu", "webgpu"), or with `{dtype}` converted: `t.to("webgpu")`, `t.to({dtype: "int32"})`.
    pub fn to(&self, target: JsValue) -> JsResult<Tensor> {
        let mut t = self.core()?.clone();
        if let Some(d) = target.as_string() {
            t = t.to_device(parse(Some(d))?).js()?;
        } else {
            if let Some(d) = opt_string(&target, "device")? {
                t = t.to_device(parse(Some(d))?).js()?;
            }
            if let Some(d) = opt_dtype(&target)? {
                t = t.to_dtype(d).js()?;
            }
            if field(&target, "device").is_none() && field(&target, "dtype").is_none() {
                return Err(crate::type_error("to() takes a device name or {device, dtype}"));
            }
        }
        Ok(Tensor::wrap(t))
    }

    pub fn cpu(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.to_device(parse(None)?).js()?))
    }

    pub fn float(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.to_dtype(DType::F32).js()?))
    }

    pub fn int(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.to_dtype(DType::I32).js()?))
    }

    pub fn long(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.to_dtype(DType::I64).js()?))
    }

    pub fn contiguous(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.contiguous().js()?))
    }

    /// A copy with its own memory (`t.clone()`; recorded for autograd).
    #[wasm_bindgen(js_name = "clone")]
    pub fn copy(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.copy().js()?))
    }

    // --- autograd -------------------------------------------------------------------------------------------------

    #[wasm_bindgen(getter)]
    pub fn requires_grad(&self) -> JsResult<bool> {
        Ok(self.core()?.requires_grad())
    }

    #[wasm_bindgen(setter)]
    pub fn set_requires_grad(&self, on: bool) -> JsResult<()> {
        self.core()?.set_requires_grad(on).js()
    }

    /// `t.requires_grad_(on = true)`, returning a handle to the same tensor.
    pub fn requires_grad_(&self, on: Option<bool>) -> JsResult<Tensor> {
        let t = self.core()?;
        t.set_requires_grad(on.unwrap_or(true)).js()?;
        Ok(Tensor::wrap(t.clone()))
    }

    /// The accumulated gradient, or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn grad(&self) -> JsResult<Option<Tensor>> {
        Ok(self.core()?.grad().map(Tensor::wrap))
    }

    #[wasm_bindgen(getter)]
    pub fn is_leaf(&self) -> JsResult<bool> {
        Ok(self.core()?.is_leaf())
    }

    /// A tensor sharing the values with no history.
    pub fn detach(&self) -> JsResult<Tensor> {
        Ok(Tensor::wrap(self.core()?.detach()))
    }

    /// Accumulate gradients of this tensor into the leaves' `.grad`: `t.backward()`, or
    /// `t.backward(gradient, {retain_graph})` for a non-scalar `t`.
    #[wasm_bindgen(js_name = "_backward")]
    pub fn backward(&self, gradient: Option<Tensor>, options: JsValue) -> JsResult<()> {
        let g = gradient.map(|g| g.core().cloned()).transpose()?;
        let retain = opt_bool(&options, "retain_graph")?.unwrap_or(false);
        vkml_core::autograd::backward(&[(self.core()?.clone(), g)], retain, None).js()
    }

    /// Reset the gradient (`t.grad = undefined` in effect).
    pub fn zero_grad(&self) -> JsResult<()> {
        self.core()?.set_grad(None).js()
    }
}

/// Run `f` with gradient recording off (`with vkml.no_grad():` in Python), returning what it returns.
#[wasm_bindgen]
pub fn no_grad(f: &js_sys::Function) -> JsResult<JsValue> {
    let before = vkml_core::tensor::grad::set_grad_enabled(false);
    let out = f.call0(&JsValue::UNDEFINED);
    vkml_core::tensor::grad::set_grad_enabled(before);
    out
}

/// Whether operations record history now.
#[wasm_bindgen]
pub fn is_grad_enabled() -> bool {
    vkml_core::tensor::grad::is_grad_enabled()
}
