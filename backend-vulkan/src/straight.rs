//! Straight-line kernels for fused programs that keep coming back (pipeline.rs compiles them natively): the generic
//! fused kernel's source with its interpreter replaced by the program's steps, each a call with its op fixed.

use vkml_core::graph::op::{BinaryOp, UnaryOp};

/// The WGSL of a kernel running `words` (a program, as `fused` writes it) as straight-line code: the generic kernel's
/// source with its interpreter, `value_f`, replaced. Each step calls a copy of the function the interpreter calls
/// (`unary_f`, `binary_f`) whose switch keeps only the step's op (so the compiler has one case to build, not all),
/// and its result passes through `held`, so that no compiler merges two steps (contracts a product and a sum into one
/// FMA): the bytes stay those of the primitives. Constants are read from the uniform, as the interpreter reads them:
/// a compiler that knew one could fold it (turn a division by 6 into a product by 1/6), and programs that differ
/// only in their constants (Adam's bias corrections change every step) share the kernel. None for words that are no
/// program. The kernel's output is float32, as every program's.
pub fn straight(generic: &str, words: &[u32]) -> Option<String> {
    let start = generic.find("fn value_f(e: u32) -> f32 {")?;
    let end = start + block_end(&generic[start..])?;
    let mut body = String::from("fn value_f(e: u32) -> f32 {\n");
    let mut copies: Vec<String> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (kind, code, v) = (words[i] & 0xff, words[i] >> 8, i);
        let name = match kind {
            2 => Some(("unary_f", UnaryOp::ALL.get(code as usize)?.name())),
            3 => Some(("binary_f", BinaryOp::ALL.get(code as usize)?.name())),
            _ => None,
        };
        if let Some((family, op)) = name {
            let copy = specialised(generic, family, code, &format!("OP_{}", op.to_uppercase()))?;
            if !copies.contains(&copy) {
                copies.push(copy);
            }
        }
        let value = match kind {
            0 => format!("{}_fbits(e)", ["a", "b", "c"].get(code as usize)?),
            1 => {
                i += 1;
                format!("word({i}u)")
            }
            2 => format!("held(unary_f_{code}(v{}))", stack.pop()?),
            3 => {
                let (y, x) = (stack.pop()?, stack.pop()?);
                format!("held(binary_f_{code}(v{x}, v{y}))")
            }
            _ => return None,
        };
        body.push_str(&format!("    let v{v} = {value};\n"));
        stack.push(v);
        i += 1;
    }
    let [top] = stack.as_slice() else { return None };
    if i != words.len() {
        return None;
    }
    body.push_str(&format!("    return bitcast<f32>(v{top});\n}}\n"));
    // Programs write float32 (dtype code 0): the driver's other stores, which it would otherwise build around each
    // inlined copy of value_f, drop out.
    let driver = generic[end..].replace("info.out_dtype", "0u");
    Some(format!("{}{body}{}{driver}", &generic[..start], copies.join("\n")))
}

/// Function `family` of `src` (`fn unary_f(op: u32, …`) for one op: named `<family>_<code>`, with `op` that code, and
/// its `switch op` cut down to the case whose labels name `label` (else the default case).
fn specialised(src: &str, family: &str, code: u32, label: &str) -> Option<String> {
    let start = src.find(&format!("fn {family}(op: u32, "))?;
    let f: String = src[start..start + block_end(&src[start..])?]
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let switch = f.find("switch op {")?;
    let open = switch + "switch op ".len();
    let close = open + block_end(&f[open..])?;
    let (mut chosen, mut fallback) = (None, None);
    let mut rest = &f[open + 1..close - 1];
    while let Some(at) = rest.find("case ") {
        let case = &rest[at + "case ".len()..];
        let labels: Vec<&str> = case[..case.find(':')?].split(',').map(str::trim).collect();
        let open = case.find('{')?;
        let block = &case[open..open + block_end(&case[open..])?];
        if labels.contains(&label) {
            chosen = Some(block);
        }
        if labels.contains(&"default") {
            fallback = Some(block);
        }
        rest = &case[open + block.len()..];
    }
    let head = f[..switch].replacen(&format!("fn {family}(op: u32, "), &format!("fn {family}_{code}("), 1);
    let brace = head.find('{')? + 1;
    Some(format!("{}\n    let op = {code}u;{}{}{}", &head[..brace], &head[brace..], chosen.or(fallback)?, &f[close..]))
}

/// The length of `s` up to and including the `}` that closes its first `{`.
fn block_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, ch) in s.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}
