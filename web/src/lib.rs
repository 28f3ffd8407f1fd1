//! vkml for JavaScript (wasm-bindgen): the engine compiled once more for wasm32. Tensors, ops, autograd, the network
//! math and the optimizers are the Rust ones; the npm package's `index.js` only arranges them into `vkml.nn` and
//! `vkml.optim`, dispatches tensor-or-number arguments, and adds `Module` classes that users can subclass.

mod activation;
mod affine;
mod attention;
mod convert;
mod described;
mod device;
mod einsum;
mod gather;
mod io;
mod memory;
mod mode;
mod ops;
mod optim;
mod profile;
mod random;
mod rnn;
mod scan;
mod tensor;
mod vector_norm;
mod weighted;

use wasm_bindgen::JsValue;

pub use tensor::Tensor;

/// Every exported function returns this; the error is a JavaScript `TypeError`, `RangeError` or `Error`.
pub(crate) type JsResult<T> = Result<T, JsValue>;

/// vkml's error as the JavaScript exception a user expects: wrong dtypes are `TypeError`s, out-of-range indices and
/// dims `RangeError`s, the rest `Error`s; the message is the engine's own.
pub(crate) fn err(e: vkml_core::Error) -> JsValue {
    use vkml_core::Error as E;
    let msg = e.to_string();
    match e {
        E::Dtype(_) => js_sys::TypeError::new(&msg).into(),
        E::Index(_) | E::Bounds(_) => js_sys::RangeError::new(&msg).into(),
        E::Shape(_) | E::Value(_) | E::Device(_) | E::Unsupported(_) | E::Runtime(_) | E::Backend(_) | E::Io(_) => {
            js_sys::Error::new(&msg).into()
        }
    }
}

/// A `TypeError` for a JavaScript argument of the wrong kind.
pub(crate) fn type_error(msg: &str) -> JsValue {
    js_sys::TypeError::new(msg).into()
}

/// Map engine results into JavaScript ones.
pub(crate) trait OrJs<T> {
    fn js(self) -> JsResult<T>;
}

impl<T> OrJs<T> for vkml_core::Result<T> {
    fn js(self) -> JsResult<T> {
        self.map_err(err)
    }
}
