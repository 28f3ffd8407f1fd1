//! Conversions at the Python boundary: errors to exceptions, Python values to shapes, scalars, dtypes and devices,
//! and NumPy arrays to and from bytes (through NumPy's own vectorized calls; no element loops here).

use pyo3::exceptions::{PyIndexError, PyNotImplementedError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyTuple};

use vkml_core::api::Tensor as Core;
use vkml_core::tensor::realize::read_bytes;

use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::dispatch;
use vkml_core::Error;

use crate::device::{Device, PyDType};

/// Map vkml's error kinds onto the exceptions a torch user expects.
pub fn err(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Shape(_) | Error::Device(_) | Error::Runtime(_) | Error::Backend(_) | Error::Bounds(_) => {
            PyRuntimeError::new_err(msg)
        }
        Error::Dtype(_) => PyTypeError::new_err(msg),
        Error::Index(_) => PyIndexError::new_err(msg),
        Error::Value(_) => PyValueError::new_err(msg),
        Error::Unsupported(_) => PyNotImplementedError::new_err(msg),
        Error::Io(_) => PyOSError::new_err(msg),
    }
}

/// `?`-friendly conversion of vkml results.
pub trait OrPy<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> OrPy<T> for vkml_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(err)
    }
}

/// A Python bool/int/float as a scalar; None for anything else.
pub fn scalar(ob: &Bound<'_, PyAny>) -> Option<Scalar> {
    if ob.is_instance_of::<PyBool>() {
        return ob.extract::<bool>().ok().map(Scalar::Bool);
    }
    if ob.is_instance_of::<PyInt>() {
        return ob.extract::<i64>().ok().map(Scalar::Int);
    }
    if ob.is_instance_of::<PyFloat>() {
        return ob.extract::<f64>().ok().map(Scalar::Float);
    }
    // NumPy scalars: go by their kind.
    if let Ok(kind) = ob.getattr("dtype").and_then(|d| d.getattr("kind")).and_then(|k| k.extract::<String>()) {
        if ob.getattr("ndim").and_then(|n| n.extract::<usize>()).ok() == Some(0) {
            return match kind.as_str() {
                "b" => ob.extract::<bool>().ok().map(Scalar::Bool),
                "i" | "u" => ob.extract::<i64>().ok().map(Scalar::Int),
                "f" => ob.extract::<f64>().ok().map(Scalar::Float),
                _ => None,
            };
        }
    }
    None
}

/// A shape from `*size` arguments: `f(2, 3)`, `f((2, 3))` or `f([2, 3])`.
pub fn shape_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if a.is_instance_of::<PyTuple>() || a.is_instance_of::<PyList>() {
            return int_list(&a);
        }
    }
    int_list(args.as_any())
}

/// Sizes or dims given as `*args` or, as torch also takes them, by keyword (`x.reshape(shape=(2, 3))`), not both.
pub fn sizes_or_keyword(
    args: &Bound<'_, PyTuple>,
    keyword: Option<&Bound<'_, PyAny>>,
    method: &str,
    name: &str,
) -> PyResult<Vec<i64>> {
    match keyword {
        None => shape_args(args),
        Some(_) if !args.is_empty() => Err(PyTypeError::new_err(format!(
            "{method}() received an invalid combination of arguments: got sizes both as positional arguments and \
             as {name}="
        ))),
        Some(value) => int_list(value),
    }
}

/// A list of ints from an int, tuple or list.
pub fn int_list(ob: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(i) = ob.extract::<i64>() {
        if !ob.is_instance_of::<PyBool>() {
            return Ok(vec![i]);
        }
    }
    let mut out = Vec::new();
    for item in ob.try_iter()? {
        let item = item?;
        if item.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("expected a sequence of ints, got a bool"));
        }
        out.push(item.extract::<i64>().map_err(|_| {
            PyTypeError::new_err(format!("expected a sequence of ints, got an element of type {}", type_name(&item)))
        })?);
    }
    Ok(out)
}

pub fn type_name(ob: &Bound<'_, PyAny>) -> String {
    ob.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// Non-negative sizes.
pub fn sizes(v: &[i64]) -> PyResult<Vec<usize>> {
    v.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                PyRuntimeError::new_err(format!("Trying to create tensor with negative dimension {d}: {v:?}"))
            })
        })
        .collect()
}

/// A dtype argument: a vkml dtype object or its name.
pub fn dtype_arg(ob: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = ob.extract::<PyRef<'_, PyDType>>() {
        return Ok(d.0);
    }
    Err(PyTypeError::new_err(format!("expected a vkml dtype (e.g. vkml.float32), got {}", type_name(ob))))
}

pub fn opt_dtype(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match ob {
        Some(o) if !o.is_none() => dtype_arg(o).map(Some),
        _ => Ok(None),
    }
}

/// A device argument: a Device or its string ("cpu", "vulkan:0", "vulkan:0:floor").
pub fn device_arg(ob: &Bound<'_, PyAny>) -> PyResult<DeviceId> {
    if let Ok(d) = ob.extract::<PyRef<'_, Device>>() {
        return Ok(d.id);
    }
    if let Ok(s) = ob.extract::<String>() {
        let s = if s == "vulkan" { "vulkan:0".to_string() } else { s };
        return dispatch::find(&s).py();
    }
    Err(PyTypeError::new_err(format!("expected a device or a device string, got {}", type_name(ob))))
}

pub fn opt_device(ob: Option<&Bound<'_, PyAny>>) -> PyResult<DeviceId> {
    match ob {
        Some(o) if !o.is_none() => device_arg(o),
        _ => dispatch::find("cpu").py(),
    }
}

/// NumPy's name for a dtype (bfloat16 has none: torch's `.numpy()` raises TypeError too).
pub fn numpy_name(d: DType) -> PyResult<&'static str> {
    Ok(match d {
        DType::Bool => "bool",
        DType::I32 => "int32",
        DType::I64 => "int64",
        DType::F16 => "float16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::BF16 => return Err(PyTypeError::new_err("Got unsupported ScalarType BFloat16")),
    })
}

/// The vkml dtype of a NumPy dtype name.
pub fn from_numpy_name(name: &str) -> PyResult<DType> {
    Ok(match name {
        "bool" => DType::Bool,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "float16" => DType::F16,
        "float32" => DType::F32,
        "float64" => DType::F64,
        other => {
            return Err(PyTypeError::new_err(format!(
                "can't convert np.ndarray of type numpy.{other}. The only supported types are: float64, float32, \
                 float16, int64, int32, and bool."
            )))
        }
    })
}

/// Host bytes of a tensor as a NumPy array of its dtype (bfloat16 is widened to float32 when `widen`).
pub fn to_numpy<'py>(py: Python<'py>, t: &Core, widen: bool) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let (t, dtype) = if widen && t.dtype() == DType::BF16 {
        (t.to_dtype(DType::F32).py()?, DType::F32)
    } else {
        (t.clone(), t.dtype())
    };
    let name = numpy_name(dtype)?;
    let bytes = py.detach(|| read_bytes(&t)).py()?;
    let flat = np.call_method1("frombuffer", (PyBytes::new(py, &bytes), name))?;
    let shape = PyTuple::new(py, t.shape())?;
    flat.call_method1("reshape", (shape,))?.call_method0("copy")
}

/// The engine's tensors of a list of Python ones (a layer's parameters, in its layout's order).
pub fn cores(params: &[PyRef<'_, crate::pytensor::Tensor>]) -> Vec<Core> {
    params.iter().map(|p| p.0.clone()).collect()
}
