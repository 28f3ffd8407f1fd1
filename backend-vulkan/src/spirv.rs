//! SPIR-V for the kernels marked `// @passthrough`: naga's output, declared under the GLSL450 memory model.
//!
//! naga 30 declares the Vulkan memory model for every module with cooperative matrices, yet emits its workgroup
//! accesses as private and its barriers without availability and visibility operations (wgpu issue 8805): under
//! that model a value one invocation stores to workgroup memory need not reach another across `workgroupBarrier()`,
//! and a staged kernel gave wrong products on an H200. Under the GLSL450 model workgroup memory is coherent and the
//! same barrier orders it, and SPV_KHR_cooperative_matrix does not need the Vulkan model. So these families are
//! compiled here (wgpu hands SPIR-V to the driver as it is, `PASSTHROUGH_SHADERS`) with the memory model rewritten:
//! the OpMemoryModel operand, the VulkanMemoryModel capability and its extension.

use vkml_core::util::error::{Error, Result};

const MAGIC: u32 = 0x0723_0203;
const HEADER: usize = 5;
const OP_EXTENSION: u32 = 10;
const OP_MEMORY_MODEL: u32 = 14;
const OP_CAPABILITY: u32 = 17;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const CAPABILITY_VULKAN_MEMORY_MODEL: u32 = 5345;
const MODEL_GLSL450: u32 = 1;
const MODEL_VULKAN: u32 = 3;
const EXTENSION: &str = "SPV_KHR_vulkan_memory_model";
/// Memory-access bits that only the Vulkan model defines (MakePointerAvailable, MakePointerVisible,
/// NonPrivatePointer): a module that carries them relies on that model and is refused rather than rewritten.
const VULKAN_ACCESS: u32 = 0x8 | 0x10 | 0x20;

/// The SPIR-V of a WGSL module for entry point `main` with its `override` constants set to `constants`, as wgpu would
/// write it for a Vulkan 1.3 device, but under the GLSL450 memory model; and main's workgroup size. It may use f16,
/// cooperative matrices and subgroups, which the backend runs only where the device was opened with them.
/// `bindings` are the binding numbers of group 0's layout in increasing order: wgpu's Vulkan backend numbers a
/// layout's descriptors 0, 1, 2, … in that order and has naga remap the module's bindings to match, which a
/// passed-through module must do itself (binding 9 of a layout [0, 1, 2, 9] is descriptor 3).
pub fn compile(src: &str, constants: &[(&str, f64)], bindings: &[u32]) -> Result<(Vec<u32>, [u32; 3])> {
    use naga::valid::Capabilities as C;
    let fail = |what: &str, e: String| Error::Backend(format!("compiling a passed-through kernel: {what}: {e}"));
    let module = naga::front::wgsl::parse_str(src).map_err(|e| fail("parse", e.emit_to_string(src)))?;
    let caps = C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32 | C::COOPERATIVE_MATRIX | C::SUBGROUP;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| fail("validate", e.emit_to_string(src)))?;
    let mut values = naga::back::PipelineConstants::default();
    for &(name, v) in constants {
        values.insert(name.to_string(), v);
    }
    let entry = Some((naga::ShaderStage::Compute, "main"));
    let (module, info) = naga::back::pipeline_constants::process_overrides(&module, &info, entry, &values)
        .map_err(|e| fail("constants", e.to_string()))?;
    let binding_map = bindings
        .iter()
        .zip(0..)
        .map(|(&binding, slot)| {
            let target = naga::back::spv::BindingInfo { descriptor_set: 0, binding: slot, binding_array_size: None };
            (naga::ResourceBinding { group: 0, binding }, target)
        })
        .collect();
    // naga's bounds checks stay off (its default), as in the harness the kernel was measured in: a passed-through
    // kernel keeps every index inside its buffers and arrays by construction (matmul_coop_staged.wgsl says how).
    let options = naga::back::spv::Options {
        lang_version: (1, 6),
        binding_map,
        fake_missing_bindings: false,
        flags: naga::back::spv::WriterFlags::empty(),
        zero_initialize_workgroup_memory: naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None,
        ..Default::default()
    };
    let pipeline =
        naga::back::spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: "main".into() };
    let words = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
        .map_err(|e| fail("write SPIR-V", e.to_string()))?;
    let size = module.entry_points.iter().find(|e| e.name == "main").map(|e| e.workgroup_size);
    Ok((glsl450(&words)?, size.ok_or_else(|| fail("entry point", "no `main`".into()))?))
}

