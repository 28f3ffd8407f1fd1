//! vkml-backend-vulkan: WGSL compute shaders through wgpu, restricted to Vulkan natively and on the browser's
//! WebGPU in wasm. One command encoder and one submission per batch; errors from wgpu come back as values.

mod binary;
mod binding;
mod buffer;
mod cast;
mod create;
mod device;
mod elementwise;
mod fused;
mod index;
mod launch;
mod matmul;
mod meta;
mod movement;
mod pipeline;
mod profile;
mod reduce;
mod scan;
mod softmax;
mod sort;
#[cfg(not(target_arch = "wasm32"))]
mod spirv;
#[cfg(not(target_arch = "wasm32"))]
mod straight;
mod unary;
mod window;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use vkml_core::backend::memory::Memory;
use vkml_core::backend::profile::{self as prof, KernelRecord};
use vkml_core::backend::{Backend, DeviceInfo, Kernel};
use vkml_core::base::buffer::{Buffer, DeviceId};
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::Op;
use vkml_core::graph::table;
use vkml_core::util::error::{Error, Result};
use vkml_core::util::future::{ready, BoxFuture};
use vkml_core::util::stats::{bump, span, Counter};

use binding::Binder;
use buffer::{from_words, size_bytes, to_words, GpuBuffer, Pool};
use launch::Launch;
use pipeline::Pipelines;

pub use device::floor_limits;
pub use matmul::{select as select_matmul, Pipeline as MatmulPipeline};
pub use pipeline::HOT as FUSED_HOT;

/// A Vulkan device.
pub struct VulkanBackend {
    info: DeviceInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    limits: wgpu::Limits,
    pipelines: Pipelines,
    pool: Arc<Pool>,
    /// Kernels' uniforms and the bind groups made over them, kept while their buffers come back.
    binder: Binder,
    stray_error: Arc<Mutex<Option<String>>>,
    /// Why the device was lost, once it is: every later call refuses with it, and the front end may open it again.
    lost: Arc<Mutex<Option<String>>>,
    /// Work recorded by `run` and not yet submitted; a readback appends its copy and submits both at once.
    pending: Mutex<Option<wgpu::CommandEncoder>>,
    /// Whether the device runs the cooperative-matrix matmul pipeline (device::coop_features).
    coop: bool,
    /// Whether it was opened with the staged cooperative-matrix pipeline's features too (device::STAGED_FEATURES).
    staged: bool,
    /// Whether the device has timestamp queries, which the profiler's device times need.
    timestamps: bool,
    /// Bytes of storage buffers the device may reserve (`VKML_MAX_DEVICE_BYTES`), where limited.
    budget: Option<u64>,
    /// The matmul pipeline every product runs on instead of the selector's choice (tests and benchmarks set it).
    matmul_forced: Mutex<Option<MatmulPipeline>>,
    /// In a browser, the error scopes of batches run since the last readback: `run` cannot wait for them, so the
    /// next readback does, and fails rather than return values from a batch WebGPU rejected.
    #[cfg(target_arch = "wasm32")]
    scopes: Mutex<Vec<ScopeFuture>>,
    /// In a browser, the profiler's device times of batches run since the last readback, which awaits them.
    #[cfg(target_arch = "wasm32")]
    timings: Mutex<Vec<TimesFuture>>,
}

#[cfg(target_arch = "wasm32")]
type ScopeFuture = Pin<Box<dyn Future<Output = Option<wgpu::Error>> + Send>>;

/// Reading a profiled batch's ticks back into the profiler (`Send`, as a browser's backend keeps it until a read).
type TimesFuture = Pin<Box<dyn Future<Output = Result<()>> + Send>>;

impl VulkanBackend {
    /// Open adapter `index`. `min_spec` requests only the floor; `env_forced` says the floor came from
    /// VKML_MIN_SPEC=1, in which case the device keeps the plain name "vulkan:N".
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(index: usize, min_spec: bool, env_forced: bool) -> Result<VulkanBackend> {
        let o = device::open(index, min_spec)?;
        let label = if min_spec && !env_forced { format!("vulkan:{index}:floor") } else { format!("vulkan:{index}") };
        Ok(VulkanBackend::from_opened(o, label, "vulkan", index, min_spec))
    }

