//! `vkml.save` / `vkml.load`: state dicts in safetensors files (the format is `vkml_core::api::io`).

use std::collections::HashMap;

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple};

use vkml_core::io::safetensors::{is_safetensors, load_safetensors, save_safetensors};
use vkml_core::io::torchfile::{load_torch, Value};

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
    write_atomic(&path, &bytes).map_err(|e| PyOSError::new_err(format!("cannot write {}: {e}", path.display())))
}

/// Write `bytes` to a temporary file beside `path`, flush it to disk and rename it over `path`: a failed or killed
/// write leaves the previous file whole (the temporary one is removed). New files get the usual permissions.
fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".vkml-save-");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map(|_| ()).map_err(|e| e.error)
}

/// A checkpoint value as a Python object (dicts keep their order); a value the checkpoint shares is one object,
/// which `given` holds by its id from where it first appears.
fn to_py<'py>(py: Python<'py>, v: Value, given: &mut HashMap<usize, Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let mut all = |items: Vec<Value>| items.into_iter().map(|x| to_py(py, x, given)).collect::<PyResult<Vec<_>>>();
    Ok(match v {
        Value::None => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => f.into_pyobject(py)?.into_any(),
        Value::Str(s) => s.into_pyobject(py)?.into_any(),
        Value::List(items) => PyList::new(py, all(items)?)?.into_any(),
        Value::Tuple(items) => PyTuple::new(py, all(items)?)?.into_any(),
        Value::Dict(pairs) => {
            let d = PyDict::new(py);
            for (k, v) in pairs {
                d.set_item(to_py(py, k, given)?, to_py(py, v, given)?)?;
            }
            d.into_any()
        }
        Value::Tensor(t) => Bound::new(py, Tensor(t))?.into_any(),
        Value::Shared(id, v) => {
            let ob = to_py(py, *v, given)?;
            given.insert(id, ob.clone());
            ob
        }
        Value::Ref(id) => given
            .get(&id)
            .cloned()
            .ok_or_else(|| PyValueError::new_err("the checkpoint refers to a value before it is complete"))?,
        Value::Storage(..) | Value::Global(_) | Value::Mark => {
            return Err(PyValueError::new_err("the checkpoint ends with a bare storage or callable, not data"))
        }
    })
}

/// Load a safetensors file, or a zip checkpoint written by `torch.save` (read without running pickle code), into
/// a dict of name -> Tensor on `device` (default cpu).
#[pyfunction]
#[pyo3(signature = (path, device = None))]
pub fn load<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    device: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let bytes = std::fs::read(&path).map_err(|e| PyOSError::new_err(format!("cannot read {}: {e}", path.display())))?;
    let dev = opt_device(device)?;
    if bytes.starts_with(b"PK\x03\x04") {
        let v = py.detach(|| load_torch(&bytes, dev)).py()?;
        return to_py(py, v, &mut HashMap::new())?
            .cast_into::<PyDict>()
            .map_err(|_| PyValueError::new_err(format!("{} holds a checkpoint that is not a dict", path.display())));
    }
    // A safetensors header length may begin with the byte 0x80 too: the format is decided from the whole header.
    if !is_safetensors(&bytes) && bytes.first() == Some(&0x80) {
        return Err(PyValueError::new_err(format!(
            "{} is a bare pickle (torch's legacy pre-1.6 format or another program's); vkml reads only the zip \
             checkpoints torch.save writes and safetensors files",
            path.display()
        )));
    }
    let tensors = py.detach(|| load_safetensors(&bytes, dev)).py()?;
    let out = PyDict::new(py);
    for (k, t) in tensors {
        out.set_item(k, Tensor(t))?;
    }
    Ok(out)
}
