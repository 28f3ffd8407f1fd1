//! The functions `vkml_core::described_functions!` describes, bound for JavaScript: the tensors, an options object
//! with torch's names and defaults, then the optional tensors (fresh handles: wasm-bindgen takes them over). The
//! package's wrapper (`npm/described.js`) reads `_described()` to place each in its namespace and to accept the
//! options positionally too; the typed declarations (`DescribedTorch`, `DescribedFunctional`) are generated here
//! from the same rows into the package's `.d.ts`.

use wasm_bindgen::prelude::*;

use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::KlReduction;

use crate::convert::{opt_bool, opt_f64, opt_i64, opt_string};
use crate::ops::ok;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// An option's value from the options object, as the core function takes it.
macro_rules! option {
    (f64, $options:expr, $key:expr, $default:expr) => {
        opt_f64($options, $key)?.unwrap_or($default)
    };
    (maybe_f64, $options:expr, $key:expr, $default:expr) => {
        opt_f64($options, $key)?
    };
    (i64, $options:expr, $key:expr, $default:expr) => {
        opt_i64($options, $key)?.unwrap_or($default)
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

/// An option's TypeScript type. (Only the wasm build emits the declarations, so natively these macros go unused.)
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_macros))]
macro_rules! ts_type {
    (f64) => {
        "number"
    };
    (i64) => {
        "number"
    };
    (maybe_f64) => {
        "number | null"
    };
    (bool) => {
        "boolean"
    };
    (str) => {
        "string"
    };
    (Reduction) => {
        "\"mean\" | \"sum\" | \"none\""
    };
    (KlReduction) => {
        "\"mean\" | \"sum\" | \"none\" | \"batchmean\""
    };
}

/// One row's declarations if it belongs to the namespace asked for (the first token; `method` asks for the `Tensor`
/// rows as methods, without their first tensor), else nothing: the documented positional form, then the
/// options-object form.
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_macros))]
macro_rules! ts_row {
    (torch torch $($row:tt)*) => {
        ts_row!(@ $($row)*)
    };
    (torch Tensor $($row:tt)*) => {
        ts_row!(@ $($row)*)
    };
    (F F $($row:tt)*) => {
        ts_row!(@ $($row)*)
    };
    (method Tensor [$($doc:literal)*] $name:ident [$t0:ident $($t:ident)*] [$($ot:ident)*]
        [$($o:ident $kind:ident [$($v:tt)+])*]) => {
        concat!(
            "  /**", $($doc, "\n   *",)* " Options (positional after the tensors, in this order, or one object):",
            $(" ", stringify!($ot), " = null;",)* $(" ", stringify!($o), " = ", $(stringify!($v),)+ ";",)*
            "\n   */\n  ", stringify!($name), "(", $(stringify!($t), ": Tensor, ",)*
            $(stringify!($ot), "?: Tensor | null, ",)* $(stringify!($o), "?: ", ts_type!($kind), ", ",)* "): Tensor;\n  ",
            stringify!($name), "(", $(stringify!($t), ": Tensor, ",)* "options?: {",
            $(" ", stringify!($ot), "?: Tensor | null;",)* $(" ", stringify!($o), "?: ", ts_type!($kind), ";",)* " }): Tensor;\n"
        )
    };
    ($want:ident $ns:ident $($row:tt)*) => {
        ""
    };
    (@ [$($doc:literal)*] $name:ident [$t0:ident $($t:ident)*] [$($ot:ident)*] [$($o:ident $kind:ident [$($v:tt)+])*]) => {
        concat!(
            "  /**", $($doc, "\n   *",)* " Options (positional after the tensors, in this order, or one object):",
            $(" ", stringify!($ot), " = null;",)* $(" ", stringify!($o), " = ", $(stringify!($v),)+ ";",)*
            "\n   */\n  ", stringify!($name), "(", stringify!($t0), ": Tensor", $(", ", stringify!($t), ": Tensor",)*
            $(", ", stringify!($ot), "?: Tensor | null",)* $(", ", stringify!($o), "?: ", ts_type!($kind),)* "): Tensor;\n  ",
            stringify!($name), "(", stringify!($t0), ": Tensor", $(", ", stringify!($t), ": Tensor",)* ", options?: {",
            $(" ", stringify!($ot), "?: Tensor | null;",)* $(" ", stringify!($o), "?: ", ts_type!($kind), ";",)* " }): Tensor;\n"
        )
    };
}

macro_rules! bind_described {
    ($(
        $(#[doc = $doc:literal])*
        $ns:ident $name:ident($($t:ident),+ $({$($ot:ident),+})?; $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path;
    )*) => {
        $(
            #[wasm_bindgen(skip_typescript)]
            // A row without options (linear) still takes the options object that npm/described.js passes.
            #[allow(unused_variables)]
            pub fn $name($($t: &Tensor,)+ options: JsValue, $($($ot: Option<Tensor>,)+)?) -> JsResult<Tensor> {
                $($(let $ot = $ot.as_ref().map(Tensor::core).transpose()?;)+)?
                ok($f($($t.core()?,)+ $($($ot,)+)? $(option!($kind, &options, stringify!($o), $($v)+),)*))
            }
        )*

        /// Each described function as `[namespace, name, tensor count, optional tensor names, option names]`.
        #[wasm_bindgen(js_name = "_described", unchecked_return_type = "[string, string, number, string[], string[]][]")]
        pub fn described() -> js_sys::Array {
            let row = |ns: &str, name: &str, tensors: usize, optional: &[&str], options: &[&str]| {
                let names = |list: &[&str]| list.iter().map(|s| JsValue::from_str(s)).collect::<js_sys::Array>();
                js_sys::Array::of5(&ns.into(), &name.into(), &(tensors as f64).into(), &names(optional), &names(options))
            };
            [$(row(
                stringify!($ns),
                stringify!($name),
                [$(stringify!($t)),+].len(),
                &[$($(stringify!($ot)),+)?],
                &[$(stringify!($o)),*],
            )),*]
            .into_iter()
            .collect()
        }

        #[wasm_bindgen(typescript_custom_section)]
        const DESCRIBED_TS: &str = concat!(
            "/** torch's functions of the `torch` namespace that the engine describes once (vkml.addmm, ...). */\n",
            "export interface DescribedTorch {\n",
            $(ts_row!(torch $ns [$($doc)*] $name [$($t)+] [$($($ot)+)?] [$($o $kind [$($v)+])*]),)*
            "}\n/** torch.Tensor's methods that the engine describes once (x.tril(), ...), merged into the class. */\n",
            "export interface Tensor {\n",
            $(ts_row!(method $ns [$($doc)*] $name [$($t)+] [$($($ot)+)?] [$($o $kind [$($v)+])*]),)*
            "}\n/** torch.nn.functional's functions that the engine describes once (vkml.nn.functional...). */\n",
            "export interface DescribedFunctional {\n",
            $(ts_row!(F $ns [$($doc)*] $name [$($t)+] [$($($ot)+)?] [$($o $kind [$($v)+])*]),)*
            "}\n"
        );
    };
}
vkml_core::described_functions!(bind_described);
