//! Shader families (assembled and validated by build.rs) and their compute pipelines, compiled once per device; and
//! the kernels of fused programs that keep coming back (straight.rs), validated by naga before use.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use vkml_core::util::error::Result;
use vkml_core::util::stats::{bump, Counter};

// FAMILIES (every kernel family and its WGSL, listed by build.rs from the files in shaders/), BINARY_FLAT_OPS and
// UNARY_FLAT_OPS.
include!(concat!(env!("OUT_DIR"), "/families.rs"));

/// Runs of a fused program on the generic kernel before it gets a kernel of its own: most programs of a test or a
/// one-off expression run a few times, while a training step's run every step.
pub const HOT: u32 = 8;
/// A device's first programs get their own kernels at their first run, and the generic kernel is compiled only for
/// the programs after them: a driver compiling cold took as long for the generic kernel as for twenty programs'
/// own (an H100: 3.3 s against 75–190 ms each; lavapipe 0.83 s against 20–50 ms), and a training job has a handful.
pub const EAGER_PROGRAMS: usize = 32;
/// Programs counted, and kernels compiled, at most per device (the counts and kernels live as long as the device).
const MAX_COUNTED: usize = 4096;
const MAX_COMPILED: usize = 256;

/// A compute pipeline and its family's bind group layout (binding.rs), whose uniform takes a dynamic offset.
#[derive(Clone)]
pub struct Ready {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// A fused program's state: runs so far on the generic kernel, or its own kernel (None where it could not be made).
enum Program {
    Counting(u32),
    Compiled(Option<Ready>),
}

/// Compiled pipelines by family and the values of its overridable constants (none for most), and fused programs by
/// their shape (`fused::shape`).
pub struct Pipelines {
    cache: Mutex<HashMap<(&'static str, Vec<u32>), Ready>>,
    layouts: Mutex<HashMap<&'static str, (wgpu::BindGroupLayout, wgpu::PipelineLayout)>>,
    programs: Mutex<Programs>,
}

/// The fused programs a device has seen, and how many got their own kernel.
#[derive(Default)]
struct Programs {
    seen: HashMap<Vec<u32>, Program>,
    compiled: usize,
    /// Programs that get their own kernel at their first run (`EAGER_PROGRAMS`; tests set 0 to interpret first).
    eager: usize,
}

impl Default for Pipelines {
    fn default() -> Pipelines {
        let programs = Programs { eager: EAGER_PROGRAMS, ..Default::default() };
        Pipelines { cache: Mutex::default(), layouts: Mutex::default(), programs: Mutex::new(programs) }
    }
}

impl Pipelines {
    pub fn get(&self, device: &wgpu::Device, family: &'static str) -> Result<Ready> {
        self.specialized(device, family, &[])
    }

