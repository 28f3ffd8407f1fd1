//! `F.unfold` and `F.fold`: torch's signatures over `vkml_core::nn::fold`.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use vkml_core::nn::fold::{self as blocks_op, Blocks};

use crate::convert::{int_list, OrPy};
use crate::pytensor::Tensor;

/// An int or a pair of ints (torch's `_pair`); `None` is `default`. Negative values raise torch's message for the
/// argument (`what` names its two parts there); a zero is left for the core's check, which words it as torch.
fn pair(ob: Option<&Bound<'_, PyAny>>, name: &str, what: &str, default: usize) -> PyResult<[usize; 2]> {
    let v = match ob {
        Some(o) if !o.is_none() => int_list(o)?,
        _ => return Ok([default; 2]),
    };
    let [a, b] = match v.as_slice() {
        [a] => [*a, *a],
        [a, b] => [*a, *b],
        _ => {
            return Err(PyRuntimeError::new_err(format!("It is expected {name} equals to 2, but got size {}", v.len())))
        }
    };
    if a < 0 || b < 0 {
        let kind = if name == "padding" { "be non-negative" } else { "be greater than zero" };
        return Err(PyRuntimeError::new_err(format!(
            "{} should {kind}, but got {what}_height: {a} {what}_width: {b}",
            name.replace('_', " ")
        )));
    }
    Ok([a as usize, b as usize])
}

fn blocks(
    kernel_size: &Bound<'_, PyAny>,
    dilation: Option<&Bound<'_, PyAny>>,
    padding: Option<&Bound<'_, PyAny>>,
    stride: Option<&Bound<'_, PyAny>>,
) -> PyResult<Blocks> {
    Ok(Blocks {
        kernel: pair(Some(kernel_size), "kernel_size", "kernel", 1)?,
        dilation: pair(dilation, "dilation", "dilation", 1)?,
        padding: pair(padding, "padding", "pad", 0)?,
        stride: pair(stride, "stride", "stride", 1)?,
    })
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, dilation = None, padding = None, stride = None))]
pub fn unfold(
    input: PyRef<'_, Tensor>,
    kernel_size: &Bound<'_, PyAny>,
    dilation: Option<&Bound<'_, PyAny>>,
    padding: Option<&Bound<'_, PyAny>>,
    stride: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    Ok(Tensor(blocks_op::unfold(&input.0, blocks(kernel_size, dilation, padding, stride)?).py()?))
}

#[pyfunction]
#[pyo3(signature = (input, output_size, kernel_size, dilation = None, padding = None, stride = None))]
pub fn fold(
    input: PyRef<'_, Tensor>,
    output_size: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    dilation: Option<&Bound<'_, PyAny>>,
    padding: Option<&Bound<'_, PyAny>>,
    stride: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let size = pair(Some(output_size), "output_size", "output", 0)?;
    Ok(Tensor(blocks_op::fold(&input.0, size, blocks(kernel_size, dilation, padding, stride)?).py()?))
}
