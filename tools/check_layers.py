#!/usr/bin/env python3
"""Checks the layer direction that Cargo cannot: module order inside vkml-core and what the backend crates may name.

Layers, lowest first: util 0, base 1 (dtype/shape/view), graph 2, backend 3, the backend crates 4, dispatch 5, plan 6
(schedule and run), tensor 7, api 8 (the ops by family), io 9, nn 9, autograd 9. A file in core/src/M may name another
top-level module N only when N's layer is lower than M's; same-layer siblings (io, nn, autograd) may not name each
other. Every form counts: `use crate::…` trees, fully qualified
`crate::N::x` paths, `$crate::N` in macros, `super::` chains that climb out of M, names re-exported at the crate root
(`pub use N::{A, B}`, `pub use N::*`) and `#[macro_export]` macros. The backend crates may name vkml_core's util, base,
graph and backend only, and never each other. core/ may not name wgpu, naga, pyo3, numpy or the wasm crates. No two
files of vkml-core may import each other, directly or in a circle, by `crate::`, `self::`, `super::` or child paths.
Comments and string literals are ignored.

Usage: tools/check_layers.py [--root DIR] [--self-test]
"""

from __future__ import annotations

import bisect
import re
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from planted import arguments, check_plants, plant, report, write_files

# The layer table; a new top-level module of vkml-core must be given a layer here before it can be used.
LAYERS = {
    "util": 0,
    "base": 1,
    "graph": 2,
    "backend": 3,
    "dispatch": 5,
    "plan": 6,
    "tensor": 7,
    "api": 8,
    "io": 9,
    "nn": 9,
    "autograd": 9,
}
BACKEND_LAYER = 4
BACKEND_MAX_CORE_LAYER = 3
BACKEND_CRATES = {"backend-cpu": "vkml_backend_cpu", "backend-vulkan": "vkml_backend_vulkan"}
FORBIDDEN_IN_CORE = {"wgpu", "naga", "pyo3", "numpy", "wasm_bindgen", "js_sys", "web_sys"}
EXTERN = "<extern>"
ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod"}
QUALIFIERS = {"unsafe", "async", "const", "extern", "default"}

# --- Lexing: blank out comments and literals, keep line numbers --------------------------------------------------

_WORD = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r"r#[A-Za-z_]\w*|\$?[A-Za-z_]\w*|\d\w*|::|\S")
_IDENT = re.compile(r"\$?[A-Za-z_]\w*")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _string_end(src: str, i: int) -> int:
    """Index just past the string literal whose opening quote is at i."""
    k = i + 1
    while k < len(src):
        if src[k] == "\\":
            k += 2
        elif src[k] == '"':
            return k + 1
        else:
            k += 1
    return len(src)


def _char_end(src: str, i: int) -> int:
    """Index past the char literal at i, or -1 when the quote at i starts a lifetime or label."""
    if src.startswith("\\", i + 1):
        end = src.find("'", i + 3)
        return len(src) if end < 0 else end + 1
    if i + 2 < len(src) and src[i + 2] == "'":
        return i + 3
    return -1


