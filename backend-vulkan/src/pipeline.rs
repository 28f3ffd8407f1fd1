//! Shader families (assembled and validated by build.rs) and their compute pipelines, compiled once per device.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

// FAMILIES: every kernel family and its WGSL, listed by build.rs from the files in shaders/.
include!(concat!(env!("OUT_DIR"), "/families.rs"));

/// Compiled pipelines by family.
#[derive(Default)]
pub struct Pipelines {
    cache: Mutex<HashMap<&'static str, wgpu::ComputePipeline>>,
}

impl Pipelines {
    pub fn get(&self, device: &wgpu::Device, family: &'static str) -> wgpu::ComputePipeline {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = cache.get(family) {
            return p.clone();
        }
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(family),
            source: wgpu::ShaderSource::Wgsl(source(family)),
        });
        let p = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(family),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        cache.insert(family, p.clone());
        p
    }
}

/// The family's WGSL: `$VKML_SHADER_DIR/<family>.wgsl` when that variable is set and the file exists, else the text
/// build.rs assembled. The override lets tools/mutate.py run each shader mutant through the prebuilt tests without a
/// rebuild; it is read here, once per pipeline compile (so once per device and family), so that it costs nothing per
/// dispatch and a process sees one consistent text. An invalid override fails in wgpu's validation like any bad shader.
fn source(family: &str) -> Cow<'static, str> {
    if let Some(dir) = std::env::var_os("VKML_SHADER_DIR") {
        if let Ok(text) = std::fs::read_to_string(std::path::Path::new(&dir).join(format!("{family}.wgsl"))) {
            return text.into();
        }
    }
    FAMILIES.iter().find(|(n, _)| *n == family).map(|(_, s)| Cow::Borrowed(*s)).unwrap_or_default()
}
