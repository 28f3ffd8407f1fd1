//! Opening a GPU through wgpu (Vulkan natively, the browser's WebGPU on wasm), with either the adapter's limits or the floor that both
//! Vulkan 1.3 and WebGPU guarantee; wgpu errors become values instead of panics.

use std::sync::{Arc, Mutex};

use vkml_core::backend::DeviceType;
use vkml_core::util::error::{Error, Result};

/// The floor (`VKML_MIN_SPEC=1`): WebGPU's defaults with 128 invocations and 4 storage buffers, no immediates,
/// and no optional features.
pub fn floor_limits() -> wgpu::Limits {
    wgpu::Limits {
        max_compute_invocations_per_workgroup: 128,
        max_compute_workgroup_size_x: 128,
        max_compute_workgroup_size_y: 128,
        max_compute_workgroup_size_z: 64,
        max_compute_workgroup_storage_size: 16 << 10,
        max_storage_buffers_per_shader_stage: 4,
        max_storage_buffer_binding_size: 128 << 20,
        min_storage_buffer_offset_alignment: 256,
        max_compute_workgroups_per_dimension: 65_535,
        max_immediate_size: 0,
        ..wgpu::Limits::defaults()
    }
}

pub struct Opened {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// Whether the device was opened with the cooperative-matrix pipeline's features (`coop_features`).
    pub coop: bool,
    /// Whether it was also opened with the staged cooperative-matrix pipeline's (`STAGED_FEATURES`).
    pub staged: bool,
    /// Whether the device was opened with timestamp queries (the profiler's device times).
    pub timestamps: bool,
    /// The first error wgpu reported outside an error scope (or device loss), kept until someone reads it.
    pub stray_error: Arc<Mutex<Option<String>>>,
    /// Why the device was lost, once it is (kept: every later call refuses with it).
    pub lost: Arc<Mutex<Option<String>>>,
}

pub fn device_type(info: &wgpu::AdapterInfo) -> DeviceType {
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => DeviceType::DiscreteGpu,
        wgpu::DeviceType::IntegratedGpu => DeviceType::IntegratedGpu,
        wgpu::DeviceType::VirtualGpu => DeviceType::VirtualGpu,
        wgpu::DeviceType::Cpu | wgpu::DeviceType::Other => DeviceType::SoftwareGpu,
    }
}

/// Open Vulkan adapter `index` (in wgpu's enumeration order).
#[cfg(not(target_arch = "wasm32"))]
pub fn open(index: usize, min_spec: bool) -> Result<Opened> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    // Where the driver reports a memory budget (VK_EXT_memory_budget), creating a buffer past 95 % of it is an
    // out-of-memory error that vkml reports, rather than a request the driver may fail inside (lavapipe segfaults).
    desc.memory_budget_thresholds =
        wgpu::MemoryBudgetThresholds { for_resource_creation: Some(95), ..Default::default() };
    let instance = wgpu::Instance::new(desc);
    let adapters = block(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let count = adapters.len();
    let adapter = adapters.into_iter().nth(index).ok_or_else(|| {
        Error::Device(if count == 0 {
            "no Vulkan adapter found (is a Vulkan driver such as mesa-vulkan-drivers installed?)".to_string()
        } else {
            format!("Vulkan adapter {index} does not exist ({count} found)")
        })
    })?;
    block(open_adapter(adapter, index, min_spec))
}

/// Open the browser's WebGPU adapter. The caller has checked that `navigator.gpu` exists: wgpu's WebGPU instance
/// panics without it.
#[cfg(target_arch = "wasm32")]
pub async fn open(min_spec: bool) -> Result<Opened> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = wgpu::Instance::new(desc);
    let options =
        wgpu::RequestAdapterOptions { power_preference: wgpu::PowerPreference::HighPerformance, ..Default::default() };
    let adapter = instance
        .request_adapter(&options)
        .await
        .map_err(|e| Error::Device(format!("the browser offers no WebGPU adapter: {e}")))?;
    open_adapter(adapter, 0, min_spec).await
}