def strip_rust(src: str, keep_strings: bool = False) -> str:
    """Replaces comments (nested block comments too) and, unless keep_strings, literals by blanks; newlines stay."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            end = src.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(_blank(src[i:j]))
            i = j
        elif c.isalpha() or c == "_":
            word = _WORD.match(src, i)
            j = word.end() if word else i + 1
            end = -1
            if src[i:j] in ("r", "br", "cr") and j < n and src[j] in '"#':
                k = j
                while k < n and src[k] == "#":
                    k += 1
                if k < n and src[k] == '"':
                    close = src.find('"' + "#" * (k - j), k + 1)
                    end = n if close < 0 else close + 1 + (k - j)
            elif src[i:j] in ("b", "c") and j < n and src[j] == '"':
                end = _string_end(src, j)
            elif src[i:j] == "b" and j < n and src[j] == "'":
                end = _char_end(src, j)
            if end > 0:
                out.append(src[i:end] if keep_strings else _blank(src[i:end]))
                i = end
            else:
                out.append(src[i:j])
                i = j
        elif c == '"':
            end = _string_end(src, i)
            out.append(src[i:end] if keep_strings else _blank(src[i:end]))
            i = end
        elif c == "'" and _char_end(src, i) > 0:
            end = _char_end(src, i)
            out.append(src[i:end] if keep_strings else _blank(src[i:end]))
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokenize(src: str) -> list[tuple[str, int]]:
    """Rust source to (token, line) pairs with comments and literals gone; `r#name` becomes `name`."""
    code = strip_rust(src)
    newlines = [m.start() for m in re.finditer("\n", code)]
    tokens = []
    for m in _TOKEN.finditer(code):
        text = m.group()
        tokens.append((text[2:] if text.startswith("r#") else text, bisect.bisect_left(newlines, m.start()) + 1))
    return tokens


def is_ident(text: str) -> bool:
    return bool(_IDENT.fullmatch(text))


# --- Paths: use trees and qualified paths --------------------------------------------------------------------------


class Ref(NamedTuple):
    """One path named by a file: its segments with lines, the inline `mod` nesting it sits in, and how it appears."""

    segs: list[tuple[str, int]]
    alias: str | None
    inline: tuple[str, ...]
    in_use: bool
    public: bool
    depth: int


def _parse_use_tree(tokens, i, prefix, paths):
    """Parses one use tree at tokens[i] under prefix, appending (segments, alias) to paths; returns the next index."""
    if i < len(tokens) and tokens[i][0] == "::":
        i += 1
    segs = list(prefix)
    while i < len(tokens):
        text, line = tokens[i]
        if text == "{":
            i += 1
            while i < len(tokens) and tokens[i][0] not in ("}", ";"):
                start = i
                i = _parse_use_tree(tokens, i, segs, paths)
                if i < len(tokens) and tokens[i][0] == ",":
                    i += 1
                elif i == start:
                    i += 1
            return i + 1
        if text == "*":
            paths.append((segs + [("*", line)], None))
            return i + 1
        if not is_ident(text):
            return i
        segs.append((text, line))
        i += 1
        if i < len(tokens) and tokens[i][0] == "::":
            i += 1
            continue
        alias = None
        if i + 1 < len(tokens) and tokens[i][0] == "as":
            alias, i = tokens[i + 1][0], i + 2
        paths.append((segs, alias))
        return i
    return i


def _is_public(tokens, i):
    """Whether the item keyword at tokens[i] carries `pub` or `pub(...)`, looking back over qualifiers."""
    j = i - 1
    while j >= 0 and tokens[j][0] in QUALIFIERS:
        j -= 1
    if j >= 0 and tokens[j][0] == ")":
        while j >= 0 and tokens[j][0] != "(":
            j -= 1
        j -= 1
    return j >= 0 and tokens[j][0] == "pub"


def references(tokens, roots) -> list[Ref]:
    """Every path in every use tree, plus every qualified path whose first segment is in roots."""
    refs: list[Ref] = []
    stack: list[tuple[str, int]] = []
    depth, i = 0, 0
    while i < len(tokens):
        text, line = tokens[i]
        inline = tuple(name for name, _ in stack)
        if text == "use" and (i == 0 or tokens[i - 1][0] != "::"):
            paths: list = []
            j = _parse_use_tree(tokens, i + 1, [], paths)
            while j < len(tokens) and tokens[j][0] != ";":
                j += 1
            refs += [Ref(segs, alias, inline, True, _is_public(tokens, i), depth) for segs, alias in paths]
            i = j + 1
            continue
        if text == "mod" and i + 2 < len(tokens) and is_ident(tokens[i + 1][0]) and tokens[i + 2][0] == "{":
            stack.append((tokens[i + 1][0], depth))
            depth, i = depth + 1, i + 3
            continue
        if text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
            if stack and stack[-1][1] == depth:
                stack.pop()
        elif text in roots and i + 1 < len(tokens) and tokens[i + 1][0] == "::":
            middle = i >= 2 and tokens[i - 1][0] == "::" and (is_ident(tokens[i - 2][0]) or tokens[i - 2][0] == ">")
            if not middle:
                segs, j = [(text, line)], i + 1
                while j + 1 < len(tokens) and tokens[j][0] == "::" and is_ident(tokens[j + 1][0]):
                    segs.append(tokens[j + 1])
                    j += 2
                refs.append(Ref(segs, None, inline, False, False, depth))
                i = j
                continue
        i += 1
    return refs


def top_items(tokens, public_only):
    """Names of the items at brace depth 0 (fn, struct, …, mod, macro_rules!), optionally only the `pub` ones."""
    names, depth = [], 0
    for i, (text, _) in enumerate(tokens):
        if text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
        elif depth == 0 and i + 1 < len(tokens):
            name = tokens[i + 1][0]
            if text in ITEM_KEYWORDS and is_ident(name) and name not in ITEM_KEYWORDS and name != "_":
                if not public_only or _is_public(tokens, i):
                    names.append(name)
            elif text == "macro_rules" and name == "!" and i + 2 < len(tokens) and not public_only:
                names.append(tokens[i + 2][0])
    return names


def cargo_deps(text):
    """(crate name with - as _, line) for each dependency key and `package = "…"` in a Cargo.toml."""
    section, found = "", []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        header = re.fullmatch(r"\[+\s*(.+?)\s*\]+", line)
        if header:
            section = header.group(1)
            named = re.search(r"(?:^|\.)(?:dev-|build-)?dependencies\.([\w-]+)$", section)
            if named:
                found.append((named.group(1).replace("-", "_"), number))
            continue
        if re.search(r"(?:^|\.)(?:dev-|build-)?dependencies$", section):
            key = re.match(r'"?([\w-]+)"?\s*=', line)
            if key:
                found.append((key.group(1).replace("-", "_"), number))
        found += [(pkg.replace("-", "_"), number) for pkg in re.findall(r'package\s*=\s*"([^"]+)"', line)]
    return found


# --- The crate model ---------------------------------------------------------------------------------------------


class Core:
    """What vkml-core's root exposes: its modules, the names re-exported at the root and their origin modules."""

    def __init__(self, src: Path):
        self.src = src
        self._tokens: dict[Path, list] = {}
        self.modules = set(LAYERS)
        for entry in src.iterdir() if src.is_dir() else []:
            if entry.is_dir() and entry.name != "bin":
                self.modules.add(entry.name)
            elif entry.suffix == ".rs" and entry.name not in ("lib.rs", "main.rs"):
                self.modules.add(entry.stem)
        self.explicit: dict[str, str] = {}
        self.globbed: dict[str, set[str]] = {}
        self.macros: dict[str, str] = {}
        self.root_items: set[str] = set()
        lib = src / "lib.rs"
        if lib.is_file():
            self._read_root(self.tokens(lib))
        for path in sorted(src.rglob("*.rs")):
            top = module_path(src, path)
            toks = self.tokens(path)
            for i, (text, _) in enumerate(toks):
                if text == "macro_export":
                    ahead = [t for t, _ in toks[i : i + 40]]
                    if "macro_rules" in ahead:
                        k = ahead.index("macro_rules")
                        if k + 2 < len(ahead):
                            self.macros[ahead[k + 2]] = top[0] if top else EXTERN

    def tokens(self, path: Path):
        if path not in self._tokens:
            self._tokens[path] = tokenize(path.read_text(encoding="utf-8", errors="replace"))
        return self._tokens[path]

    def _read_root(self, toks):
        self.root_items = set(top_items(toks, public_only=False)) - self.modules
        for i, (text, _) in enumerate(toks[:-1]):
            if text == "mod" and is_ident(toks[i + 1][0]):
                self.modules.add(toks[i + 1][0])
                self.root_items.discard(toks[i + 1][0])
        # Private `use` at the root counts too: its names are visible to every descendant as `crate::Name`.
        for ref in references(toks, set()):
            if not ref.in_use or ref.inline or ref.depth:
                continue
            names = [s for s, _ in ref.segs]
            if names[0] in ("crate", "self", "$crate"):
                names = names[1:]
            if not names:
                continue
            origin = names[0] if names[0] in self.modules else EXTERN
            if names[-1] == "*":
                if origin == EXTERN:
                    continue
                for name in self.exported(tuple(names[:-1]), set()):
                    self.globbed.setdefault(name, set()).add(origin)
            elif ref.alias != "_":
                name = ref.alias or (names[-2] if names[-1] == "self" and len(names) > 1 else names[-1])
                self.explicit[name] = origin

    def module_file(self, segs) -> Path | None:
        folder, found = self.src, None
        for seg in segs:
            found = next((p for p in (folder / f"{seg}.rs", folder / seg / "mod.rs") if p.is_file()), None)
            if found is None:
                return None
            folder = folder / seg
        return found

    def deepest_module(self, segs) -> tuple[str, ...]:
        """The longest prefix of segs that is a module with a file of its own (() for the crate root)."""
        for k in range(len(segs), 0, -1):
            if self.module_file(segs[:k]) is not None:
                return tuple(segs[:k])
        return ()

    def exported(self, segs, seen) -> set[str]:
        """Names a glob import of module segs brings in: its pub items and pub uses, following child globs."""
        path = self.module_file(segs)
        if path is None or path in seen:
            return set()
        seen = seen | {path}
        toks = self.tokens(path)
        names = set(top_items(toks, public_only=True))
        for ref in references(toks, set()):
            if not (ref.in_use and ref.public and not ref.inline and not ref.depth):
                continue
            parts = [s for s, _ in ref.segs]
            if parts[-1] == "*":
                head = parts[:-1]
                if head[:1] == ["crate"]:
                    names |= self.exported(tuple(head[1:]), seen)
                elif head[:1] != ["super"]:
                    names |= self.exported(tuple(segs) + tuple(h for h in head if h != "self"), seen)
            elif ref.alias != "_":
                names.add(ref.alias or (parts[-2] if parts[-1] == "self" and len(parts) > 1 else parts[-1]))
        return names

    def root_name(self, name, where):
        """Resolves `where::name` at the crate root: (origin modules, note) or (None, error message)."""
        if name in self.modules:
            return {name}, ""
        if name in self.explicit:
            origin = self.explicit[name]
            return (set(), "") if origin == EXTERN else ({origin}, f" via {where}::{name} (re-exported from {origin})")
        if name in self.globbed:
            origins = self.globbed[name]
            return origins, f" via {where}::{name} (glob re-export of {', '.join(sorted(origins))})"
        if name in self.macros:
            origin = self.macros[name]
            return (set(), "") if origin == EXTERN else ({origin}, f" via {where}::{name}! (exported from {origin})")
        if name == "*":
            return None, f"glob import of {where}'s root brings in every layer; import from the module instead"
        if name in self.root_items:
            return None, f"{where}::{name} is defined in lib.rs, above every layer; move it into a layer module"
        return None, f"cannot resolve {where}::{name} to a module (not a module, root re-export or exported macro)"


