//! Shader families (assembled and validated by build.rs) and their compute pipelines, compiled once per device.

use std::collections::HashMap;
use std::sync::Mutex;

/// Every kernel family and its WGSL.
pub const FAMILIES: [(&str, &str); 11] = [
    ("create", include_str!(concat!(env!("OUT_DIR"), "/create.wgsl"))),
    ("unary", include_str!(concat!(env!("OUT_DIR"), "/unary.wgsl"))),
    ("binary", include_str!(concat!(env!("OUT_DIR"), "/binary.wgsl"))),
    ("where", include_str!(concat!(env!("OUT_DIR"), "/where.wgsl"))),
    ("cast", include_str!(concat!(env!("OUT_DIR"), "/cast.wgsl"))),
    ("movement", include_str!(concat!(env!("OUT_DIR"), "/movement.wgsl"))),
    ("reduce", include_str!(concat!(env!("OUT_DIR"), "/reduce.wgsl"))),
    ("matmul", include_str!(concat!(env!("OUT_DIR"), "/matmul.wgsl"))),
    ("index", include_str!(concat!(env!("OUT_DIR"), "/index.wgsl"))),
    ("sort", include_str!(concat!(env!("OUT_DIR"), "/sort.wgsl"))),
    ("scan", include_str!(concat!(env!("OUT_DIR"), "/scan.wgsl"))),
];

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
        let src = FAMILIES.iter().find(|(n, _)| *n == family).map(|(_, s)| *s).unwrap_or("");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(family),
            source: wgpu::ShaderSource::Wgsl(src.into()),
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
