//! The functions `vkml_core::described_functions!` describes, bound for JavaScript: the tensors, an options object
//! with torch's names and defaults (the required arguments among them), then the optional tensors (fresh handles:
//! wasm-bindgen takes them over). The package's wrapper (`npm/described.js`) reads `_described()` to place each in
//! its namespace and to accept the required arguments and options positionally too; the typed declarations
//! (`DescribedTorch`, `DescribedFunctional`) are generated here from the same rows into the package's `.d.ts`.

use wasm_bindgen::prelude::*;

use vkml_core::nn::args::{Arg, Kind};
use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::KlReduction;

use crate::convert::{field, opt_bool, opt_f64, opt_i64, opt_string};
use crate::tensor::Tensor;
use crate::{type_error, JsResult, OrJs};

/// The field `key` of an options object as an `Arg`: missing, null or undefined is None; a number is an int where
/// it has no fraction; an array of numbers is ints or floats alike.
fn arg(options: &JsValue, key: &str) -> JsResult<Arg> {
    let Some(v) = field(options, key) else { return Ok(Arg::None) };
    let int = |x: f64| (x.fract() == 0.0 && x.abs() <= 2f64.powi(53)).then_some(x as i64);
    if let Some(x) = v.as_f64() {
        return Ok(int(x).map_or(Arg::Float(x), Arg::Int));
    }
    if let Some(s) = v.as_string() {
        return Ok(Arg::Str(s));
    }
    if js_sys::Array::is_array(&v) {
        let xs = js_sys::Array::from(&v).iter().map(|e| e.as_f64()).collect::<Option<Vec<f64>>>();
        if let Some(xs) = xs {
            return Ok(match xs.iter().map(|&x| int(x)).collect::<Option<Vec<i64>>>() {
                Some(ints) => Arg::Ints(ints),
                None => Arg::Floats(xs),
            });
        }
    }
    Err(type_error(&format!("{key} must be a number, a string or an array of numbers")))
}

/// A required argument (`npm/described.js` checks that it was given).
fn required(options: &JsValue, key: &str) -> JsResult<Arg> {
    match arg(options, key)? {
        Arg::None => Err(type_error(&format!("missing required argument '{key}'"))),
        given => Ok(given),
    }
}

/// What a row returns to JavaScript: a tensor, or (`as indices`) a tensor or a [values, indices] array.
trait Returned: Sized {
    type Core;
    fn from_core(c: Self::Core) -> Self;
}

impl Returned for Tensor {
    type Core = vkml_core::api::Tensor;
    fn from_core(c: Self::Core) -> Self {
        Tensor::wrap(c)
    }
}

impl Returned for JsValue {
    type Core = (vkml_core::api::Tensor, Option<vkml_core::api::Tensor>);
    fn from_core(c: Self::Core) -> Self {
        match c {
            (v, Some(i)) => js_sys::Array::of2(&Tensor::wrap(v).into(), &Tensor::wrap(i).into()).into(),
            (v, None) => Tensor::wrap(v).into(),
        }
    }
}

macro_rules! js_return {
    () => {
        Tensor
    };
    (indices) => {
        JsValue
    };
}