    /// The pipeline of `family` with its `override` constants set to `constants` (name, value), one per set of
    /// values: a driver compiles a constant into the code, which a uniform value cannot be. A family marked
    /// `// @passthrough` is compiled here (spirv.rs), which can fail; wgpu reports other bad shaders later.
    pub fn specialized(&self, device: &wgpu::Device, family: &'static str, constants: &[(&str, u32)]) -> Result<Ready> {
        let key = (family, constants.iter().map(|c| c.1).collect::<Vec<_>>());
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let src = source(family);
        let (layout, pipeline_layout) = self.layouts(device, family);
        let values: Vec<(&str, f64)> = constants.iter().map(|&(name, v)| (name, f64::from(v))).collect();
        let passthrough = src.lines().any(|l| l.trim() == PASSTHROUGH);
        let named = || {
            let set: Vec<String> = constants.iter().map(|(name, v)| format!("{name}={v}")).collect();
            if set.is_empty() {
                family.to_string()
            } else {
                format!("{family} ({})", set.join(", "))
            }
        };
        let pipeline = compiling(named, move || {
            let module = if passthrough {
                passthrough_module(device, family, &src, &values, bindings(family))?
            } else {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(family),
                    source: wgpu::ShaderSource::Wgsl(src),
                })
            };
            // A passed-through module has its constants substituted already.
            let values = if passthrough { &[][..] } else { &values[..] };
            Ok(device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(family),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions { constants: values, ..Default::default() },
                cache: None,
            }))
        })?;
        let ready = Ready { pipeline, layout };
        cache.insert(key, ready.clone());
        Ok(ready)
    }

    /// The family's bind group and pipeline layouts, made once per device.
    fn layouts(&self, device: &wgpu::Device, family: &'static str) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        let mut layouts = self.layouts.lock().unwrap_or_else(|e| e.into_inner());
        layouts.entry(family).or_insert_with(|| crate::binding::layouts(device, family, bindings(family))).clone()
    }

    /// The kernel for fused program `words` with `dtypes` (the dtype codes of its output and three inputs), and its
    /// name for the profiler: its own ("fused program") at once for the device's first `EAGER_PROGRAMS` programs,
    /// else from the `HOT`-th run of its shape (its steps and dtypes, whatever its constants) on; before that, or
    /// where it has none, the generic ("fused").
    pub fn program(&self, device: &wgpu::Device, words: &[u32], dtypes: [u32; 4]) -> Result<(Ready, &'static str)> {
        let words = &crate::fused::shape(words);
        let key = &[&words[..], &dtypes[..]].concat();
        let mut programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        let eager = programs.compiled < programs.eager;
        let runs = match programs.seen.get_mut(key) {
            None if eager => 0,
            None => {
                if programs.seen.len() < MAX_COUNTED {
                    programs.seen.insert(key.to_vec(), Program::Counting(1));
                }
                return Ok((self.get(device, "fused")?, "fused"));
            }
            Some(Program::Compiled(Some(own))) => return Ok((own.clone(), "fused program")),
            Some(Program::Compiled(None)) => return Ok((self.get(device, "fused")?, "fused")),
            Some(Program::Counting(n)) => {
                *n += 1;
                *n
            }
        };
        if !eager && (runs < HOT || programs.compiled >= MAX_COMPILED) {
            return Ok((self.get(device, "fused")?, "fused"));
        }
        let (layout, pipeline_layout) = self.layouts(device, "fused");
        let own = straight_pipeline(device, &pipeline_layout, words, dtypes).map(|pipeline| Ready { pipeline, layout });
        programs.seen.insert(key.to_vec(), Program::Compiled(own.clone()));
        programs.compiled += 1;
        match own {
            Some(own) => Ok((own, "fused program")),
            None => Ok((self.get(device, "fused")?, "fused")),
        }
    }

    /// Run every new fused program on the generic kernel first (`HOT` runs), as past the first `EAGER_PROGRAMS`:
    /// for tests that check the generic kernel against the programs' own.
    pub fn interpret_first(&self) {
        self.programs.lock().unwrap_or_else(|e| e.into_inner()).eager = 0;
    }
}

/// The bindings build.rs found `family`'s `main` using (none for an unknown family).
fn bindings(family: &str) -> crate::binding::Bindings {
    FAMILIES.iter().find(|f| f.0 == family).map_or(&[][..], |f| f.2)
}

/// The line that marks a family compiled here and handed to the driver as it is (matmul_coop_staged.wgsl says why).
const PASSTHROUGH: &str = "// @passthrough";

/// A `// @passthrough` family's module: naga's SPIR-V under the GLSL450 memory model with `constants` substituted
/// and its bindings numbered as wgpu numbers the layout's descriptors (spirv.rs).
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
fn passthrough_module(
    device: &wgpu::Device,
    family: &'static str,
    src: &str,
    constants: &[(&str, f64)],
    bindings: crate::binding::Bindings,
) -> Result<wgpu::ShaderModule> {
    let numbers: Vec<u32> = bindings.iter().map(|b| b.0).collect();
    let (words, [x, y, z]) = crate::spirv::compile(src, constants, &numbers)?;
    let main = wgpu::PassthroughShaderEntryPoint { name: "main".into(), workgroup_size: (x, y, z) };
    let desc = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some(family),
        entry_points: Cow::Owned(vec![main]),
        spirv: Some(Cow::Owned(words)),
        ..Default::default()
    };
    // SAFETY: wgpu cannot check a passed-through module. This one is naga's own SPIR-V for WGSL that naga validated
    // (here and at build time) with only the memory-model declaration changed; the backend runs such a family only on
    // a device opened with the features it uses (device.rs `STAGED_FEATURES`), and its bindings are renumbered to
    // the layout `binding::layouts` makes from the same list.
    Ok(unsafe { device.create_shader_module_passthrough(desc) })
}

