#!/usr/bin/env python3
"""Repository hygiene checks that the compilers and linters do not make: header lines, file size, leftover macros.

Every source file the repository holds (tracked, or untracked and not ignored) must start with a line saying what it is
for: Rust `//!`, WGSL `//`, Python a module docstring or a `#` comment, shell a `#!` line followed within three lines by
a `#` comment, JavaScript/TypeScript a `//` or `/* */` comment. Rust, WGSL and Python files stay within 800 lines. Rust
has no `todo!`, `unimplemented!` or `dbg!`, and `#[ignore]` always carries a reason (`#[ignore = "why"]`). Python tests
give pytest's skip, skipif and xfail marks a `reason=`.

Usage: tools/tidy.py [--root DIR] [--self-test]
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from check_layers import strip_rust
from planted import arguments, check_plants, plant, report, write_files

SOURCE_SUFFIXES = {".rs", ".wgsl", ".py", ".sh", ".js", ".ts", ".mjs"}
LINE_LIMITED = {".rs", ".wgsl", ".py"}
MAX_LINES = 800
SKIPPED_DIRS = {".git", "target", "node_modules", "__pycache__"}
FORBIDDEN_MACROS = re.compile(r"\b(todo|unimplemented|dbg)\s*!\s*[(\[{]")
IGNORE_ATTR = re.compile(r"#\s*\[\s*ignore\b")
CFG_ATTR = re.compile(r"#\s*\[\s*cfg_attr\s*\(")
PYTEST_MARKS = {"skip", "skipif", "xfail"}


def source_files(root: Path) -> list[Path]:
    """Tracked files plus untracked ones git does not ignore; every file under root when root is not a git work tree."""
    try:
        listed = set()
        for extra in ([], ["--others", "--exclude-standard"]):
            out = subprocess.run(
                ["git", "ls-files", "-z", *extra], cwd=root, check=True, capture_output=True, text=True
            ).stdout
            listed |= {name for name in out.split("\0") if name}
        paths = [root / name for name in sorted(listed)]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            paths += [Path(folder) / name for name in sorted(names)]
    return [p for p in paths if p.suffix in SOURCE_SUFFIXES and p.is_file() and not p.is_symlink()]


def _has_text(line: str, prefix: str) -> bool:
    return line.startswith(prefix) and bool(line[len(prefix) :].strip())


def header_problem(path: Path, text: str) -> str | None:
    """Why the file lacks a header line saying what it is for, or None."""
    lines = text.splitlines() or [""]
    suffix = path.suffix
    if suffix == ".rs":
        return None if _has_text(lines[0], "//!") else "a Rust file starts with a `//!` line saying what it is for"
    if suffix == ".wgsl":
        return None if _has_text(lines[0], "//") else "a WGSL file starts with a `//` line saying what it is for"
    if suffix == ".sh":
        if not lines[0].startswith("#!"):
            return "a shell script starts with a `#!` line"
        if any(_has_text(line, "#") for line in lines[1:4]):
            return None
        return "a shell script has a `#` comment saying what it is for within 3 lines of its `#!` line"
    body = lines[1:] if lines[0].startswith("#!") else lines
    first = body[0] if body else ""
    if suffix == ".py":
        if not text.strip() and path.name == "__init__.py":
            return None
        try:
            if ast.get_docstring(ast.parse(text), clean=False):
                return None
        except SyntaxError:
            return None  # Reported by python_problems.
        if _has_text(first, "#"):
            return None
        return "a Python file starts with a module docstring or a `#` comment saying what it is for"
    if _has_text(first, "//"):
        return None
    if first.startswith("/*"):
        if first.strip("/* \t") or (len(body) > 1 and body[1].strip("/* \t")):
            return None
    return "a JavaScript/TypeScript file starts with a `//` or `/* */` comment saying what it is for"


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def rust_problems(text: str):
    """(line, message) for leftover macros and reasonless `#[ignore]`s, outside comments and string literals."""
    code = strip_rust(text)
    with_strings = strip_rust(text, keep_strings=True)  # The same offsets: stripping replaces one char by one.
    for m in FORBIDDEN_MACROS.finditer(code):
        yield _line_at(code, m.start()), f"`{m.group(1)}!` left in Rust code; finish it, return an Error or remove it"
    for m in IGNORE_ATTR.finditer(code):
        rest = with_strings[m.end() :]
        value = re.match(r"\s*=\s*([^\]]*)\]", rest)
        reason = value.group(1).strip().lstrip("r").strip("#").strip('"').strip() if value else ""
        if not reason:
            yield _line_at(code, m.start()), '`#[ignore]` needs a reason: `#[ignore = "why"]`'
    for m in CFG_ATTR.finditer(code):
        close = code.find("]", m.end())
        inside = code[m.end() : close if close >= 0 else len(code)]
        if re.search(r"\bignore\b(?!\s*=)", inside):
            yield _line_at(code, m.start()), '`ignore` in `cfg_attr` needs a reason: `ignore = "why"`'


def _is_mark(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr in PYTEST_MARKS
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    )


def python_problems(text: str):
    """(line, message) for syntax errors and pytest skip/skipif/xfail marks without `reason=`."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        yield error.lineno or 1, f"cannot parse: {error.msg}"
        return
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_mark(node.func):
            called.add(id(node.func))
            if not any(keyword.arg == "reason" for keyword in node.keywords):
                yield node.lineno, f'pytest.mark.{node.func.attr} needs reason="…" (known failures are data)'
    for node in ast.walk(tree):
        if _is_mark(node) and id(node) not in called:
            yield node.lineno, f'pytest.mark.{node.attr} needs reason="…" (known failures are data)'