/// Request the device with the adapter's own limits, or with only the floor. The cooperative-matrix features are
/// asked for where the adapter lists them; should that request fail, the device opens without them. Timestamp
/// queries (for the profiler) are asked for where the adapter has them, except on the floor, which has no optional
/// features.
async fn open_adapter(adapter: wgpu::Adapter, index: usize, min_spec: bool) -> Result<Opened> {
    let info = adapter.get_info();
    let limits = if min_spec { floor_limits() } else { adapter.limits() };
    let timestamps =
        if min_spec { wgpu::Features::empty() } else { adapter.features() & wgpu::Features::TIMESTAMP_QUERY };
    let desc = wgpu::DeviceDescriptor {
        label: Some("vkml"),
        required_features: timestamps,
        required_limits: limits.clone(),
        ..Default::default()
    };
    let mut with_coop = None;
    if let Some(features) = if min_spec { None } else { coop_features(&adapter) } {
        let coop_desc = wgpu::DeviceDescriptor {
            required_features: features | timestamps,
            experimental_features: experimental(),
            ..desc.clone()
        };
        with_coop = adapter.request_device(&coop_desc).await.ok();
    }
    let coop = with_coop.is_some();
    let staged = with_coop.as_ref().is_some_and(|(d, _)| d.features().contains(STAGED_FEATURES));
    let (device, queue) = match with_coop {
        Some(opened) => opened,
        None => adapter
            .request_device(&desc)
            .await
            .map_err(|e| Error::Backend(format!("could not open GPU device {index} ({}): {e}", info.name)))?,
    };
    let stray_error: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let sink = stray_error.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
        s.get_or_insert_with(|| e.to_string());
    }));
    let lost: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let sink = lost.clone();
    device.set_device_lost_callback(move |reason, msg| {
        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
        let msg = if msg.is_empty() { String::new() } else { format!(": {msg}") };
        s.get_or_insert_with(|| format!("GPU device lost ({reason:?}){msg}"));
    });
    let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    Ok(Opened { device, queue, info, limits, coop, staged, timestamps, stray_error, lost })
}

/// What the staged cooperative-matrix pipeline (shaders/matmul_coop_staged.wgsl) needs beyond the direct one's: its
/// invocations find their subgroup (`subgroup_id`), and its SPIR-V reaches the driver as spirv.rs writes it.
const STAGED_FEATURES: wgpu::Features = wgpu::Features::SUBGROUP.union(wgpu::Features::PASSTHROUGH_SHADERS);

/// The features the cooperative-matrix pipelines (shaders/matmul_coop*.wgsl) need, where the adapter has them all:
/// a subgroup-scope 16x16x16 configuration with f16 inputs and an f32 accumulator, and f16 in shaders; and
/// subgroups of exactly 32, since the direct pipeline's workgroup of 32 must be one whole subgroup (and the staged
/// one's 128 four). With them, the staged pipeline's `STAGED_FEATURES` where the adapter has those too. wgpu offers
/// cooperative matrices natively only, and the floor asks for no optional feature, so neither a browser nor the
/// floor runs these pipelines.
fn coop_features(adapter: &wgpu::Adapter) -> Option<wgpu::Features> {
    let features = wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX | wgpu::Features::SHADER_F16;
    let info = adapter.get_info();
    let subgroup = (info.subgroup_min_size, info.subgroup_max_size) == (32, 32);
    let config = |p: &wgpu::CooperativeMatrixProperties| {
        (p.m_size, p.n_size, p.k_size) == (16, 16, 16)
            && p.ab_type == wgpu::CooperativeScalarType::F16
            && p.cr_type == wgpu::CooperativeScalarType::F32
    };
    (subgroup && adapter.features().contains(features) && adapter.cooperative_matrix_properties().iter().any(config))
        .then_some(features | (adapter.features() & STAGED_FEATURES))
}

/// Permission to request an EXPERIMENTAL feature. wgpu marks it unsafe because its implementation of such features
/// may still have bugs that reach undefined behaviour; cooperative matrices are the only one requested, and the
/// pipeline that uses them is checked against the CPU oracle like every other (tests/tests/matmul_pipelines.rs).
#[allow(unsafe_code)]
fn experimental() -> wgpu::ExperimentalFeatures {
    // SAFETY: see above; wgpu states no further precondition for enabling experimental features.
    unsafe { wgpu::ExperimentalFeatures::enabled() }
}

/// Block on a future that wgpu resolves without polling (adapter and device requests, error scopes, on native).
#[cfg(not(target_arch = "wasm32"))]
pub fn block<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