def circles(edges: dict) -> list[list[tuple[str, ...]]]:
    """Groups of more than one module that reach each other through imports (a module graph of ~100 files: the
    quadratic reachability is instant)."""

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for w in edges.get(todo.pop(), {}):
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    reach_of = {v: reach(v) for v in edges}
    groups = {frozenset({v} | {w for w in reach_of[v] if v in reach_of.get(w, ())}) for v in edges}
    return sorted(sorted(g) for g in groups if len(g) > 1)


def module_path(src: Path, path: Path) -> tuple[str, ...]:
    """The module path of a file under core/src: lib.rs is (), graph/mod.rs is (graph,), graph/op.rs (graph, op)."""
    parts = path.relative_to(src).parts
    if parts == ("lib.rs",):
        return ()
    if parts[-1] == "mod.rs":
        return parts[:-1]
    return parts[:-1] + (Path(parts[-1]).stem,)


def _layer_name(module):
    return f"{module} (layer {LAYERS[module]})" if module in LAYERS else f"{module} (no layer)"


# --- The checks ----------------------------------------------------------------------------------------------------


def _check_forbidden(toks, rel: str, report):
    """Any file under core/: no path may start with, and no `extern crate` may name, a front-end or GPU crate."""
    named = [ref.segs[0] for ref in references(toks, FORBIDDEN_IN_CORE) if ref.segs[0][0] in FORBIDDEN_IN_CORE]
    named += [tok for i, tok in enumerate(toks) if i >= 2 and [t for t, _ in toks[i - 2 : i]] == ["extern", "crate"]]
    for name, line in named:
        if name in FORBIDDEN_IN_CORE:
            report(rel, line, f"core names the crate `{name}`; keep {name} out of vkml-core")