def check(root: Path) -> tuple[int, list[str]]:
    """Checks every source file under root; returns (files checked, problems as `path:line: message`)."""
    problems: set[tuple[str, int, str]] = set()
    files = source_files(root)
    for path in files:
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            problems.add((rel, 1, "not UTF-8"))
            continue
        why = header_problem(path, text)
        if why:
            problems.add((rel, 1, f"missing header: {why}"))
        count = len(text.splitlines())
        if path.suffix in LINE_LIMITED and count > MAX_LINES:
            problems.add((rel, MAX_LINES + 1, f"{count} lines; the limit is {MAX_LINES}: split it by family or verb"))
        found = rust_problems(text) if path.suffix == ".rs" else python_problems(text) if path.suffix == ".py" else ()
        problems |= {(rel, line, message) for line, message in found}
    return len(files), [f"{rel}:{line}: {message}" for rel, line, message in sorted(problems)]


# --- Self-test -----------------------------------------------------------------------------------------------------

CLEAN_TREE = {
    ".gitignore": "/ignored/\n",
    "ignored/generated.rs": "fn main() { todo!() }\n",
    "notes.txt": "not a source file, so no header\n",
    "core/src/lib.rs": '//! The crate root.\n#[test]\n#[ignore = "slow on lavapipe"]\nfn t() { let _ = "todo!()"; }\n'
    '// dbg!(x) in a comment\n/* unimplemented!() */\n#[cfg_attr(miri, ignore = "no FFI under miri")]\nfn u() {}\n',
    "shaders/unary.wgsl": "// Unary kernels: one switch on the op code.\n@compute @workgroup_size(64) fn main() {}\n",
    "tools/doc.py": '#!/usr/bin/env python3\n# A comment first.\n"""What this tool is for."""\n',
    "tools/comment.py": "# What this helper is for.\nX = 1\n",
    "tests/__init__.py": "",
    "tests/test_ok.py": '"""Tests."""\nimport pytest\n\n\n@pytest.mark.skipif(True, reason="needs a GPU")\n'
    'def test_a():\n    pass\n\n\n@pytest.mark.xfail(reason="known", strict=True)\ndef test_b():\n    pass\n',
    "tools/run.sh": "#!/usr/bin/env bash\n\n# Runs everything.\nset -e\n",
    "npm/build.mjs": "#!/usr/bin/env node\n// Builds the package.\n",
    "npm/index.js": "/* The JS entry point. */\nexport {};\n",
    "npm/index.d.ts": "/**\n * Types for the JS API.\n */\nexport {};\n",
}

