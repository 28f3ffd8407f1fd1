//! Assembles each WGSL kernel family from `shaders/` (common helpers + the op-code constants of vkml_ops + input
//! bindings + loaders + helper files it uses + the family + its driver) and validates it with naga, so a broken shader fails the build. The assembled text is what runs.

use std::fs;
use std::path::{Path, PathBuf};

/// A unary row's name (the callback `vkml_ops::unary_ops!` calls with every row).
macro_rules! unary_names {
    ($($v:ident $name:ident : $rule:ident, $domain:ident; fwd $tol:expr; grad $grad:expr;)*) => {
        &[$(stringify!($name)),*]
    };
}

/// The unary primitives in op-code order (`UnaryOp::code` is the position).
const UNARY: &[&str] = vkml_ops::unary_ops!(unary_names);

/// A binary row's name.
macro_rules! binary_names {
    ($($(#[$doc:meta])* $v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        &[$(stringify!($name)),*]
    };
}

/// The binary primitives in op-code order (`BinaryOp::code` is the position).
const BINARY: &[&str] = vkml_ops::binary_ops!(binary_names);

/// A reduction's or scan's name.
macro_rules! reduce_names {
    ($($v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        &[$(stringify!($name)),*]
    };
}

/// The reductions and the scans in op-code order.
const REDUCE: &[&str] = vkml_ops::reduce_ops!(reduce_names);
const SCAN: &[&str] = vkml_ops::scan_ops!(reduce_names);

/// The WGSL constants every family sees: `OP_<NAME>` for each op code.
fn op_constants() -> String {
    let mut s = String::from("// Op codes, written by backend-vulkan/build.rs from the rows of vkml_ops.\n");
    for family in [UNARY, BINARY, REDUCE, SCAN] {
        for (code, name) in family.iter().enumerate() {
            s.push_str(&format!("const OP_{}: u32 = {code}u;\n", name.to_uppercase()));
        }
    }
    s
}

/// Every op of a family must be named by its constant in the family's code (its file and the parts it uses): in a
/// `case` where the family switches on op codes (WGSL's `switch` needs a `default`, so the compiler cannot see a
/// missing op), anywhere outside comments where it branches with comparisons (reduce, scan). A new row without its
/// WGSL fails the build here.
fn check_cases(family: &str, body: &str) -> Result<(), String> {
    let (ops, in_case) = match family {
        "unary" => (UNARY, true),
        "binary" => (BINARY, true),
        "reduce" => (REDUCE, false),
        "scan" => (SCAN, false),
        _ => return Ok(()),
    };
    let present = named(body, ops, in_case);
    let missing: Vec<String> =
        ops.iter().filter(|n| !present.contains(n)).map(|n| format!("OP_{}", n.to_uppercase())).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        let place = if in_case { "a `case`" } else { "code" };
        Err(format!("shaders/{family}.wgsl has no {place} for {}", missing.join(", ")))
    }
}

/// The ops of `ops` whose `OP_<NAME>` constant the code names outside comments (only in `case` lines if `in_case`).
fn named(body: &str, ops: &'static [&'static str], in_case: bool) -> Vec<&'static str> {
    let words: Vec<&str> = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .filter(|l| !in_case || l.trim_start().starts_with("case "))
        .flat_map(|l| l.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')))
        .collect();
    ops.iter().copied().filter(|n| words.contains(&format!("OP_{}", n.to_uppercase()).as_str())).collect()
}

/// The kernel families: every `shaders/<family>.wgsl` but `common.wgsl`, which opens them all (the `.wgsl.in` files
/// are parts they include).
fn families(dir: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".wgsl").map(str::to_string))
        .filter(|name| name != "common")
        .collect();
    names.sort();
    Ok(names)
}