    /// Open the browser's WebGPU device ("webgpu", or "webgpu:floor" with only the floor's limits).
    #[cfg(target_arch = "wasm32")]
    pub async fn new_webgpu(min_spec: bool) -> Result<VulkanBackend> {
        let o = device::open(min_spec).await?;
        let label = if min_spec { "webgpu:floor" } else { "webgpu" }.to_string();
        Ok(VulkanBackend::from_opened(o, label, "webgpu", 0, min_spec))
    }

    fn from_opened(o: device::Opened, label: String, kind: &'static str, index: usize, min_spec: bool) -> Self {
        let info = DeviceInfo {
            label,
            kind,
            index,
            min_spec,
            adapter: o.info.name.clone(),
            driver: format!("{} {}", o.info.driver, o.info.driver_info).trim().to_string(),
            device_type: device::device_type(&o.info),
            f16_matrix_units: o.coop,
        };
        let binder = Binder::new(&o.device, o.limits.min_uniform_buffer_offset_alignment);
        VulkanBackend {
            binder,
            info,
            device: o.device,
            queue: o.queue,
            limits: o.limits,
            coop: o.coop,
            staged: o.staged,
            timestamps: o.timestamps,
            budget: budget(),
            pipelines: Pipelines::default(),
            pool: Arc::new(Pool::default()),
            stray_error: o.stray_error,
            lost: o.lost,
            pending: Mutex::new(None),
            matmul_forced: Mutex::new(None),
            #[cfg(target_arch = "wasm32")]
            scopes: Mutex::new(Vec::new()),
            #[cfg(target_arch = "wasm32")]
            timings: Mutex::new(Vec::new()),
        }
    }

    /// Run every matmul on `pipeline` (None: the selector's choice again). For tests, which check each pipeline
    /// at shapes the selector would send elsewhere, and for benchmarks comparing them.
    pub fn force_matmul(&self, pipeline: Option<MatmulPipeline>) {
        *self.matmul_forced.lock().unwrap_or_else(|e| e.into_inner()) = pipeline;
    }

    /// Run every new fused program on the generic kernel for its first `FUSED_HOT` runs, as the device does past
    /// its first `pipeline::EAGER_PROGRAMS` programs: for tests that check the generic kernel.
    pub fn interpret_first(&self) {
        self.pipelines.interpret_first();
    }

    /// Whether float16 products can run on the cooperative-matrix pipeline here.
    pub fn has_coop_matmul(&self) -> bool {
        self.coop
    }

    /// Whether large float16 products can run on the staged cooperative-matrix pipeline here: the direct one's
    /// features, its own, and its 20 KiB of workgroup memory (more than the floor's 16).
    pub fn has_staged_matmul(&self) -> bool {
        self.coop && self.staged && self.limits.max_compute_workgroup_storage_size >= matmul::STAGED_MEMORY
    }

    /// Whether the wide matmul pipeline runs here: its workgroup of 16x16 invocations and 16 KiB of workgroup
    /// memory are within the device's limits (WebGPU's defaults; not the floor's 128 invocations).
    pub fn has_wide_matmul(&self) -> bool {
        let l = &self.limits;
        // Not in a browser yet: under Chromium's SwiftShader a product of a million outputs did not finish on it, nor
        // on the tiled pipeline (docs/matmul.md), so a browser runs such products on the 16x16 pipeline.
        !cfg!(target_arch = "wasm32")
            && l.max_compute_invocations_per_workgroup >= 256
            && l.max_compute_workgroup_size_x >= 16
            && l.max_compute_workgroup_size_y >= 16
            && l.max_compute_workgroup_storage_size >= 16 << 10
    }

