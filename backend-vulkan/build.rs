//! Assembles each WGSL kernel family from `shaders/` (common helpers + input bindings + loaders + helper files it
//! uses + the family + its driver) and validates it with naga, so a broken shader fails the build. The assembled text is what runs.

use std::fs;
use std::path::{Path, PathBuf};

const FAMILIES: [&str; 17] = [
    "create",
    "unary",
    "binary",
    "where",
    "fused",
    "cast",
    "movement",
    "reduce",
    "matmul",
    "matmul_gemv",
    "matmul_small",
    "matmul_splitk",
    "matmul_tiled",
    "matmul_coop",
    "index",
    "sort",
    "scan",
];

fn assemble(dir: &Path, family: &str) -> Result<String, String> {
    let read = |name: &str| fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let body = read(&format!("{family}.wgsl"))?;
    // `// @features NAME ...`: the optional features a family needs, as WGSL enable directives (which must open the
    // module) where WGSL has one.
    let mut src: String = features(&body)
        .filter_map(|f| match f {
            "f16" => Some("enable f16;\n"),
            "cooperative_matrix" => Some("enable wgpu_cooperative_matrix;\n"),
            _ => None,
        })
        .collect();
    src.push_str(&read("common.wgsl")?);
    let inputs: Vec<String> = body
        .lines()
        .find_map(|l| l.strip_prefix("// @inputs "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let template = read("load.wgsl.in")?;
    for (k, name) in inputs.iter().enumerate() {
        src.push_str(&format!("\n@group(0) @binding({}) var<storage, read> {name}: array<u32>;\n", k + 1));
        src.push_str(
            &template.replace("SRC", name).replace("[K]", &format!("[{k}u]")).replace("(K,", &format!("({k}u,")),
        );
    }
    // `// @uses NAME` lines pull in helper files (shaders/NAME.wgsl.in) ahead of the family's own code.
    for name in body.lines().filter_map(|l| l.strip_prefix("// @uses ")) {
        src.push('\n');
        src.push_str(&read(&format!("{}.wgsl.in", name.trim()))?);
    }
    src.push('\n');
    src.push_str(&body);
    // `// @driver NAME` appends the entry point shaders/NAME.wgsl.in (elementwise: converted values; bits: raw bits).
    if let Some(driver) = body.lines().find_map(|l| l.trim().strip_prefix("// @driver ")) {
        src.push('\n');
        src.push_str(&read(&format!("{}.wgsl.in", driver.trim()))?);
    }
    Ok(src)
}

/// The names on a family's `// @features` lines.
fn features(body: &str) -> impl Iterator<Item = &str> {
    body.lines().filter_map(|l| l.strip_prefix("// @features ")).flat_map(str::split_whitespace)
}

/// Validate with no optional capability beyond the features the family declares (only the cooperative-matrix
/// pipeline declares any; the backend runs it only on devices that offer them).
fn validate(family: &str, src: &str) -> Result<(), String> {
    use naga::valid::Capabilities as C;
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let caps = features(src).fold(C::empty(), |c, f| {
        c | match f {
            "f16" => C::SHADER_FLOAT16,
            "cooperative_matrix" => C::COOPERATIVE_MATRIX,
            _ => C::empty(),
        }
    });
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| format!("{family}: {}", e.emit_to_string(src)))?;
    Ok(())
}

fn main() {
    // Read at run time, not baked in with env!: a build script compiled for a copy of this tree elsewhere (sharing
    // the cargo target directory) must still read this tree's shaders.
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../shaders");
    println!("cargo:rerun-if-changed={}", dir.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let mut failures = Vec::new();
    for family in FAMILIES {
        match assemble(&dir, family).and_then(|src| validate(family, &src).map(|_| src)) {
            Ok(src) => {
                if let Err(e) = fs::write(out.join(format!("{family}.wgsl")), src) {
                    failures.push(format!("{family}: {e}"));
                }
            }
            Err(e) => failures.push(format!("shader family '{family}' is invalid:\n{e}")),
        }
    }
    if !failures.is_empty() {
        for f in &failures {
            println!("cargo:warning={}", f.lines().next().unwrap_or_default());
        }
        eprintln!("{}", failures.join("\n\n"));
        std::process::exit(1);
    }
}
