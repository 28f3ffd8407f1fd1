//! Device memory for Python (`vkml_core::backend::memory`): the counters behind torch's memory_allocated,
//! memory_reserved and max_memory_allocated, resetting the peak, and empty_cache.

use pyo3::prelude::*;

use vkml_core::dispatch;

use crate::convert::{device_arg, OrPy};

/// (allocated, reserved, peak) bytes of `device`.
#[pyfunction]
pub fn _memory(device: &Bound<'_, PyAny>) -> PyResult<(u64, u64, u64)> {
    let m = dispatch::backend(device_arg(device)?).py()?.memory();
    Ok((m.allocated, m.reserved, m.peak))
}

/// Start `device`'s peak again from what is allocated now.
#[pyfunction]
pub fn _reset_peak_memory(device: &Bound<'_, PyAny>) -> PyResult<()> {
    dispatch::backend(device_arg(device)?).py()?.reset_peak_memory();
    Ok(())
}

/// Give the buffers `device`'s pool keeps back to the device.
#[pyfunction]
pub fn _empty_cache(device: &Bound<'_, PyAny>) -> PyResult<()> {
    dispatch::backend(device_arg(device)?).py()?.empty_cache();
    Ok(())
}