fn assemble(dir: &Path, family: &str, constants: &str) -> Result<String, String> {
    let read = |name: &str| fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let body = read(&format!("{family}.wgsl"))?;
    // `// @uses NAME` lines pull in helper files (shaders/NAME.wgsl.in) ahead of the family's own code.
    let mut parts = String::new();
    for name in body.lines().filter_map(|l| l.strip_prefix("// @uses ")) {
        parts.push('\n');
        parts.push_str(&read(&format!("{}.wgsl.in", name.trim()))?);
    }
    check_cases(family, &format!("{parts}\n{body}"))?;
    // `// @features NAME ...`: the optional features a family needs, as WGSL enable directives (which must open the
    // module) where WGSL has one and naga takes it (naga 30 rejects `enable subgroups;` and takes subgroup builtins
    // without it).
    let mut src: String = features(&body)
        .filter_map(|f| match f {
            "f16" => Some("enable f16;\n"),
            "cooperative_matrix" => Some("enable wgpu_cooperative_matrix;\n"),
            _ => None,
        })
        .collect();
    src.push_str(&read("common.wgsl")?);
    src.push('\n');
    src.push_str(constants);
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
    src.push_str(&parts);
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
/// pipeline declares any; the backend runs it only on devices that offer them), and list the bindings its `main`
/// uses: (binding, 'u' uniform, 'r' read-only storage or 'w' writable storage), in binding order. The backend builds
/// each family's bind group layout from this list (its uniform at a dynamic offset), where wgpu would derive one
/// without dynamic offsets.
fn validate(family: &str, src: &str) -> Result<Vec<(u32, char)>, String> {
    use naga::valid::Capabilities as C;
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let caps = features(src).fold(C::empty(), |c, f| {
        c | match f {
            // `unpack2x16float` counts as f16 in f32 for naga; every Vulkan device and browser has it (core WGSL).
            "f16" => C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32,
            "cooperative_matrix" => C::COOPERATIVE_MATRIX,
            "subgroups" => C::SUBGROUP,
            _ => C::empty(),
        }
    });
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| format!("{family}: {}", e.emit_to_string(src)))?;
    let main = module.entry_points.iter().position(|e| e.name == "main");
    let used = info.get_entry_point(main.ok_or_else(|| format!("{family}: no entry point named main"))?);
    let mut bindings = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(at) = &var.binding else { continue };
        if used[handle].is_empty() {
            continue;
        }
        if at.group != 0 {
            return Err(format!("{family}: binding {} is in group {}; kernels use group 0 only", at.binding, at.group));
        }
        let kind = match var.space {
            naga::AddressSpace::Uniform => 'u',
            naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => 'w',
            naga::AddressSpace::Storage { .. } => 'r',
            _ => return Err(format!("{family}: binding {} is neither a uniform nor a storage buffer", at.binding)),
        };
        bindings.push((at.binding, kind));
    }
    bindings.sort_unstable();
    Ok(bindings)
}

fn main() {
    // Read at run time, not baked in with env!: a build script compiled for a copy of this tree elsewhere (sharing
    // the cargo target directory, or unpacked from a source distribution) must still read that copy's shaders.
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../shaders");
    println!("cargo:rerun-if-changed={}", dir.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let mut failures = Vec::new();
    let constants = op_constants();
    let mut bindings = Vec::new();
    let families = families(&dir).unwrap_or_else(|e| {
        failures.push(e);
        Vec::new()
    });
    for family in &families {
        match assemble(&dir, family, &constants).and_then(|src| validate(family, &src).map(|b| (src, b))) {
            Ok((src, b)) => {
                if let Err(e) = fs::write(out.join(format!("{family}.wgsl")), src) {
                    failures.push(format!("{family}: {e}"));
                }
                bindings.push(b);
            }
            Err(e) => failures.push(format!("shader family '{family}' is invalid:\n{e}")),
        }
    }
    // The list pipeline.rs includes, so the families are named once (by their files).
    let list: String = families
        .iter()
        .zip(&bindings)
        .map(|(f, b)| format!("    (\"{f}\", include_str!(concat!(env!(\"OUT_DIR\"), \"/{f}.wgsl\")), &{b:?}),\n"))
        .collect();
    let mut rs = format!(
        "/// Every kernel family, its WGSL and the bindings its `main` uses.\npub const FAMILIES: &[(&str, &str, crate::binding::Bindings)] = &[\n{list}];\n"
    );
    // The ops each flat family has a `case` for, so binary.rs and unary.rs send it those and no others.
    for (family, ops, list) in [("binary_flat", BINARY, "BINARY_FLAT_OPS"), ("unary_flat", UNARY, "UNARY_FLAT_OPS")] {
        match fs::read_to_string(dir.join(format!("{family}.wgsl"))) {
            Ok(body) => rs.push_str(&format!(
                "/// The ops shaders/{family}.wgsl computes.\npub const {list}: &[&str] = &{:?};\n",
                named(&body, ops, true)
            )),
            Err(e) => failures.push(format!("{family}.wgsl: {e}")),
        }
    }
    for (name, text) in [("families.rs", rs.as_str()), ("ops.wgsl.in", constants.as_str())] {
        if let Err(e) = fs::write(out.join(name), text) {
            failures.push(format!("{name}: {e}"));
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
