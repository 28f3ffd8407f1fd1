//! Straight-line kernels for fused programs that keep coming back (pipeline.rs compiles them natively): the generic
//! fused kernel's source with its interpreter replaced by the program's steps, each a call with its op fixed.

use std::collections::{HashMap, HashSet};

use vkml_core::graph::op::{BinaryOp, UnaryOp};

/// The WGSL of a kernel running `words` (a program, as `fused` writes it) as straight-line code: the generic kernel's
/// source with its interpreter, `value_f`, replaced. Each step calls a copy of the function the interpreter calls
/// (`unary_f`, `binary_f`) whose switch keeps only the step's op (so the compiler has one case to build, not all),
/// and its result passes through `held`, so that no compiler merges two steps (contracts a product and a sum into one
/// FMA): the bytes stay those of the primitives. Constants are read from the uniform, as the interpreter reads them:
/// a compiler that knew one could fold it (turn a division by 6 into a product by 1/6), and programs that differ
/// only in their constants (Adam's bias corrections change every step) share the kernel. None for words that are no
/// program. `dtypes` are the dtype codes of the output and the three inputs, fixed in the kernel (the loaders and
/// the driver keep one case of their switches on them).
pub fn straight(generic: &str, words: &[u32], dtypes: [u32; 4]) -> Option<String> {
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
            // Bit moves and integer arithmetic: nothing a compiler could contract.
            4 => {
                let (b, a, c) = (stack.pop()?, stack.pop()?, stack.pop()?);
                format!("pick(v{c}, v{a}, v{b})")
            }
            5 => format!("cast_bits({code}u, v{})", stack.pop()?),
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
    // The output's dtype as a constant: the driver's other stores, which it would otherwise build around each inlined
    // copy of value_f, drop out.
    let driver = generic[end..].replace("info.out_dtype", &format!("{}u", dtypes[0]));
    let mut src = format!("{}{body}{}{driver}", &generic[..start], copies.join("\n"));
    for (k, code) in dtypes[1..].iter().enumerate() {
        src = src.replace(&format!("info.in_dtype[{k}u]"), &format!("{code}u"));
    }
    Some(reachable(&src))
}

/// `src` without its comments and without the functions `main` never calls: a program calls a few of the generic
/// kernel's hundreds of lines of functions (the special functions, pow, every op's case), and each driver compiles
/// all it is given before it drops the dead ones (a fifth of the time on lavapipe).
fn reachable(src: &str) -> String {
    let src: String = src.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
    // Top-level functions: name -> (start, end) in `src`.
    let mut fns: HashMap<&str, (usize, usize)> = HashMap::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let bytes = src.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'f' if depth == 0 && src[i..].starts_with("fn ") && (i == 0 || !ident(char::from(bytes[i - 1]))) => {
                let name = src[i + 3..].split(|c| !ident(c)).next().unwrap_or_default();
                if let Some(len) = block_end(&src[i..]) {
                    fns.insert(name, (i, i + len));
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut keep: HashSet<&str> = HashSet::new();
    let mut todo = vec!["main"];
    while let Some(f) = todo.pop() {
        let Some(&(start, end)) = fns.get(f) else { continue };
        if !keep.insert(f) {
            continue;
        }
        let body = &src[start..end];
        let words = body.split(|c| !ident(c));
        todo.extend(words.filter(|w| fns.contains_key(w) && !keep.contains(w)));
    }
    let mut dead: Vec<(usize, usize)> = fns.iter().filter(|(f, _)| !keep.contains(*f)).map(|(_, &r)| r).collect();
    dead.sort_unstable();
    let mut out = String::with_capacity(src.len());
    let mut from = 0;
    for (start, end) in dead {
        out.push_str(&src[from..start]);
        from = end;
    }
    out.push_str(&src[from..]);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_keep_only_the_functions_main_calls() -> Result<(), String> {
        let generic = crate::pipeline::source("fused");
        // exp(x0 + x1): input 0, input 1, add, exp.
        let words = [0, 1 << 8, 3 | BinaryOp::Add.code() << 8, 2 | UnaryOp::Exp.code() << 8];
        let src = straight(&generic, &words, [0, 0, 1, 0]).ok_or("no program")?;
        let module = naga::front::wgsl::parse_str(&src).map_err(|e| e.to_string())?;
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .map_err(|e| e.to_string())?;
        assert!(!src.contains("fn erf") && !src.contains("fn pow_f") && src.contains("fn exp_r"));
        assert!(!src.contains("info.in_dtype") && !src.contains("info.out_dtype"), "the dtypes are constants");
        assert!(src.len() < generic.len() / 3, "{} of {} bytes", src.len(), generic.len());
        Ok(())
    }
}