def _check_core_file(core: Core, path: Path, rel: str, report, edges):
    mod = module_path(core.src, path)
    toks = core.tokens(path)
    if not mod:
        return
    top = mod[0]
    if top not in LAYERS:
        report(rel, 1, f"module {top} is not in the layer table (LAYERS in tools/check_layers.py); give it a layer")
        return
    # The file's own child modules (`mod x;`): a bare `x::…` path names one of them.
    children = {toks[i + 1][0] for i in range(len(toks) - 1) if toks[i][0] == "mod" and is_ident(toks[i + 1][0])}
    for ref in references(toks, {"crate", "$crate", "super", "self"} | children):
        names = [s for s, _ in ref.segs]
        if names[0] in ("crate", "$crate"):
            base, k = (), 1
        elif names[0] in ("super", "self"):
            base, k = mod + ref.inline, 1 if names[0] == "self" else 0
            while k < len(names) and names[k] == "super":
                base, k = base[:-1], k + 1
        elif names[0] in children and not ref.inline:
            base, k = mod, 0
        else:
            continue
        rest = ref.segs[k:]
        line = rest[0][1] if rest else ref.segs[-1][1]
        target_module = core.deepest_module(base + tuple(n for n, _ in rest))
        if target_module and target_module != mod:
            edges.setdefault(mod, {}).setdefault(target_module, (rel, line))
        if base:
            targets, note = {base[0]}, f" via {'::'.join(names)}" if names[0] in ("super", "self") else ""
        elif not rest or rest[0][0] == "self":
            continue
        else:
            targets, note = core.root_name(rest[0][0], "crate")
            if targets is None:
                report(rel, line, f"module {_layer_name(top)}: {note}")
                continue
        for target in sorted(targets):
            if target == top:
                continue
            if target not in LAYERS:
                report(rel, line, f"module {_layer_name(top)} imports {target}, which is not in the layer table{note}")
            elif LAYERS[target] >= LAYERS[top]:
                same = "; same-layer siblings may not import each other" if LAYERS[target] == LAYERS[top] else ""
                report(rel, line, f"module {_layer_name(top)} imports {_layer_name(target)}{note}{same}")