/// The TypeScript type a row returns.
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_macros))]
macro_rules! ts_return {
    () => {
        "Tensor"
    };
    (indices) => {
        "Tensor | [Tensor, Tensor]"
    };
}

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
    (count, $options:expr, $key:expr, $default:expr) => {
        <vkml_core::nn::args::Count as Kind>::convert($key, Arg::Int(option!(i64, $options, $key, $default))).js()?
    };
    (maybe_i64, $options:expr, $key:expr, $default:expr) => {
        opt_i64($options, $key)?
    };
    (maybe_bool, $options:expr, $key:expr, $default:expr) => {
        opt_bool($options, $key)?
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
    ($kind:ident, $options:expr, $key:expr, $($default:tt)+) => {
        vkml_core::described_arg!($kind, $key, arg($options, $key)?, $($default)+).js()?
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
    (count) => {
        "number"
    };
    (maybe_f64) => {
        "number | null"
    };
    (maybe_i64) => {
        "number | null"
    };
    (maybe_bool) => {
        "boolean | null"
    };
    (Pair) => {
        "number | [number, number]"
    };
    (MaybePair) => {
        "number | [number, number] | null"
    };
    (Single) => {
        "number | [number]"
    };
    (Count) => {
        "number"
    };
    (Shape) => {
        "number | number[]"
    };
    (Ints) => {
        "number | number[]"
    };
    (Padding2) => {
        "number | [number, number] | \"same\" | \"valid\""
    };
    (Padding1) => {
        "number | [number] | \"same\" | \"valid\""
    };
    (PerDim) => {
        "number | number[] | null"
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
    (method Tensor $docs:tt $name:ident [$t0:ident $($t:ident)*] $($row:tt)*) => {
        ts_row!(@ $docs $name [$($t)*] $($row)*)
    };
    ($want:ident $ns:ident $($row:tt)*) => {
        ""
    };
    (@ [$($doc:literal)*] $name:ident [$($t:ident)*] [$($r:ident $rk:ident)*] [$($ot:ident)*]
        [$($o:ident $kind:ident [$($v:tt)+])*] [$($ret:ident)?]) => {
        concat!(
            "  /**", $($doc, "\n   *",)* " Options (positional after the tensors", $(", ", stringify!($r),)*
            ", in this order, or one object):",
            $(" ", stringify!($ot), " = null;",)* $(" ", stringify!($o), " = ", $(stringify!($v),)+ ";",)*
            "\n   */\n  ", stringify!($name), "(", $(stringify!($t), ": Tensor, ",)* $(stringify!($r), ": ", ts_type!($rk), ", ",)*
            $(stringify!($ot), "?: Tensor | null, ",)* $(stringify!($o), "?: ", ts_type!($kind), ", ",)* "): ",
            ts_return!($($ret)?), ";\n  ",
            stringify!($name), "(", $(stringify!($t), ": Tensor, ",)* $(stringify!($r), ": ", ts_type!($rk), ", ",)* "options?: {",
            $(" ", stringify!($ot), "?: Tensor | null;",)* $(" ", stringify!($o), "?: ", ts_type!($kind), ";",)* " }): ",
            ts_return!($($ret)?), ";\n"
        )
    };
}

macro_rules! bind_described {
    ($(
        $(#[doc = $doc:literal])*
        $ns:ident $name:ident($($t:ident),+ $(<$($r:ident: $rk:ident),+>)? $({$($ot:ident),+})?;
            $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path $(as $ret:ident)?;
    )*) => {
        $(
            #[wasm_bindgen(skip_typescript)]
            // A row without options (linear) still takes the options object that npm/described.js passes.
            #[allow(unused_variables)]
            pub fn $name($($t: &Tensor,)+ options: JsValue, $($($ot: Option<Tensor>,)+)?) -> JsResult<js_return!($($ret)?)> {
                $($(let $r = <vkml_core::nn::args::$rk as Kind>::convert(stringify!($r), required(&options, stringify!($r))?).js()?;)+)?
                $($(let $ot = $ot.as_ref().map(Tensor::core).transpose()?;)+)?
                let out = $f($($t.core()?,)+ $($($r,)+)? $($($ot,)+)? $(option!($kind, &options, stringify!($o), $($v)+),)*);
                Ok(<js_return!($($ret)?)>::from_core(out.js()?))
            }
        )*

        /// Each described function as
        /// `[namespace, name, tensor count, optional tensor names, option names, required argument names]`.
        #[wasm_bindgen(
            js_name = "_described",
            unchecked_return_type = "[string, string, number, string[], string[], string[]][]"
        )]
        pub fn described() -> js_sys::Array {
            let row = |ns: &str, name: &str, tensors: usize, optional: &[&str], options: &[&str], required: &[&str]| {
                let names = |list: &[&str]| list.iter().map(|s| JsValue::from_str(s)).collect::<js_sys::Array>();
                let row = js_sys::Array::of5(
                    &ns.into(),
                    &name.into(),
                    &(tensors as f64).into(),
                    &names(optional),
                    &names(options),
                );
                row.push(&names(required));
                row
            };
            [$(row(
                stringify!($ns),
                stringify!($name),
                [$(stringify!($t)),+].len(),
                &[$($(stringify!($ot)),+)?],
                &[$(stringify!($o)),*],
                &[$($(stringify!($r)),+)?],
            )),*]
            .into_iter()
            .collect()
        }

        #[wasm_bindgen(typescript_custom_section)]
        const DESCRIBED_TS: &str = concat!(
            "/** torch's functions of the `torch` namespace that the engine describes once (vkml.addmm, ...). */\n",
            "export interface DescribedTorch {\n",
            $(ts_row!(torch $ns [$($doc)*] $name [$($t)+] [$($($r $rk)+)?] [$($($ot)+)?] [$($o $kind [$($v)+])*] [$($ret)?]),)*
            "}\n/** torch.Tensor's methods that the engine describes once (x.tril(), ...), merged into the class. */\n",
            "export interface Tensor {\n",
            $(ts_row!(method $ns [$($doc)*] $name [$($t)+] [$($($r $rk)+)?] [$($($ot)+)?] [$($o $kind [$($v)+])*] [$($ret)?]),)*
            "}\n/** torch.nn.functional's functions that the engine describes once (vkml.nn.functional...). */\n",
            "export interface DescribedFunctional {\n",
            $(ts_row!(F $ns [$($doc)*] $name [$($t)+] [$($($r $rk)+)?] [$($($ot)+)?] [$($o $kind [$($v)+])*] [$($ret)?]),)*
            "}\n"
        );
    };
}
vkml_core::described_functions!(bind_described);

/// One module row's constructor arguments as TypeScript tuples: positional, then the required ones and an options
/// object.
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_macros))]
macro_rules! ts_module_row {
    ([$($doc:literal)*] $name:ident ($($r:ident: $rk:ident),*; $([$o:ident: $kind:ident = $($v:tt)+])*)) => {
        concat!(
            "  /**", $($doc, "\n   *",)* " Arguments (positional in this order, or the required ones and one object):",
            $(" ", stringify!($o), " = ", $(stringify!($v),)+ ";",)* "\n   */\n  ", stringify!($name), ": [",
            $(stringify!($r), ": ", ts_type!($rk), ", ",)* $(stringify!($o), "?: ", ts_type!($kind), ", ",)* "] | [",
            $(stringify!($r), ": ", ts_type!($rk), ", ",)* "options?: {",
            $(" ", stringify!($o), "?: ", ts_type!($kind), ";",)* " }];\n"
        )
    };
}