# (what is planted, file, text appended to it or the new file's text, a fragment the report must contain)
PLANTED = [
    ("Rust file without //!", "core/src/new.rs", "fn main() {}\n", "core/src/new.rs:1: missing header"),
    ("Rust header without text", "core/src/empty.rs", "//!\nfn main() {}\n", "core/src/empty.rs:1: missing header"),
    ("WGSL without header", "shaders/x.wgsl", "@compute @workgroup_size(1) fn main() {}\n", "x.wgsl:1: missing"),
    ("Python without header", "tools/x.py", "import os\n", "tools/x.py:1: missing header"),
    ("shell comment too late", "tools/x.sh", "#!/bin/sh\necho a\necho b\necho c\n# late\n", "x.sh:1: missing header"),
    ("shell without #!", "tools/y.sh", "# A comment.\necho\n", "tools/y.sh:1: missing header"),
    ("JavaScript without header", "npm/x.js", "export const x = 1;\n", "npm/x.js:1: missing header"),
    ("TypeScript without header", "npm/x.ts", "export const x = 1;\n", "npm/x.ts:1: missing header"),
    ("empty /** */ header", "npm/y.ts", "/**\n */\nexport {};\n", "npm/y.ts:1: missing header"),
    ("module without header", "npm/x.mjs", "#!/usr/bin/env node\nexport {};\n", "npm/x.mjs:1: missing header"),
    ("long Rust file", "core/src/big.rs", "//! Big.\n" + "\n" * MAX_LINES, "big.rs:801: 801 lines"),
    ("long WGSL file", "shaders/big.wgsl", "// Big.\n" + "\n" * MAX_LINES, "big.wgsl:801: 801 lines"),
    ("long Python file", "tools/big.py", '"""Big."""\n' + "\n" * MAX_LINES, "big.py:801: 801 lines"),
    ("todo!", "core/src/lib.rs", "fn f() { todo!() }\n", "lib.rs:9: `todo!`"),
    ("unimplemented!", "core/src/lib.rs", 'fn f() {\n    unimplemented!("later")\n}\n', "lib.rs:10: `unimpl"),
    ("dbg!", "core/src/lib.rs", "fn f(x: u8) -> u8 { std::dbg![x] }\n", "lib.rs:9: `dbg!`"),
    ("bare #[ignore]", "core/src/lib.rs", "#[test]\n#[ignore]\nfn g() {}\n", "lib.rs:10: `#[ignore]` needs"),
    ("#[ignore] with an empty reason", "core/src/lib.rs", '#[test]\n#[ignore = ""]\nfn g() {}\n', "lib.rs:10: `#[ig"),
    ("cfg_attr ignore", "core/src/lib.rs", "#[cfg_attr(miri, ignore)]\nfn g() {}\n", "lib.rs:9: `ignore` in"),
    ("bare skip mark", "tests/test_ok.py", "\n\n@pytest.mark.skip\ndef test_c():\n    pass\n", "py:15: pytest.mark"),
    ("skip without reason=", "tests/test_ok.py", '\n\n@pytest.mark.skip("why")\ndef test_c():\n    pass\n', "skip"),
    ("skipif without reason=", "tests/test_ok.py", "\n\n@pytest.mark.skipif(True)\ndef test_c():\n  pass\n", "skipif"),
    ("xfail in pytest.param", "tests/test_ok.py", "P = [pytest.param(1, marks=pytest.mark.xfail)]\n", "mark.xfail"),
    ("Python syntax error", "tools/comment.py", "def (:\n", "tools/comment.py:3: cannot parse"),
]


def _write_tree(root: Path, planted=None):
    write_files(root, CLEAN_TREE)
    # Track the clean files so both of git's lists are exercised: plants in new files stay untracked.
    git = subprocess.run(["git", "init", "-q"], cwd=root, capture_output=True).returncode == 0
    if git:
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    if planted:
        plant(root, planted)
    return git


def self_test() -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tidy.") as tmp:
        clean = Path(tmp) / "clean"
        git = _write_tree(clean)
        files, problems = check(clean)
        expected = len([r for r in CLEAN_TREE if Path(r).suffix in SOURCE_SUFFIXES]) - git  # The ignored one.
        if problems or files != expected:
            failures += 1
            print(f"self-test FAILED: the clean tree gives {files} files and problems:", *problems, sep="\n  ")
        else:
            print(f"self-test: clean tree passes ({files} files; ignored and non-source files skipped, git={git})")
        failures += check_plants(tmp, PLANTED, _write_tree, check)
    print("tidy self-test:", "FAILED" if failures else f"ok ({len(PLANTED)} planted problems caught)")
    return 1 if failures else 0


def main(argv=None) -> int:
    args = arguments(__doc__, argv, "problems")
    if args.self_test:
        return self_test()
    files, problems = check(args.root.resolve())
    return report("tidy", files, problems, "problems")


if __name__ == "__main__":
    sys.exit(main())
