//! The functions `vkml_core::described_functions!` describes, bound for Python: torch's keyword names and defaults
//! (optional tensors default to None, as do the options of an `nn::args` kind, whose defaults the core applies),
//! the description's documentation as the docstring; `_described()` lists them so that `vkml._methods` binds the
//! `Tensor` rows as methods too.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBool;

use vkml_core::nn::args::{Arg, Kind};
use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::KlReduction;

use crate::convert::{int_list, type_name, OrPy};
use crate::pytensor::Tensor;

/// An argument of an `nn::args` kind as Python gave it: None, an int, a float, a string or a sequence of numbers.
fn arg(name: &str, ob: Option<&Bound<'_, PyAny>>) -> PyResult<Arg> {
    let Some(ob) = ob.filter(|o| !o.is_none()) else { return Ok(Arg::None) };
    if let Ok(s) = ob.extract::<String>() {
        return Ok(Arg::Str(s));
    }
    if !ob.is_instance_of::<PyBool>() {
        if let Ok(v) = ob.extract::<i64>() {
            return Ok(Arg::Int(v));
        }
        if let Ok(v) = ob.extract::<f64>() {
            return Ok(Arg::Float(v));
        }
        if let Ok(v) = int_list(ob) {
            return Ok(Arg::Ints(v));
        }
        if let Ok(v) = ob.extract::<Vec<f64>>() {
            return Ok(Arg::Floats(v));
        }
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be a number, a string or a sequence of numbers, not {}",
        type_name(ob)
    )))
}

