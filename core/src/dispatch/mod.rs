//! Layer 5: the registry of devices (backends registered by front ends) and the native wait on backend futures.

use std::sync::{Arc, RwLock};

use crate::backend::Backend;
use crate::base::buffer::DeviceId;
use crate::util::error::{Error, Result};
use crate::util::future::{poll_once, BoxFuture};

static DEVICES: RwLock<Vec<Arc<dyn Backend>>> = RwLock::new(Vec::new());

fn devices_read() -> std::sync::RwLockReadGuard<'static, Vec<Arc<dyn Backend>>> {
    DEVICES.read().unwrap_or_else(|e| e.into_inner())
}

/// Register a backend; a second backend with the same label returns the first one's id (opening a device twice
/// is harmless).
pub fn register(backend: Arc<dyn Backend>) -> DeviceId {
    let mut all = DEVICES.write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = all.iter().position(|b| b.info().label == backend.info().label) {
        return DeviceId(i);
    }
    all.push(backend);
    DeviceId(all.len() - 1)
}

/// The backend of a registered device.
pub fn backend(id: DeviceId) -> Result<Arc<dyn Backend>> {
    devices_read().get(id.0).cloned().ok_or_else(|| Error::Device(format!("no device with id {}", id.0)))
}

/// The device whose label is `label` ("cpu", "vulkan:0", "vulkan:0:floor").
pub fn find(label: &str) -> Result<DeviceId> {
    let all = devices_read();
    if let Some(i) = all.iter().position(|b| b.info().label == label) {
        return Ok(DeviceId(i));
    }
    let known: Vec<String> = all.iter().map(|b| b.info().label.clone()).collect();
    let hint = if label.starts_with("vulkan") { " (open it first with vkml.init_vulkan)" } else { "" };
    Err(Error::Device(format!("unknown or unopened device '{label}'{hint}; open devices: {}", known.join(", "))))
}

/// All registered devices, in registration order.
pub fn devices() -> Vec<DeviceId> {
    (0..devices_read().len()).map(DeviceId).collect()
}

/// The label of a device (for messages).
pub fn label(id: DeviceId) -> String {
    backend(id).map(|b| b.info().label.clone()).unwrap_or_else(|_| format!("device#{}", id.0))
}

/// Block until `fut` resolves, driving the device between polls. Native front ends only: a browser awaits instead.
pub fn wait<T>(id: DeviceId, mut fut: BoxFuture<T>) -> Result<T> {
    let b = backend(id)?;
    loop {
        if let Some(r) = poll_once(&mut fut) {
            return r;
        }
        b.drive(true);
    }
}