def _check_backend_file(core: Core, path: Path, rel: str, crate: str, aliases: set[str], report):
    toks = core.tokens(path)
    refs = references(toks, aliases)
    for ref in refs:
        if ref.in_use and len(ref.segs) == 1 and ref.segs[0][0] in aliases and ref.alias:
            aliases = aliases | {ref.alias}
    for i in range(len(toks) - 4):
        if [t for t, _ in toks[i : i + 3]] == ["extern", "crate", "vkml_core"] and toks[i + 3][0] == "as":
            aliases = aliases | {toks[i + 4][0]}
    others = {name for folder, name in BACKEND_CRATES.items() if name != crate}
    for text, line in toks:
        if text in others:
            report(rel, line, f"backend crate {crate} names {text}; backends may not depend on each other")
    for ref in references(toks, aliases):
        if ref.segs[0][0] not in aliases or len(ref.segs) < 2:
            continue
        name, line = ref.segs[1]
        targets, note = core.root_name(name, "vkml_core")
        if targets is None:
            report(rel, line, f"backend crate {crate} (layer {BACKEND_LAYER}): {note}")
            continue
        for target in sorted(targets):
            if target not in LAYERS or LAYERS[target] > BACKEND_MAX_CORE_LAYER:
                report(
                    rel,
                    line,
                    f"backend crate {crate} (layer {BACKEND_LAYER}) imports vkml_core::{_layer_name(target)}{note}; "
                    "backends may use only util, base, graph and backend",
                )