/// What a row returns to Python: a tensor, or (`as indices`) a tensor or a (values, indices) tuple.
trait Returned: Sized {
    type Core: Send;
    fn from_core(py: Python<'_>, c: Self::Core) -> PyResult<Self>;
}

impl Returned for Tensor {
    type Core = vkml_core::api::Tensor;
    fn from_core(_: Python<'_>, c: Self::Core) -> PyResult<Self> {
        Ok(Tensor(c))
    }
}

impl Returned for Py<PyAny> {
    type Core = (vkml_core::api::Tensor, Option<vkml_core::api::Tensor>);
    fn from_core(py: Python<'_>, c: Self::Core) -> PyResult<Self> {
        Ok(match c {
            (v, Some(i)) => (Tensor(v), Tensor(i)).into_pyobject(py)?.into_any().unbind(),
            (v, None) => Bound::new(py, Tensor(v))?.into_any().unbind(),
        })
    }
}

macro_rules! py_return {
    () => {
        Tensor
    };
    (indices) => {
        Py<PyAny>
    };
}

/// The Python type an option arrives as; an `nn::args` kind (the last arm) arrives as any object.
macro_rules! py_type {
    (f64) => {
        f64
    };
    (i64) => {
        i64
    };
    (count) => {
        i64
    };
    (maybe_f64) => {
        Option<f64>
    };
    (maybe_i64) => {
        Option<i64>
    };
    (maybe_bool) => {
        Option<bool>
    };
    (bool) => {
        bool
    };
    (str) => {
        &str
    };
    (Reduction) => {
        &str
    };
    (KlReduction) => {
        &str
    };
    ($kind:ident) => {
        Option<&Bound<'_, PyAny>>
    };
}

/// An option's value as the core function takes it.
macro_rules! core_value {
    (Reduction, $o:ident, $($v:tt)+) => {
        Reduction::parse($o).py()?
    };
    (KlReduction, $o:ident, $($v:tt)+) => {
        KlReduction::parse($o).py()?
    };
    (f64, $o:ident, $($v:tt)+) => { $o };
    (i64, $o:ident, $($v:tt)+) => { $o };
    (count, $o:ident, $($v:tt)+) => {
        <vkml_core::nn::args::Count as Kind>::convert(stringify!($o), Arg::Int($o)).py()?
    };
    (maybe_f64, $o:ident, $($v:tt)+) => { $o };
    (maybe_i64, $o:ident, $($v:tt)+) => { $o };
    (maybe_bool, $o:ident, $($v:tt)+) => { $o };
    (bool, $o:ident, $($v:tt)+) => { $o };
    (str, $o:ident, $($v:tt)+) => { $o };
    ($kind:ident, $o:ident, $($v:tt)+) => {
        vkml_core::described_arg!($kind, stringify!($o), arg(stringify!($o), $o)?, $($v)+).py()?
    };
}

/// `#[pyfunction]` with the signature of a row: its tensors and required arguments, then `$o = default` for each
/// option, the default None for an `nn::args` kind (munched one option at a time: pyo3 reads the attribute as
/// written, so the kind must choose the tokens before it).
macro_rules! with_signature {
    ([$($sig:tt)*] [] $item:item) => {
        #[pyfunction]
        #[pyo3(signature = ($($sig)*))]
        $item
    };
    ([$($sig:tt)*] [[$o:ident $kind:ident [$($v:tt)+]] $($more:tt)*] $item:item) => {
        with_signature!(@ $kind [$($sig)*] [$o [$($v)+]] [$($more)*] $item);
    };
    (@literal [$($sig:tt)*] [$o:ident [$($v:tt)+]] [$($more:tt)*] $item:item) => {
        with_signature!([$($sig)* $o = $($v)+,] [$($more)*] $item);
    };
    (@ f64 $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ i64 $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ count $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ maybe_f64 $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ maybe_i64 $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ maybe_bool $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ bool $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ str $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ Reduction $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ KlReduction $($rest:tt)*) => { with_signature!(@literal $($rest)*); };
    (@ $kind:ident [$($sig:tt)*] [$o:ident [$($v:tt)+]] [$($more:tt)*] $item:item) => {
        with_signature!([$($sig)* $o = None,] [$($more)*] $item);
    };
}

macro_rules! bind_described {
    ($(
        $(#[doc = $doc:literal])*
        $ns:ident $name:ident($($t:ident),+ $(<$($r:ident: $rk:ident),+>)? $({$($ot:ident),+})?;
            $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path $(as $ret:ident)?;
    )*) => {
        $(
            with_signature!(
                [$($t,)+ $($($r,)+)? $($($ot = None,)+)?]
                [$([$o $kind [$($v)+]])*]
                $(#[doc = $doc])*
                #[allow(clippy::too_many_arguments)]
                pub fn $name(
                    py: Python<'_>,
                    $($t: PyRef<'_, Tensor>,)+
                    $($($r: &Bound<'_, PyAny>,)+)?
                    $($($ot: Option<PyRef<'_, Tensor>>,)+)?
                    $($o: py_type!($kind),)*
                ) -> PyResult<py_return!($($ret)?)> {
                    // Owned handles and converted arguments, so that the work runs without the GIL.
                    $(let $t = $t.0.clone();)+
                    $($(let $r = <vkml_core::nn::args::$rk as Kind>::convert(stringify!($r), arg(stringify!($r), Some($r))?).py()?;)+)?
                    $($(let $ot = $ot.map(|t| t.0.clone());)+)?
                    $(let $o = core_value!($kind, $o, $($v)+);)*
                    let out = py.detach(|| $f($(&$t,)+ $($($r,)+)? $($($ot.as_ref(),)+)? $($o,)*)).py()?;
                    <py_return!($($ret)?)>::from_core(py, out)
                }
            );
        )*

        /// Each described function as (namespace, name): `vkml._methods` makes the `Tensor` rows methods.
        #[pyfunction]
        pub fn _described() -> Vec<(&'static str, &'static str)> {
            vec![$((stringify!($ns), stringify!($name))),*]
        }
    };
}
vkml_core::described_functions!(bind_described);

/// One module row of `_modules()`: (name, function, documentation, required arguments, (option, default as written),
/// the arguments its repr shows or None for all).
type ModuleRow = (
    &'static str,
    &'static str,
    &'static str,
    Vec<&'static str>,
    Vec<(&'static str, &'static str)>,
    Option<Vec<&'static str>>,
);

/// The modules `vkml_core::described_modules!` describes: `vkml.nn` makes a class of each row.
#[pyfunction]
pub fn _modules() -> Vec<ModuleRow> {
    let rows = vkml_core::nn::described::MODULES.iter();
    rows.map(|m| (m.name, m.function, m.doc, m.required.to_vec(), m.options.to_vec(), m.shown.map(<[_]>::to_vec)))
        .collect()
}
