//! The functions `vkml_core::described_functions!` describes, bound for JavaScript: the tensors, an options object
//! with torch's names and defaults, then the optional tensors (fresh handles: wasm-bindgen takes them over); the
//! description's documentation goes into the generated `.d.ts`.

use wasm_bindgen::prelude::*;

use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::KlReduction;

use crate::convert::{opt_bool, opt_f64, opt_string};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// An option's value from the options object, as the core function takes it.
macro_rules! option {
    (f64, $options:expr, $key:expr, $default:expr) => {
        opt_f64($options, $key)?.unwrap_or($default)
    };
    (bool, $options:expr, $key:expr, $default:expr) => {
        opt_bool($options, $key)?.unwrap_or($default)
    };
    (str, $options:expr, $key:expr, $default:expr) => {
        opt_string($options, $key)?.as_deref().unwrap_or($default)
    };
    (Reduction, $options:expr, $key:expr, $default:expr) => {
        Reduction::parse(option!(str, $options, $key, $default)).js()?
    };
    (KlReduction, $options:expr, $key:expr, $default:expr) => {
        KlReduction::parse(option!(str, $options, $key, $default)).js()?
    };
}

macro_rules! bind_described {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident($($t:ident),+ $({$($ot:ident),+})?; $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[wasm_bindgen]
            pub fn $name($($t: &Tensor,)+ options: JsValue, $($($ot: Option<Tensor>,)+)?) -> JsResult<Tensor> {
                $($(let $ot = $ot.as_ref().map(Tensor::core).transpose()?;)+)?
                ok($f($($t.core()?,)+ $($($ot,)+)? $(option!($kind, &options, stringify!($o), $($v)+),)*))
            }
        )*
    };
}
vkml_core::described_functions!(bind_described);
