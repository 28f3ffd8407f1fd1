//! Python classes for dtypes and devices, the device functions (init_vulkan, devices, best_device), and the matmul
//! pipeline hooks the benchmark uses.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use vkml_backend_vulkan::{select_matmul, MatmulPipeline, VulkanBackend};
use vkml_core::backend::Backend;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::dispatch;

use crate::convert::OrPy;

/// A dtype object (`vkml.float32`).
#[pyclass(name = "dtype", module = "vkml", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType(pub DType);

#[pymethods]
impl PyDType {
    #[getter]
    fn name(&self) -> &'static str {
        self.0.name()
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.0.itemsize()
    }
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.0.is_float()
    }
    fn __repr__(&self) -> String {
        format!("vkml.{}", self.0.name())
    }
    fn __str__(&self) -> String {
        self.__repr__()
    }
}

/// A device (`vkml.Device`); its string is the name users pass around.
#[pyclass(name = "Device", module = "vkml", frozen)]
#[derive(Clone)]
pub struct Device {
    pub id: DeviceId,
}

#[pymethods]
impl Device {
    fn __str__(&self) -> String {
        dispatch::label(self.id)
    }
    fn __repr__(&self) -> String {
        format!("device(type='{}')", dispatch::label(self.id))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        crate::convert::device_arg(other).map(|o| o == self.id).unwrap_or(false)
    }
    fn __hash__(&self) -> u64 {
        self.id.0 as u64
    }
    #[getter]
    fn r#type(&self) -> PyResult<&'static str> {
        Ok(dispatch::backend(self.id).py()?.info().kind)
    }
    #[getter]
    fn index(&self) -> PyResult<usize> {
        Ok(dispatch::backend(self.id).py()?.info().index)
    }
    #[getter]
    fn min_spec(&self) -> PyResult<bool> {
        Ok(dispatch::backend(self.id).py()?.info().min_spec)
    }
    /// Whether float16 products run on matrix units here, where `set_float32_matmul_precision` takes effect.
    #[getter]
    fn f16_matrix_units(&self) -> PyResult<bool> {
        Ok(dispatch::backend(self.id).py()?.info().f16_matrix_units)
    }
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(dispatch::backend(self.id).py()?.info().adapter.clone())
    }
}

/// The Vulkan devices this process opened, for `_force_matmul`.
static OPENED: Mutex<Vec<Arc<VulkanBackend>>> = Mutex::new(Vec::new());

/// Open Vulkan adapter `index`; `min_spec` (or VKML_MIN_SPEC=1) requests only the Vulkan 1.3 ∩ WebGPU floor.
#[pyfunction]
#[pyo3(signature = (index = 0, min_spec = false))]
pub fn init_vulkan(py: Python<'_>, index: usize, min_spec: bool) -> PyResult<Device> {
    let env = std::env::var("VKML_MIN_SPEC").as_deref() == Ok("1");
    let backend = Arc::new(py.detach(|| VulkanBackend::new(index, min_spec || env, env)).py()?);
    OPENED.lock().unwrap_or_else(|e| e.into_inner()).push(backend.clone());
    Ok(Device { id: dispatch::register(backend) })
}

/// A test hook: lose the opened Vulkan device `label` as a driver would (wgpu destroys it).
#[pyfunction]
pub fn _lose_device(label: &str) -> PyResult<()> {
    let opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    let backend = opened.iter().rev().find(|b| b.info().label == label);
    backend.ok_or_else(|| PyRuntimeError::new_err(format!("no opened Vulkan device '{label}'")))?.lose();
    Ok(())
}

/// Run every matmul on every opened Vulkan device through the pipeline `name` (docs/matmul.md), or the selector's
/// choice again for None: bench/matmul.py compares the pipelines with it.
#[pyfunction]
#[pyo3(signature = (name = None))]
pub fn _force_matmul(name: Option<&str>) -> PyResult<()> {
    let pipeline = name
        .map(|n| MatmulPipeline::from_name(n).ok_or_else(|| PyValueError::new_err(format!("no matmul pipeline {n}"))))
        .transpose()?;
    for b in OPENED.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        b.force_matmul(pipeline);
    }
    Ok(())
}

/// The pipeline the selector picks for `batch` products of (m x k) @ (k x n) on Vulkan; `coop`: float16 operands on
/// a device with cooperative matrices; `staged`: a device that runs the staged cooperative-matrix pipeline too;
/// `wide`: float32 operands in the wide pipeline's layout on a device that runs it.
#[pyfunction]
#[pyo3(signature = (m, n, k, batch, coop = false, wide = false, staged = false))]
pub fn _matmul_pipeline(
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
    coop: bool,
    wide: bool,
    staged: bool,
) -> &'static str {
    select_matmul(m, n, k, batch, coop, staged, wide).name()
}

/// Whether any opened Vulkan device runs the cooperative-matrix matmul pipeline.
#[pyfunction]
pub fn _has_coop_matmul() -> bool {
    OPENED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|b| b.has_coop_matmul())
}

/// Whether any opened Vulkan device runs the staged cooperative-matrix matmul pipeline.
#[pyfunction]
pub fn _has_staged_matmul() -> bool {
    OPENED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|b| b.has_staged_matmul())
}

/// Whether any opened Vulkan device runs the wide matmul pipeline.
#[pyfunction]
pub fn _has_wide_matmul() -> bool {
    OPENED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|b| b.has_wide_matmul())
}

/// The CPU and every opened Vulkan device.
#[pyfunction]
pub fn devices() -> Vec<Device> {
    dispatch::devices().into_iter().map(|id| Device { id }).collect()
}

/// The device to use and a sentence saying why: the first real GPU opened, else the CPU.
#[pyfunction]
pub fn best_device() -> PyResult<(Device, String)> {
    let (id, why) = dispatch::best_device(false, "no Vulkan GPU has been opened (call vkml.init_vulkan first)").py()?;
    Ok((Device { id }, why))
}