    /// The pending encoder, locked: recording, submitting and queue writes all happen under this lock, so work
    /// from several threads is never lost or reordered around an upload.
    fn pending(&self) -> std::sync::MutexGuard<'_, Option<wgpu::CommandEncoder>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn new_encoder(&self) -> wgpu::CommandEncoder {
        self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("vkml") })
    }

    fn submit(&self, enc: wgpu::CommandEncoder) {
        let timing = span(Counter::HostSubmitNs);
        self.queue.submit([enc.finish()]);
        self.binder.submitted();
        timing.end();
        bump(Counter::Submissions, 1);
    }

    /// Lose the device as a driver would (a test hook: wgpu destroys it), so that what loss does can be tested.
    pub fn lose(&self) {
        self.device.destroy();
        // wgpu reports the loss when it next polls the device.
        let _ = self.device.poll(wgpu::PollType::Poll);
    }

    /// Err naming the loss, once the device is lost.
    fn check_lost(&self) -> Result<()> {
        match self.lost.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(why) => Err(Error::Backend(format!(
                "{why}; {} is gone with its tensors: open it again with vkml.init_vulkan({})",
                self.info.label, self.info.index
            ))),
            None => Ok(()),
        }
    }

    fn take_stray_error(&self) -> Option<String> {
        self.stray_error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// `b` as this device's buffer: one made by a device lost since (the same name, opened again) is refused.
    fn gpu<'a>(&self, b: &'a Buffer) -> Result<&'a GpuBuffer> {
        let g = b.downcast::<GpuBuffer>().ok_or_else(|| Error::Backend("not a Vulkan buffer".into()))?;
        if !Arc::ptr_eq(&g.pool, &self.pool) {
            return Err(Error::Backend(format!(
                "this tensor was on a {} that was lost: its data went with that device",
                self.info.label
            )));
        }
        Ok(g)
    }

    /// A storage buffer of `bytes`: a pooled one of that size, else a new one. A new one must fit the budget
    /// (`VKML_MAX_DEVICE_BYTES`) and the device: where either refuses, the pool's buffers go back to the device and
    /// the request is tried once more, as torch's allocator frees its cache before it reports running out.
    fn new_buffer(&self, bytes: u64) -> Result<wgpu::Buffer> {
        if let Some(b) = self.pool.take(bytes) {
            return Ok(b);
        }
        let buffer = match self.create_buffer(bytes) {
            Ok(b) => b,
            Err(_) => {
                self.release_pool();
                self.create_buffer(bytes)?
            }
        };
        self.pool.memory.hold(bytes, false);
        Ok(buffer)
    }

    fn create_buffer(&self, bytes: u64) -> Result<wgpu::Buffer> {
        let held = self.pool.memory.memory().reserved;
        if self.budget.is_some_and(|budget| held.saturating_add(bytes) > budget) {
            return Err(self.out_of_memory(bytes, "VKML_MAX_DEVICE_BYTES"));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vkml"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // Natively wgpu reports a creation's error before the scope's future is first polled; a browser cannot
        // wait for it, and its error surfaces with the batch that uses the buffer.
        #[cfg(not(target_arch = "wasm32"))]
        if device::block(scope.pop()).is_some() {
            return Err(self.out_of_memory(bytes, "the device"));
        }
        #[cfg(target_arch = "wasm32")]
        drop(scope);
        Ok(buffer)
    }

    /// Give the pool's buffers back to the device, with the bind groups that hold them.
    fn release_pool(&self) {
        self.binder.clear();
        self.pool.clear();
    }

    /// torch's wording for an allocation that does not fit.
    fn out_of_memory(&self, bytes: u64, refused_by: &str) -> Error {
        let m = self.pool.memory.memory();
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Error::Runtime(format!(
            "{} out of memory: tried to allocate {:.2} GiB; {:.2} GiB allocated, {:.2} GiB reserved (refused by {refused_by})",
            self.info.label,
            gib(bytes),
            gib(m.allocated),
            gib(m.reserved)
        ))
    }

    fn launch(&self, k: &Kernel) -> Result<Launch> {
        match &k.op {
            Op::Full(s) => create::full(k, *s),
            Op::Rand { seed, offset, digits } => create::random(k, *seed, *offset, *digits, false),
            Op::Randn { seed, offset } => create::random(k, *seed, *offset, 24, true),
            Op::Unary(u) => unary::unary(k, *u),
            Op::Binary(b) => binary::binary(k, *b),
            Op::Where => binary::where_(k),
            Op::Fused(steps) => fused::fused(k, steps),
            Op::Cast => cast::cast(k),
            Op::Copy => movement::copy(k),
            Op::Assign { view } => movement::assign(k, view),
            Op::Gather { dim } => index::index(k, *dim, 0),
            Op::Scatter { dim, add } => index::index(k, *dim, if *add { 2 } else { 1 }),
            Op::ArgSort { descending } => sort::argsort(k, *descending),
            Op::Scan(op) => scan::scan(k, *op),
            Op::Softmax { log } => softmax::softmax(k, *log),
            Op::Unfold(w) => window::unfold(k, w),
            Op::Fold(w) => window::fold(k, w),
            Op::MaxPool(w) => window::max_pool(k, w, false),
            Op::MaxPoolGrad(w) => window::max_pool(k, w, true),
            Op::Reduce { op, axes } => reduce::reduce(k, *op, *axes),
            Op::Matmul => matmul::matmul(
                k,
                self.coop,
                self.has_staged_matmul(),
                self.has_wide_matmul(),
                *self.matmul_forced.lock().unwrap_or_else(|e| e.into_inner()),
            ),
            Op::Data(_) | Op::Transfer => Err(Error::Backend("uploads are not kernels".into())),
        }
    }

    /// Record `kernels` into `enc`: every kernel becomes a launch first (so a kernel that cannot run records nothing), then
    /// their metas go into the device's uniform arena, each kernel gets its kept bind group (binding.rs), and one
    /// compute pass dispatches them in order. A buffer and a pass per kernel cost more host time than the kernels of a
    /// small model take on a GPU; wgpu still orders each dispatch after the writes it reads. While the profiler
    /// records, the kernels are reported to it, and where the device has timestamp queries each gets a pass of its own
    /// that times it: the returned ticks are read back after the submission.
    fn encode(&self, enc: &mut wgpu::CommandEncoder, kernels: &[Kernel]) -> Result<Option<profile::Timed>> {
        let timing = span(Counter::HostLaunchNs);
        let mut launches = Vec::with_capacity(kernels.len());
        for k in kernels {
            let d = self.launch(k)?;
            if d.meta.n != 0 {
                launches.push((k, d));
            }
        }
        if launches.is_empty() {
            return Ok(None);
        }
        // The pipeline each launch runs on, and its name for the profiler: a family, or a fused program's own kernel
        // (compiled here the first time, so that the bind phase times bind groups alone). A kernel that cannot be
        // compiled fails the batch before any uniform is written.
        let mut pipelines = Vec::with_capacity(launches.len());
        let mut names: Vec<&'static str> = Vec::with_capacity(launches.len());
        for (_, d) in &launches {
            let (pipeline, name) = match d.family {
                "fused" => {
                    let words = d.meta.prog.get(..d.meta.extra[0] as usize).unwrap_or_default();
                    let [a, b, c, _] = d.meta.in_dtype;
                    self.pipelines.program(&self.device, words, [d.meta.out_dtype, a, b, c])?
                }
                // Its operands' load strides and layouts as constants (matmul.rs puts them in extra2 and extra.w).
                "matmul_coop" => {
                    let strides = [("SA", d.meta.extra2[0]), ("SB", d.meta.extra2[1]), ("LAYOUT", d.meta.extra[3])];
                    (self.pipelines.specialized(&self.device, d.family, &strides)?, d.family)
                }
                // Its operands' layouts as a constant (extra.w).
                "matmul_coop_staged" => {
                    let layout = [("LAYOUT", d.meta.extra[3])];
                    (self.pipelines.specialized(&self.device, d.family, &layout)?, d.family)
                }
                family => (self.pipelines.get(&self.device, family)?, family),
            };
            pipelines.push(pipeline);
            names.push(name);
        }
        let (arena, offsets) = self.binder.uniforms(&self.device, &self.queue, launches.iter().map(|(_, d)| &d.meta));
        timing.end();
        let timing = span(Counter::HostBindNs);
        let mut steps: Vec<profile::Step> = Vec::with_capacity(launches.len());
        for (((k, d), pipeline), offset) in launches.iter().zip(pipelines).zip(offsets) {
            let mut buffers = Vec::with_capacity(d.inputs.len() + 1);
            for (j, b) in d.inputs.iter().enumerate() {
                buffers.push((j as u32 + 1, self.gpu(b)?.buffer.clone()));
            }
            buffers.push((9, self.gpu(&k.out)?.buffer.clone()));
            let bind = self.binder.group(&self.device, d.family, &pipeline.layout, &arena, buffers);
            steps.push((pipeline.pipeline, bind, offset, d.groups));
        }
        timing.end();
        bump(Counter::Dispatches, steps.len() as u64);
        if prof::is_on() {
            let batch = prof::next_batch();
            let label = &self.info.label;
            let first = prof::record(
                launches.iter().zip(&names).map(|((k, _), n)| KernelRecord::new(label, k, n, batch)).collect(),
            );
            if self.timestamps {
                return Ok(Some(profile::encode(&self.device, enc, &steps, first)));
            }
            prof::note(format!("{label} has no timestamp queries: its kernels are listed without device time"));
        }
        let timing = span(Counter::HostRecordNs);
        let mut pass =
            enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("vkml"), timestamp_writes: None });
        for (pipeline, bind, offset, groups) in &steps {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[*offset]);
            pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        }
        drop(pass);
        timing.end();
        Ok(None)
    }

    /// Submit a profiled batch at once and read its ticks back into the profiler's records.
    fn read_times(&self, enc: wgpu::CommandEncoder, timed: profile::Timed) -> TimesFuture {
        self.submit(enc);
        let period = self.queue.get_timestamp_period();
        let ticks = map_read(&timed.staging, DType::I64, timed.kernels * 2);
        Box::pin(async move {
            let ticks = ticks.await?;
            prof::set_times(timed.first, &profile::times(&ticks, period));
            Ok(())
        })
    }
}

