//! The functions `vkml_core::described_functions!` describes, bound for Python: torch's keyword names and defaults
//! (optional tensors default to None), the description's documentation as the docstring; `_described()` lists them
//! so that `vkml._methods` binds the `Tensor` rows as methods too.

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
    (i64) => {
        i64
    };
    (maybe_f64) => {
        Option<f64>
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
    ($(
        $(#[doc = $doc:literal])*
        $ns:ident $name:ident($($t:ident),+ $({$($ot:ident),+})?; $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:path;
    )*) => {
        $(
            #[pyfunction]
            $(#[doc = $doc])*
            #[pyo3(signature = ($($t,)+ $($($ot = None,)+)? $($o = $($v)+),*))]
            #[allow(clippy::too_many_arguments)]
            pub fn $name(
                py: Python<'_>,
                $($t: PyRef<'_, Tensor>,)+
                $($($ot: Option<PyRef<'_, Tensor>>,)+)?
                $($o: py_type!($kind),)*
            ) -> PyResult<Tensor> {
                // Owned handles and converted options, so that the work runs without the GIL.
                $(let $t = $t.0.clone();)+
                $($(let $ot = $ot.map(|t| t.0.clone());)+)?
                $(let $o = core_value!($kind, $o);)*
                Ok(Tensor(py.detach(|| $f($(&$t,)+ $($($ot.as_ref(),)+)? $($o,)*)).py()?))
            }
        )*

        /// Each described function as (namespace, name): `vkml._methods` makes the `Tensor` rows methods.
        #[pyfunction]
        pub fn _described() -> Vec<(&'static str, &'static str)> {
            vec![$((stringify!($ns), stringify!($name))),*]
        }
    };
}
vkml_core::described_functions!(bind_described);
