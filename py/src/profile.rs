//! The profiler for Python (`vkml_core::backend::profile`): start and stop a recording; the session it hands back
//! renders its table and Chrome trace and lists its kernels.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use vkml_core::backend::profile::{self, Session};

use crate::convert::OrPy;

/// Start recording (one recording at a time).
#[pyfunction]
pub fn _profile_start() -> PyResult<()> {
    profile::start().py()
}

/// Stop recording and hand back what it saw.
#[pyfunction]
pub fn _profile_stop() -> PySession {
    PySession(profile::stop())
}

#[pyclass(frozen, name = "_ProfileSession", module = "vkml._vkml")]
pub struct PySession(Session);

#[pymethods]
impl PySession {
    /// Where the time went, one line per kernel group.
    fn table(&self) -> String {
        self.0.table()
    }

    /// The Chrome trace-event JSON.
    fn chrome_trace(&self) -> String {
        self.0.chrome_trace()
    }

    /// Summed device time of the timed kernels (ms).
    #[getter]
    fn device_ms(&self) -> f64 {
        self.0.device_ms()
    }

    /// Summed host time of the realizations (ms).
    #[getter]
    fn host_ms(&self) -> f64 {
        self.0.host_ms()
    }

    /// Host time of each realization (ms), in order.
    #[getter]
    fn realizations(&self) -> Vec<f64> {
        self.0.realizations.iter().map(|r| r.host_us / 1e3).collect()
    }

    /// What could not be measured.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.0.notes.clone()
    }

    /// One dict per kernel as it ran: device, op, pipeline, shape, dtype, inputs, bytes, flops, batch, device_ms and
    /// start_ms (on the device's clock), the last two None where not measured.
    #[getter]
    fn kernels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for k in &self.0.kernels {
            let d = PyDict::new(py);
            d.set_item("device", &k.device)?;
            d.set_item("op", k.op)?;
            d.set_item("pipeline", k.pipeline)?;
            d.set_item("shape", k.shape.clone())?;
            d.set_item("dtype", k.dtype)?;
            d.set_item("inputs", k.inputs.clone())?;
            d.set_item("bytes", k.bytes)?;
            d.set_item("flops", k.flops)?;
            d.set_item("batch", k.batch)?;
            d.set_item("device_ms", k.device_ns.map(|ns| ns / 1e6))?;
            d.set_item("start_ms", k.start_ns.map(|ns| ns / 1e6))?;
            out.append(d)?;
        }
        Ok(out)
    }
}
