//! `vkml.nn.functional`'s activations without parameters (those with parameters are `described.rs`'s). torch's
//! `inplace=` is `vkml.nn.functional`'s: it writes the result computed here into the input.

use pyo3::prelude::*;

use vkml_core::nn::activation as act;

use crate::convert::OrPy;
use crate::pytensor::Tensor;

/// A binding per parameterless activation (`vkml_core::plain_activations!` lists them).
macro_rules! bind_plain {
    ($($name:ident),*) => {
        $(
            #[pyfunction]
            pub fn $name(input: PyRef<'_, Tensor>) -> PyResult<Tensor> {
                Ok(Tensor(act::$name(&input.0).py()?))
            }
        )*
    };
}
vkml_core::plain_activations!(bind_plain);