/// `words` with the Vulkan memory model replaced by GLSL450, or an error where the module is not SPIR-V or uses
/// what only the Vulkan model defines.
pub fn glsl450(words: &[u32]) -> Result<Vec<u32>> {
    let bad = |why: &str| Error::Backend(format!("SPIR-V memory model rewrite: {why}"));
    if words.len() < HEADER || words[0] != MAGIC {
        return Err(bad("not a SPIR-V module"));
    }
    let mut out = words[..HEADER].to_vec();
    let mut at = HEADER;
    let mut model = false;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let Some(inst) = words.get(at..at + count).filter(|_| count > 0) else {
            return Err(bad("an instruction runs past the end of the module"));
        };
        at += count;
        let access = match op {
            OP_LOAD => inst.get(4),
            OP_STORE => inst.get(3),
            _ => None,
        };
        if access.is_some_and(|m| m & VULKAN_ACCESS != 0) {
            return Err(bad("a memory access uses availability, visibility or non-private operands"));
        }
        match op {
            OP_CAPABILITY if inst.get(1) == Some(&CAPABILITY_VULKAN_MEMORY_MODEL) => continue,
            OP_EXTENSION if literal(&inst[1..]) == EXTENSION => continue,
            OP_MEMORY_MODEL => {
                if inst.get(2) != Some(&MODEL_VULKAN) && inst.get(2) != Some(&MODEL_GLSL450) {
                    return Err(bad("the module declares neither the Vulkan nor the GLSL450 memory model"));
                }
                model = true;
                out.extend_from_slice(&[inst[0], inst[1], MODEL_GLSL450]);
                continue;
            }
            _ => {}
        }
        out.extend_from_slice(inst);
    }
    if !model {
        return Err(bad("the module declares no memory model"));
    }
    Ok(out)
}

/// A SPIR-V literal string: bytes packed little-endian into words, up to the first nul.
fn literal(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.resize((bytes.len() / 4 + 1) * 4, 0);
        bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | op];
        v.extend_from_slice(operands);
        v
    }

    fn module(model: u32, access: u32) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0600, 0, 100, 0];
        w.extend(inst(OP_CAPABILITY, &[1]));
        w.extend(inst(OP_CAPABILITY, &[CAPABILITY_VULKAN_MEMORY_MODEL]));
        w.extend(inst(OP_EXTENSION, &string(EXTENSION)));
        w.extend(inst(OP_EXTENSION, &string("SPV_KHR_cooperative_matrix")));
        w.extend(inst(OP_MEMORY_MODEL, &[0, model]));
        w.extend(inst(OP_LOAD, &[7, 8, 9, access]));
        w
    }

    #[test]
    fn the_vulkan_model_becomes_glsl450_and_nothing_else_changes() {
        let mut want = vec![MAGIC, 0x0001_0600, 0, 100, 0];
        want.extend(inst(OP_CAPABILITY, &[1]));
        want.extend(inst(OP_EXTENSION, &string("SPV_KHR_cooperative_matrix")));
        want.extend(inst(OP_MEMORY_MODEL, &[0, MODEL_GLSL450]));
        want.extend(inst(OP_LOAD, &[7, 8, 9, 2]));
        assert_eq!(glsl450(&module(MODEL_VULKAN, 2)).ok(), Some(want));
    }

    #[test]
    fn modules_relying_on_the_vulkan_model_or_malformed_are_refused() {
        assert!(glsl450(&module(MODEL_VULKAN, 0x20)).is_err());
        assert!(glsl450(&module(2, 0)).is_err());
        let mut cut = module(MODEL_VULKAN, 0);
        cut.pop();
        assert!(glsl450(&cut).is_err());
        assert!(glsl450(&[0, 1, 2, 3, 4]).is_err());
    }

    const OP_DECORATE: u32 = 71;
    const DECORATION_BINDING: u32 = 33;

    #[test]
    fn the_staged_family_compiles_under_glsl450_for_each_layout() {
        let src = crate::pipeline::source("matmul_coop_staged");
        for layout in 0..4 {
            let compiled = compile(&src, &[("LAYOUT", f64::from(layout))], &[0, 1, 2, 9]);
            let (words, size) = compiled.unwrap_or_else(|e| panic!("layout {layout}: {e}"));
            assert_eq!(size, [128, 1, 1]);
            let declared = words.windows(3).any(|w| w == [(3 << 16) | OP_MEMORY_MODEL, 0, MODEL_GLSL450]);
            let vulkan = words.windows(2).any(|w| w == [(2 << 16) | OP_CAPABILITY, CAPABILITY_VULKAN_MEMORY_MODEL]);
            assert!(declared && !vulkan, "layout {layout}");
            // OpDecorate %out Binding 3: the output's binding 9 is the layout's fourth descriptor.
            let binding = |n: u32| {
                words.windows(4).any(|w| w[0] == (4 << 16) | OP_DECORATE && w[2] == DECORATION_BINDING && w[3] == n)
            };
            assert!(binding(3) && !binding(9), "layout {layout}: binding 9 is not descriptor 3");
        }
        // Without its constant the module cannot be written.
        assert!(compile(&src, &[], &[0, 1, 2, 9]).is_err());
    }
}