/// Map `staging` (its copy already submitted) and resolve with its `len` elements of `dtype` in NumPy layout.
fn map_read(staging: &wgpu::Buffer, dtype: DType, len: usize) -> ReadFuture {
    let state: Arc<Mutex<MapState>> = Arc::new(Mutex::new(MapState::default()));
    let sink = state.clone();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
        s.done = Some(r.map_err(|e| e.to_string()));
        // A browser resolves the mapping from its event loop and must wake the task awaiting it.
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    });
    ReadFuture { state, staging: staging.clone(), dtype, len }
}

impl Backend for VulkanBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn check(&self, op: &Op, dtype: DType) -> Result<()> {
        let f64 = (dtype == DType::F64).then_some("float64 is not available in WGSL shaders");
        table::check_supported(op.name(), "vulkan", dtype, &self.info.label, f64)
    }

    fn alloc(&self, id: DeviceId, dtype: DType, len: usize) -> Result<Buffer> {
        self.check_lost()?;
        let bytes = size_bytes(dtype, len);
        if bytes > self.limits.max_storage_buffer_binding_size {
            return Err(Error::Unsupported(format!(
                "a {} tensor of {len} elements ({bytes} bytes) exceeds the {} byte storage binding limit of {}",
                dtype.name(),
                self.limits.max_storage_buffer_binding_size,
                self.info.label
            )));
        }
        let buffer = self.new_buffer(bytes)?;
        Ok(Buffer::new(id, dtype, len, Arc::new(GpuBuffer { buffer, bytes, pool: self.pool.clone() })))
    }

    fn upload(&self, id: DeviceId, dtype: DType, bytes: &[u8]) -> Result<Buffer> {
        self.check_lost()?;
        self.check(&Op::Transfer, dtype)?;
        // Queue writes land before the next submission's commands, so recorded work must go first: it may still
        // use a pooled buffer this upload is about to reuse.
        let len = bytes.len() / dtype.itemsize();
        let buf = self.alloc(id, dtype, len)?;
        let words = to_words(dtype, bytes);
        let mut pending = self.pending();
        if let Some(enc) = pending.take() {
            self.submit(enc);
        }
        if !words.is_empty() {
            self.queue.write_buffer(&self.gpu(&buf)?.buffer, 0, &words);
        }
        drop(pending);
        Ok(buf)
    }

    fn run(&self, kernels: Vec<Kernel>) -> BoxFuture<()> {
        if let Err(e) = self.check_lost() {
            return ready(Err(e));
        }
        let timing = span(Counter::HostScopeNs);
        let scopes = (
            self.device.push_error_scope(wgpu::ErrorFilter::Validation),
            self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
        );
        timing.end();
        let mut pending = self.pending();
        let enc = pending.get_or_insert_with(|| self.new_encoder());
        let (result, times) = match self.encode(enc, &kernels) {
            // A profiled batch is submitted at once, so that its ticks can be read back.
            Ok(Some(timed)) => (Ok(()), pending.take().map(|enc| self.read_times(enc, timed))),
            r => (r.map(|_| ()), None),
        };
        drop(pending);
        // In a browser the scopes resolve only after this call returns, and realization cannot wait for them: the
        // next readback awaits them.
        #[cfg(target_arch = "wasm32")]
        {
            let mut pending_scopes = self.scopes.lock().unwrap_or_else(|p| p.into_inner());
            pending_scopes.push(Box::pin(scopes.1.pop()));
            pending_scopes.push(Box::pin(scopes.0.pop()));
            self.timings.lock().unwrap_or_else(|p| p.into_inner()).extend(times);
            ready(result)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let timing = span(Counter::HostScopeNs);
            let oom = scopes.1.pop();
            let validation = scopes.0.pop();
            timing.end();
            let stray = self.stray_error.clone();
            Box::pin(async move {
                result?;
                if let Some(e) = oom.await {
                    return Err(Error::Backend(format!("out of GPU memory: {e}")));
                }
                if let Some(e) = validation.await {
                    return Err(Error::Backend(format!("GPU validation error: {e}")));
                }
                if let Some(e) = stray.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    return Err(Error::Backend(e));
                }
                if let Some(times) = times {
                    times.await?;
                }
                Ok(())
            })
        }
    }

    fn is_lost(&self) -> bool {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    fn memory(&self) -> Memory {
        self.pool.memory.memory()
    }

    fn reset_peak_memory(&self) {
        self.pool.memory.reset_peak();
    }

    fn empty_cache(&self) {
        self.release_pool();
    }

    fn read(&self, buffer: &Buffer) -> BoxFuture<Vec<u8>> {
        if let Err(e) = self.check_lost() {
            return ready(Err(e));
        }
        if let Some(e) = self.take_stray_error() {
            return ready(Err(Error::Backend(e)));
        }
        let src = match self.gpu(buffer) {
            Ok(b) => b,
            Err(e) => return ready(Err(e)),
        };
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vkml readback"),
            size: src.bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut pending = self.pending();
        let mut enc = pending.take().unwrap_or_else(|| self.new_encoder());
        enc.copy_buffer_to_buffer(&src.buffer, 0, &staging, 0, src.bytes);
        self.submit(enc);
        drop(pending);
        // Recorded work is validated when it is finished and submitted here; a failure must not return stale bytes.
        if let Some(e) = self.take_stray_error() {
            return ready(Err(Error::Backend(e)));
        }
        let read = map_read(&staging, buffer.dtype, buffer.len);
        #[cfg(target_arch = "wasm32")]
        {
            let scopes = std::mem::take(&mut *self.scopes.lock().unwrap_or_else(|p| p.into_inner()));
            let timings = std::mem::take(&mut *self.timings.lock().unwrap_or_else(|p| p.into_inner()));
            let stray = self.stray_error.clone();
            Box::pin(async move {
                for scope in scopes {
                    if let Some(e) = scope.await {
                        return Err(Error::Backend(format!("WebGPU rejected a batch of kernels: {e}")));
                    }
                }
                for times in timings {
                    times.await?;
                }
                let bytes = read.await?;
                if let Some(e) = stray.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    return Err(Error::Backend(e));
                }
                Ok(bytes)
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        Box::pin(read)
    }

    fn flush(&self) {
        let mut pending = self.pending();
        if let Some(enc) = pending.take() {
            self.submit(enc);
        }
    }

    fn drive(&self, wait: bool) {
        self.flush();
        let how =
            if wait { wgpu::PollType::Wait { submission_index: None, timeout: None } } else { wgpu::PollType::Poll };
        if let Err(e) = self.device.poll(how) {
            let mut s = self.stray_error.lock().unwrap_or_else(|p| p.into_inner());
            s.get_or_insert_with(|| format!("polling the Vulkan device failed: {e}"));
        }
    }
}

/// `VKML_MAX_DEVICE_BYTES`: the bytes of storage buffers a GPU device may reserve (unset, and always in a browser,
/// which has no environment: the device's own limit).
fn budget() -> Option<u64> {
    std::env::var("VKML_MAX_DEVICE_BYTES").ok().and_then(|v| v.trim().parse().ok())
}

/// The mapping's outcome once known, and who to wake then.
#[derive(Default)]
struct MapState {
    done: Option<std::result::Result<(), String>>,
    waker: Option<Waker>,
}

/// Resolves once the staging buffer is mapped; converts GPU words to NumPy layout.
struct ReadFuture {
    state: Arc<Mutex<MapState>>,
    staging: wgpu::Buffer,
    dtype: DType,
    len: usize,
}

impl Future for ReadFuture {
    type Output = Result<Vec<u8>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let done = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if s.done.is_none() {
                s.waker = Some(cx.waker().clone());
            }
            s.done.take()
        };
        match done {
            None => Poll::Pending,
            Some(Err(e)) => Poll::Ready(Err(Error::Backend(format!("reading a GPU buffer failed: {e}")))),
            Some(Ok(())) => {
                let bytes = match self.staging.get_mapped_range(..) {
                    Ok(view) => from_words(self.dtype, self.len, &view),
                    Err(e) => return Poll::Ready(Err(Error::Backend(format!("mapping failed: {e}")))),
                };
                self.staging.unmap();
                Poll::Ready(Ok(bytes))
            }
        }
    }
}
