//! `vkml.save` / `vkml.load`: state dicts in safetensors files (the format is `vkml_core::api::io`).

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use vkml_core::api::io::{load_safetensors, save_safetensors};

use crate::convert::{opt_device, type_name, OrPy};
use crate::pytensor::Tensor;

/// Save a mapping of names to tensors (a `state_dict`) as safetensors; `metadata` maps strings to strings.
#[pyfunction]
#[pyo3(signature = (obj, path, metadata = None))]
pub fn save(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    path: std::path::PathBuf,
    metadata: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "vkml.save expects a dict of name -> Tensor (a state_dict), got {}",
            type_name(obj)
        ))
    })?;
    let mut tensors = Vec::new();
    for (k, v) in dict.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("state_dict keys must be str, got {}", type_name(&k))))?;
        let t = v
            .extract::<PyRef<'_, Tensor>>()
            .map_err(|_| PyTypeError::new_err(format!("state_dict['{name}'] is a {}, not a Tensor", type_name(&v))))?;
        tensors.push((name, t.0.clone()));
    }
    let meta = match metadata {
        Some(m) => {
            Some(m.iter().map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<String>()?))).collect::<PyResult<_>>()?)
        }
        None => None,
    };
    let bytes = py.detach(|| save_safetensors(&tensors, meta)).py()?;
    std::fs::write(&path, bytes).map_err(|e| PyOSError::new_err(format!("cannot write {}: {e}", path.display())))
}

/// Load a safetensors file into a dict of name -> Tensor on `device` (default cpu).
#[pyfunction]
#[pyo3(signature = (path, device = None))]
pub fn load<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    device: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let bytes = std::fs::read(&path).map_err(|e| PyOSError::new_err(format!("cannot read {}: {e}", path.display())))?;
    if bytes.starts_with(b"PK\x03\x04") || bytes.first() == Some(&0x80) {
        return Err(PyValueError::new_err(format!(
            "{} is a PyTorch pickle checkpoint (.pt/.pth); vkml.load reads safetensors files. Convert it with \
             safetensors.torch.save_file(torch.load(path), 'model.safetensors'), or load its state_dict into a \
             vkml module with module.load_state_dict(torch_state_dict)",
            path.display()
        )));
    }
    let dev = opt_device(device)?;
    let tensors = py.detach(|| load_safetensors(&bytes, dev)).py()?;
    let out = PyDict::new(py);
    for (k, t) in tensors {
        out.set_item(k, Tensor(t))?;
    }
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(save, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    Ok(())
}