def check(root: Path) -> tuple[int, list[str]]:
    """Checks the tree at root; returns (files checked, violations as `path:line: message`)."""
    found: set[tuple[str, int, str]] = set()

    def report(rel, line, message):
        found.add((rel, line, message))

    src = root / "core" / "src"
    core = Core(src)
    files = 0
    # The file-level import graph of vkml-core (module path -> module path -> where first named), for circles.
    edges: dict = {}
    for path in sorted((root / "core").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if "target" in path.relative_to(root).parts or not path.is_file():
            continue
        if path.suffix == ".rs":
            files += 1
            _check_forbidden(core.tokens(path), rel, report)
            if src in path.parents and "bin" not in path.relative_to(src).parts[:1]:
                _check_core_file(core, path, rel, report, edges)
        elif path.name == "Cargo.toml":
            files += 1
            for name, line in cargo_deps(path.read_text(encoding="utf-8")):
                if name in FORBIDDEN_IN_CORE:
                    report(rel, line, f"core depends on `{name}`; keep it out of vkml-core")
    for group in circles(edges):
        first = group[0]
        rel, line = next(where for target, where in sorted(edges[first].items()) if target in group)
        names = " ↔ ".join("::".join(m) for m in group)
        report(rel, line, f"import circle between {names}: move what they share into one of them or below both")
    for folder, crate in BACKEND_CRATES.items():
        base = root / folder
        manifest = base / "Cargo.toml"
        aliases = {"vkml_core"}
        if manifest.is_file():
            files += 1
            text = manifest.read_text(encoding="utf-8")
            for line in text.splitlines():
                renamed = re.match(r'\s*([\w-]+)\s*=\s*\{[^}]*package\s*=\s*"vkml-core"', line)
                if renamed:
                    aliases.add(renamed.group(1).replace("-", "_"))
            for name, line in cargo_deps(text):
                if name in BACKEND_CRATES.values() and name != crate:
                    report(manifest.relative_to(root).as_posix(), line, f"backend crate {crate} depends on {name}")
        paths = sorted((base / "src").rglob("*.rs")) if (base / "src").is_dir() else []
        paths += [base / "build.rs"] if (base / "build.rs").is_file() else []
        for path in paths:
            files += 1
            _check_backend_file(core, path, path.relative_to(root).as_posix(), crate, aliases, report)
    return files, [f"{rel}:{line}: {message}" for rel, line, message in sorted(found)]


# --- Self-test -----------------------------------------------------------------------------------------------------

CLEAN_TREE = {
    "core/Cargo.toml": '[package]\nname = "vkml-core"\n\n[dependencies]\nbytemuck = "1"\nhalf = "2"\n',
    "core/src/lib.rs": """//! Root: declares the layers and re-exports the public names.
pub mod util;
pub mod base;
pub mod graph;
pub mod backend;
pub mod dispatch;
pub mod plan;
pub mod api;
pub mod autograd;
pub mod nn;
pub use api::Tensor;
pub use base::{DType, Shape as Dims};
pub use graph::*;
pub use half::f16;
// pub use wgpu::Device; in a comment does not count
""",
    "core/src/util.rs": """//! Small helpers every layer may use.
pub fn ceil_div(a: usize, b: usize) -> usize { (a + b - 1) / b }
pub fn check(c: bool) -> bool { c }
#[macro_export]
macro_rules! ensure { ($c:expr) => { $crate::util::check($c) }; }
""",
    "core/src/base/mod.rs": """//! dtypes, shapes and views.
pub mod dtype;
pub mod shape;
pub use dtype::DType;
pub use shape::Shape;
/* a /* nested */ comment: crate::api::Tensor */
pub fn quoted<'a>(_x: &'a str) -> &'static str { let _c = '"'; "crate::api::Tensor, wgpu::Device" }
pub fn raw() -> &'static str { let _b = b'\\''; r#"crate::dispatch::x() "# }
""",
    "core/src/base/shape.rs": "//! Shapes.\npub struct Shape(pub Vec<usize>);\n",
    "core/src/base/dtype.rs": """//! The dtype enum.
use super::shape::Shape;
use crate::util::ceil_div;
pub enum DType { F32 }
pub fn width(_s: &Shape) -> usize { ceil_div(4, 1) + crate::ensure!(true) as usize }
""",
    "core/src/graph/mod.rs": """//! The lazy graph.
pub mod node;
pub use node::Node;
use crate::{
    base::{DType, Shape},
    util,
};
pub struct Graph;
pub fn dims(_d: crate::Dims, _t: DType, _s: Shape) -> usize { util::ceil_div(1, 1) }
""",
    "core/src/graph/node.rs": """//! One node of the graph.
pub struct Node<'a> { pub name: &'a str }
#[cfg(test)]
mod tests {
    use super::super::node::Node;
    use super::Node as N;
}
""",
    "core/src/backend/mod.rs": """//! The backend trait.
use crate::graph::Graph;
use crate::Node;
pub trait Backend { fn run(&self, g: &Graph, n: &Node<'_>); }
""",
    "core/src/dispatch/mod.rs": "//! Chooses a backend for each realization.\npub mod queue;\npub fn x() {}\n",
    "core/src/dispatch/queue.rs": """//! The submission queue.
use super::super::backend::Backend;
pub struct Queue;
pub fn q(_b: &dyn Backend) { super::x() }
""",
    "core/src/plan/mod.rs": """//! Plans kernels for a graph.
use crate::backend::Backend;
pub struct Plan;
pub fn p(_b: &dyn Backend, _g: &crate::Graph) {}
""",
    "core/src/api/mod.rs": """//! The Tensor type users see.
use crate::{dispatch::queue::Queue, plan::Plan};
pub struct Tensor;
macro_rules! t { () => { $crate::dispatch::x() }; }
pub fn a(_q: Queue, _p: Plan) { t!() }
""",
    "core/src/autograd/mod.rs": "//! Backward rules.\nuse crate::Tensor;\npub fn b(_t: &Tensor) {}\n",
    "core/src/nn/mod.rs": "//! Network math.\nuse crate::api::a;\npub fn n() {}\n",
    "backend-cpu/Cargo.toml": '[package]\nname = "vkml-backend-cpu"\n[dependencies]\nvkml-core = { path = "." }\n',
    "backend-cpu/src/lib.rs": """//! CPU backend.
use vkml_core::{backend::Backend, graph::{Graph, Node}};
use vkml_core::DType;
pub struct Cpu;
pub fn f(_x: vkml_core::Dims, _y: vkml_core::f16) -> usize { ::vkml_core::util::ceil_div(1, 1) }
// vkml_core::api::Tensor in a comment is fine
""",
    "backend-vulkan/Cargo.toml": (
        '[package]\nname = "vkml-backend-vulkan"\n[dependencies]\nvkml-core = "0"\nwgpu = "3"\n'
    ),
    "backend-vulkan/build.rs": '//! Builds the shaders.\nfn main() { let _ = "vkml_backend_cpu"; }\n',
    "backend-vulkan/src/lib.rs": """//! Vulkan backend.
use vkml_core as core_api;
pub fn f(_g: core_api::graph::Graph) -> wgpu::Device { todo() }
""",
}

# (what is planted, file, text appended to it, a fragment the report must contain)
PLANTED = [
    ("use crate::api in graph", "core/src/graph/node.rs", "use crate::api::Tensor;\n", "graph (layer 2) imports api"),
    ("qualified path in base", "core/src/base/mod.rs", "fn h() { crate::dispatch::x() }\n", "base (layer 1) imp"),
    ("super::super from dispatch", "core/src/dispatch/queue.rs", "use super::super::plan::Plan;\n", "imports plan"),
    ("root re-export used in util", "core/src/util.rs", "fn t(_t: &crate::Tensor) {}\n", "util (layer 0) imports api"),
    ("backend crate names api", "backend-cpu/src/lib.rs", "use vkml_core::api::Tensor;\n", "vkml_core::api (layer 8)"),
    ("core names wgpu", "core/src/backend/mod.rs", "fn dev(_d: wgpu::Device) {}\n", "crate `wgpu`"),
    ("nn imports autograd", "core/src/nn/mod.rs", "use crate::autograd::b;\n", "same-layer siblings"),
    ("multi-line nested use", "core/src/api/mod.rs", "use crate::{\n base::X,\n autograd::{\n b,\n },\n};\n", "grad"),
    ("$crate in a macro", "core/src/graph/mod.rs", "macro_rules! m { () => { $crate::plan::p() }; }\n", "imports plan"),
    ("glob re-export used from base", "core/src/base/dtype.rs", "fn n(_g: crate::Graph) {}\n", "imports graph"),
    ("unresolvable crate::Name", "core/src/util.rs", "fn u() { crate::Nowhere::f() }\n", "cannot resolve crate::Now"),
    ("backend via a root re-export", "backend-cpu/src/lib.rs", "fn t(_t: vkml_core::Tensor) {}\n", "from api"),
    ("backend names the other backend", "backend-vulkan/src/lib.rs", "use vkml_backend_cpu::Cpu;\n", "names vkml"),
    ("backend through a use alias", "backend-vulkan/src/lib.rs", "fn a(_t: core_api::autograd::b) {}\n", "autograd"),
    ("backend build.rs", "backend-vulkan/build.rs", "use vkml_core::dispatch::x;\n", "vkml_core::dispatch"),
    ("backend Cargo.toml", "backend-vulkan/Cargo.toml", 'vkml-backend-cpu = "0"\n', "depends on vkml_backend_cpu"),
    ("core Cargo.toml wgpu", "core/Cargo.toml", 'wgpu = "30"\n', "depends on `wgpu`"),
    ("core build.rs names naga", "core/build.rs", "//! Build.\nextern crate naga;\nfn main() {}\n", "crate `naga`"),
    ("core uses pyo3", "core/src/api/mod.rs", "use pyo3::prelude::*;\n", "crate `pyo3`"),
    ("core uses wasm_bindgen", "core/src/api/mod.rs", "use {std::fmt, wasm_bindgen::JsValue};\n", "wasm_bindgen"),
    ("glob of the crate root", "core/src/graph/mod.rs", "use crate::*;\n", "glob import of crate's root"),
    ("super from mod.rs to a root name", "core/src/backend/mod.rs", "use super::Tensor;\n", "backend (layer 3) imp"),
    ("code after a '\"' char literal", "core/src/base/mod.rs", "fn w() { let _q = '\"'; crate::api::x() }\n", "api"),
    ("code after a raw string", "core/src/base/mod.rs", 'fn v() { r#"a "b" c"#; crate::api::x() }\n', "imports api"),
    ("code after nested comments", "core/src/base/mod.rs", "/* a /* b */ c */ fn y() { crate::api::x() }\n", "api"),
    ("code after lifetimes", "core/src/base/mod.rs", "fn l<'a>(_x: &'a u8) -> &'a u8 { crate::api::x() }\n", "api"),
    ("module outside the table", "core/src/error.rs", "//! Errors.\npub enum Error {}\n", "not in the layer table"),
    ("item defined in lib.rs", "core/src/util.rs", "fn r(_r: crate::Rooted) {}\n", "defined in lib.rs"),
    ("macro exported from api", "core/src/graph/mod.rs", "fn k() { crate::make_tensor!() }\n", "graph (layer 2) imp"),
    ("import circle in a layer", "core/src/base/shape.rs", "use super::dtype::DType;\n", "import circle"),
    ("circle through a bare child path", "core/src/base/dtype.rs", "use super::Shape as S;\n", "base ↔ base::dtype"),
    ("inline mod climbing out", "core/src/backend/mod.rs", "mod t {\n  use super::super::dispatch;\n}\n", "imports d"),
]
# Added to every tree (harmless while unused): an item defined at the root and a macro exported from api.
_EXTRA = {
    "core/src/lib.rs": "pub struct Rooted;\n",
    "core/src/api/mod.rs": "#[macro_export]\nmacro_rules! make_tensor { () => {} }\n",
}


def _write_tree(root: Path, planted=None):
    write_files(root, {rel: text + _EXTRA.get(rel, "") for rel, text in CLEAN_TREE.items()})
    if planted:
        plant(root, planted)


def self_test(real_root: Path) -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="check_layers.") as tmp:
        clean = Path(tmp) / "clean"
        _write_tree(clean)
        files, violations = check(clean)
        if violations:
            failures += 1
            print("self-test FAILED: the clean tree reports violations:", *violations, sep="\n  ")
        else:
            print(f"self-test: clean tree passes ({files} files)")
        failures += check_plants(tmp, PLANTED, _write_tree, check)
    if (real_root / "core" / "src").is_dir():
        files, violations = check(real_root)
        failures += report(f"check_layers (real tree at {real_root})", files, violations, "violations")
    print("check_layers self-test:", "FAILED" if failures else f"ok ({len(PLANTED)} planted violations caught)")
    return 1 if failures else 0


def main(argv=None) -> int:
    args = arguments(__doc__, argv, "violations")
    if args.self_test:
        return self_test(args.root)
    if not (args.root / "core" / "src").is_dir():
        print(f"check_layers: no core/src under {args.root}", file=sys.stderr)
        return 2
    files, violations = check(args.root)
    return report("check_layers", files, violations, "violations")


if __name__ == "__main__":
    sys.exit(main())