#[cfg(target_arch = "wasm32")]
fn passthrough_module(
    _: &wgpu::Device,
    family: &'static str,
    _: &str,
    _: &[(&str, f64)],
    _: crate::binding::Bindings,
) -> Result<wgpu::ShaderModule> {
    Err(vkml_core::util::error::Error::Unsupported(format!(
        "the {family} kernel is compiled to SPIR-V for a native Vulkan driver, which a browser does not have"
    )))
}

/// `make` a pipeline (the driver compiles it then), counted in `vkml.stats()` (`pipelines_compiled`, and natively
/// `host_ns_compile`) and, while the profiler records, noted with `name` and its milliseconds: a first run's
/// compiles can outweigh its kernels.
fn compiling<T>(name: impl FnOnce() -> String, make: impl FnOnce() -> Result<T>) -> Result<T> {
    #[cfg(not(target_arch = "wasm32"))]
    let start = std::time::Instant::now();
    let made = make()?;
    bump(Counter::PipelinesCompiled, 1);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let ns = start.elapsed().as_nanos() as u64;
        bump(Counter::HostCompileNs, ns);
        if vkml_core::backend::profile::is_on() {
            vkml_core::backend::profile::note(format!("compiled pipeline {} in {:.1} ms", name(), ns as f64 / 1e6));
        }
    }
    #[cfg(target_arch = "wasm32")]
    let _ = name;
    Ok(made)
}

/// A straight-line kernel for `words` on the generic fused kernel's layout (the Meta uniform, three inputs, the
/// output; it may use fewer), or None where its source does not validate. In the browser the program stays on the
/// generic kernel: WebGPU reports a bad shader only later, and naga would add to the download.
#[cfg(not(target_arch = "wasm32"))]
fn straight_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    words: &[u32],
    dtypes: [u32; 4],
) -> Option<wgpu::ComputePipeline> {
    let src = crate::straight::straight(&source("fused"), words, dtypes)?;
    let module = naga::front::wgsl::parse_str(&src).ok()?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
        .validate(&module)
        .ok()?;
    bump(Counter::KernelsGenerated, 1);
    compiling(
        || format!("fused program ({} words)", words.len()),
        || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("fused program"),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            });
            Ok(device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("fused program"),
                layout: Some(layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            }))
        },
    )
    .ok()
}

#[cfg(target_arch = "wasm32")]
fn straight_pipeline(
    _: &wgpu::Device,
    _: &wgpu::PipelineLayout,
    _: &[u32],
    _: [u32; 4],
) -> Option<wgpu::ComputePipeline> {
    None
}

/// The family's WGSL: `$VKML_SHADER_DIR/<family>.wgsl` when that variable is set and the file exists, else the text
/// build.rs assembled. The override lets tools/mutate.py run each shader mutant through the prebuilt tests without a
/// rebuild; it is read here, once per pipeline compile (so once per device and family), so that it costs nothing per
/// dispatch and a process sees one consistent text. An invalid override fails in wgpu's validation like any bad shader.
pub(crate) fn source(family: &str) -> Cow<'static, str> {
    if let Some(dir) = std::env::var_os("VKML_SHADER_DIR") {
        if let Ok(text) = std::fs::read_to_string(std::path::Path::new(&dir).join(format!("{family}.wgsl"))) {
            return text.into();
        }
    }
    FAMILIES.iter().find(|f| f.0 == family).map(|f| Cow::Borrowed(f.1)).unwrap_or_default()
}