/// The modules `vkml_core::described_modules!` describes, each as `[name, function, required argument names,
/// [option, default as written][], the names its repr shows or null]`: `npm/nn.js` makes a class of each.
#[wasm_bindgen(
    js_name = "_modules",
    unchecked_return_type = "[string, string, string[], [string, string][], string[] | null][]"
)]
pub fn modules() -> js_sys::Array {
    let strings = |list: &[&str]| list.iter().map(|s| JsValue::from_str(s)).collect::<js_sys::Array>();
    let pairs = |list: &[(&str, &str)]| {
        list.iter().map(|(k, v)| js_sys::Array::of2(&(*k).into(), &(*v).into())).collect::<js_sys::Array>()
    };
    let row = |m: &vkml_core::nn::described::ModuleRow| {
        let shown = m.shown.map_or(JsValue::NULL, |l| strings(l).into());
        js_sys::Array::of5(&m.name.into(), &m.function.into(), &strings(m.required), &pairs(m.options), &shown)
    };
    vkml_core::nn::described::MODULES.iter().map(row).collect()
}

/// The declarations of the module rows.
macro_rules! module_declarations {
    ($($(#[doc = $doc:literal])* $name:ident $arguments:tt => $f:ident $([$($shown:ident)*])?;)*) => {
        #[wasm_bindgen(typescript_custom_section)]
        const MODULES_TS: &str = concat!(
            "/** The constructor arguments of the modules that apply one function (vkml.nn.MaxPool2d, ...). */\n",
            "export interface DescribedModules {\n",
            $(ts_module_row!([$($doc)*] $name $arguments),)*
            "}\n"
        );
    };
}
vkml_core::described_modules!(module_declarations);
