//! Layer 5: the registry of devices (backends registered by front ends), the choice of the best one, and waiting on
//! backend futures (natively by driving the devices; a browser awaits instead).

use std::future::Future;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll, Waker};

use crate::backend::{Backend, DeviceInfo, DeviceType};
use crate::base::buffer::DeviceId;
use crate::util::error::{Error, Result};

static DEVICES: RwLock<Vec<Arc<dyn Backend>>> = RwLock::new(Vec::new());

fn devices_read() -> std::sync::RwLockReadGuard<'static, Vec<Arc<dyn Backend>>> {
    DEVICES.read().unwrap_or_else(|e| e.into_inner())
}

/// Register a backend; a second backend with the same label returns the first one's id (opening a device twice
/// is harmless), or, where the first was lost, takes its place under that id.
pub fn register(backend: Arc<dyn Backend>) -> DeviceId {
    let mut all = DEVICES.write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = all.iter().position(|b| b.info().label == backend.info().label) {
        // A lost device is replaced under its id; its tensors' buffers stay with the lost one and fail there.
        if all[i].is_lost() {
            all[i] = backend;
        }
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

/// The device to use and a sentence saying why (Python's and JavaScript's `best_device`): the first real GPU
/// opened; else, where `software_ok` (a browser, whose only GPU may be software), the first software GPU; else the
/// CPU, with `no_gpu` as the reason when no GPU was opened at all.
pub fn best_device(software_ok: bool, no_gpu: &str) -> Result<(DeviceId, String)> {
    let cpu = find("cpu")?;
    let mut software: Option<(DeviceId, DeviceInfo)> = None;
    for id in devices() {
        let info = backend(id)?.info().clone();
        match info.device_type {
            DeviceType::DiscreteGpu | DeviceType::IntegratedGpu | DeviceType::VirtualGpu if !info.min_spec => {
                return Ok((id, format!("using {}", describe(&info))));
            }
            DeviceType::SoftwareGpu if software.is_none() => software = Some((id, info)),
            _ => {}
        }
    }
    let why = match software {
        Some((id, info)) if software_ok => return Ok((id, format!("using {}", describe(&info)))),
        Some((_, info)) => format!(
            "using the CPU: the only GPU is {}, a software renderer that is slower than the CPU backend; pass '{}' \
             explicitly to use it anyway",
            describe(&info),
            info.label
        ),
        None => format!("using the CPU: {no_gpu}"),
    };
    Ok((cpu, why))
}

/// "Vulkan device 0: NVIDIA H200 (discrete, driver NVIDIA 580.159.04)", or "WebGPU: SwiftShader (...)".
fn describe(info: &DeviceInfo) -> String {
    let what = if info.kind == "webgpu" { "WebGPU".to_string() } else { format!("Vulkan device {}", info.index) };
    let name = if info.adapter.is_empty() { "unnamed adapter" } else { &info.adapter };
    let kind = info.device_type.describe();
    match info.driver.as_str() {
        "" => format!("{what}: {name} ({kind})"),
        driver => format!("{what}: {name} ({kind}, driver {driver})"),
    }
}

/// Block until `fut` resolves, driving every device between polls (realization, which may involve several).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        for b in devices_read().clone() {
            b.drive(true);
        }
    }
}

/// In a browser only futures that are already complete can be waited for (see `wait`).
#[cfg(target_arch = "wasm32")]
pub fn block_on<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        Poll::Ready(v) => v,
        Poll::Pending => Err(Error::Runtime(
            "this would block the browser waiting for the GPU: await the value instead (t.data(), t.item())".into(),
        )),
    }
}
