//! The profiler for Python (`vkml_core::backend::profile`): start and stop a recording; stopping hands back what
//! it saw as plain data (its table and Chrome trace rendered, its kernels as dicts).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use vkml_core::backend::profile;

use crate::convert::OrPy;

/// Start recording (one recording at a time).
#[pyfunction]
pub fn _profile_start() -> PyResult<()> {
    profile::start().py()
}

/// Stop recording: a dict of table, chrome_trace, device_ms, host_ms, realizations (host ms each), notes and
/// kernels (one dict each: device, op, pipeline, shape, dtype, inputs, bytes, flops, batch, device_ms and start_ms,
/// the last two None where not measured).
#[pyfunction]
pub fn _profile_stop(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let s = profile::stop();
    let kernels = PyList::empty(py);
    for k in &s.kernels {
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
        kernels.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("table", s.table())?;
    out.set_item("chrome_trace", s.chrome_trace())?;
    out.set_item("device_ms", s.device_ms())?;
    out.set_item("host_ms", s.host_ms())?;
    out.set_item("realizations", s.realizations.iter().map(|r| r.host_us / 1e3).collect::<Vec<_>>())?;
    out.set_item("notes", s.notes.clone())?;
    out.set_item("kernels", kernels)?;
    Ok(out)
}
