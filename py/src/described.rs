//! The functions `vkml_core::described_functions!` describes, bound for Python: torch's keyword names and defaults,
//! the description's documentation as the docstring.

use pyo3::prelude::*;

use vkml_core::nn::functional::Reduction;
use vkml_core::nn::loss::KlReduction;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// The Python type an option arrives as.
macro_rules! py_type {
    (f64) => {
        f64
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
}

/// An option's value as the core function takes it.
macro_rules! core_value {
    (Reduction, $v:expr) => {
        Reduction::parse($v).py()?
    };
    (KlReduction, $v:expr) => {
        KlReduction::parse($v).py()?
    };
    ($kind:ident, $v:expr) => {
        $v
    };
}

macro_rules! bind_described {
    ($($(#[doc = $doc:literal])* $name:ident($($t:ident),+; $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path;)*) => {
        $(
            $(#[doc = $doc])*
            #[pyfunction]
            #[pyo3(signature = ($($t,)+ $($o = $($v)+),*))]
            pub fn $name($($t: PyRef<'_, Tensor>,)+ $($o: py_type!($kind),)*) -> PyResult<Tensor> {
                Ok(Tensor($f($(&$t.0,)+ $(core_value!($kind, $o),)*).py()?))
            }
        )*
    };
}
vkml_core::described_functions!(bind_described);
