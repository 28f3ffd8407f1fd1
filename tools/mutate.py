#!/usr/bin/env python3
"""Mutation campaign (issue #3): break each WGSL shader source and each CPU kernel one mutation at a time, run the Rust
tests that exercise that kernel, and report per kernel whether every mutant was killed.

WGSL mutants need no rebuild: the mutated source is assembled into its families the way backend-vulkan/build.rs does
(checked against build.rs's own output first) and handed to the prebuilt test binaries through VKML_SHADER_DIR, which
backend-vulkan/src/pipeline.rs reads when it compiles a pipeline. CPU mutants patch backend-cpu/src in place, rebuild
the test binaries, run them and restore the file (always, even on Ctrl-C). A mutant that naga rejects is "invalid"
(not run); one whose tests fail is "killed", or "timeout" when they hang; a dropped barrier that survives is a "race"
candidate that lavapipe cannot show (confirm it on a real GPU with --export-races).

Usage:
  tools/mutate.py --full [--cap N] [--kernel K ...]   the campaign; writes docs/mutation.md and docs/mutation.json
  tools/mutate.py --full --survivors                 re-run what the report has not seen killed (after new tests)
  tools/mutate.py --sample N [--clean-known]         N shader mutants the last campaign killed: fail if one survives
  tools/mutate.py --list                             mutants per kernel, nothing run
  tools/mutate.py --report                           the report again from docs/mutation.json and the verdicts
  tools/mutate.py --export-races DIR [--kernel K ...]
                                                     barrier-drop mutants (and every capped mutant of kernels K),
                                                     stripped test binaries and run.sh, for a GPU
  tools/mutate.py --import-gpu FILE                  run.sh's verdicts from the GPU into the report

A shader that declares optional features (`// @features`, the cooperative-matrix matmul) runs only on devices that
have them, which lavapipe does not: its mutants are left out of local runs and the sample, and are judged on the GPU
(`--export-races DIR --kernel matmul_coop`, or `matmul_coop_staged`, then `--import-gpu`).
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from mutation_verdicts import EQUIVALENT, FINDINGS, RACES, SURVIVOR_NOTES

ROOT = Path(__file__).resolve().parent.parent
SHADERS = ROOT / "shaders"
REPORT_MD = ROOT / "docs" / "mutation.md"
REPORT_JSON = ROOT / "docs" / "mutation.json"
SEED = 3  # issue #3
DEFAULT_CAP = 40
# A CPU mutant costs a rebuild of the test binaries (~20 s on 2 cores) on top of its tests, so fewer are run.
DEFAULT_CPU_CAP = 10
# The test command's sample (tools/test.sh): about a minute on 2 cores.
SAMPLE = 6
# The families build.rs assembles, listed as build.rs lists them: every shaders/<family>.wgsl but common.wgsl, which
# opens them all (the `.wgsl.in` files are parts).
FAMILIES = sorted(p.name[: -len(".wgsl")] for p in SHADERS.glob("*.wgsl") if p.name != "common.wgsl")
# The part build.rs generates from vkml_ops (the op-code constants), read from its output.
GENERATED = "ops.wgsl.in"

# Test-name filters (substrings, as the Rust test harness takes them) that exercise each shader family. New kill tests
# are named after the family they check (tests/tests/mutation_kill_*.rs), so the prefix finds them.
FAMILY_TESTS = {
    "create": ["create_", "random_bits"],
    "where": ["where_"],
    "fused": ["fused_", "planner_fusion"],
    "cast": ["cast_", "where_cast", "narrowing"],
    "movement": ["movement_", "where_cast_and_copies", "inplace_writes"],
    # the vector kernels (`_flat`) run their parents' tests
    **{f"{f}{s}": [f"{f}_"] for f in ("unary", "binary", "softmax") for s in ("", "_flat")},
    **{f"reduce{s}": ["reduc"] for s in ("", "_flat")},
    **dict.fromkeys((f for f in FAMILIES if f.startswith("matmul")), ["matmul_"]),  # every matmul pipeline
    "index": ["gather_", "scatter_"],
    "sort": ["argsort_"],
    "scan": ["scans_"],
    **dict.fromkeys(("window", "window_tiles"), ["unfold_and_fold", "max_pool_and", "tiling_windows"]),
}
# CPU kernel files and the families whose tests use them as the oracle (lib.rs is plumbing, not a kernel).
CPU_KERNELS = {
    "unary.rs": ["unary"],
    "binary.rs": ["binary", "where"],
    "cast.rs": ["cast"],
    "create.rs": ["create"],
    "matmul.rs": ["matmul"],
    "movement.rs": ["movement"],
    "reduce.rs": ["reduce"],
    "index.rs": ["index"],
    "sort.rs": ["sort"],
    "scan.rs": ["scan"],
    "softmax.rs": ["softmax"],
    "window.rs": ["window"],
    "values.rs": FAMILIES,
}


SWAPS = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "/",
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "&&": "||",
    "||": "&&",
    "&": "|",
    "|": "&",
    "^": "|",
    "<<": ">>",
    ">>": "<<",
}
KIND = {"<": "bound", "<=": "bound", ">": "bound", ">=": "bound", "==": "compare", "!=": "compare"}
KIND |= {"&&": "logic", "||": "logic", "&": "bitwise", "|": "bitwise", "^": "bitwise", "<<": "bitwise"}
KIND |= {">>": "bitwise"}
BINOP = re.compile(r"(?<=\s)(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&|^])(?=\s)")
NUMBER = re.compile(
    r"(?<![\w.])(0x[0-9a-fA-F]+|\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+|\d+)"
    r"(u8|u16|u32|u64|usize|i8|i16|i32|i64|f32|f64|u|i|f)?(?![\w.])"
)
CALL2 = re.compile(r"(?:\w|>)\(([^(),]+), ([^(),]+)(?=[,)])")
INDEX2 = re.compile(r"\[([^\[\]]+)\]\[([^\[\]]+)\]")
NOT = re.compile(r"(?<=[\s(])!(?=[\w(])")
RANGE = re.compile(r"(?<=[\w)\]])\.\.(?=[\w(])")


@dataclass
class Mutant:
    key: str
    kernel: str
    path: str
    line: int
    operator: str
    before: str
    after: str


@dataclass
class Result:
    status: str  # killed, timeout, survived, race, invalid, equivalent
    seconds: float
    detail: str


# ---- assembling shader families (the rules of backend-vulkan/build.rs)


def assemble(read, family: str) -> str:
    """The family's WGSL from source files given by `read(name)`, exactly as build.rs assembles it."""
    body = read(f"{family}.wgsl")
    lines = body.splitlines()
    enables = {"f16": "enable f16;\n", "cooperative_matrix": "enable wgpu_cooperative_matrix;\n"}
    src = "".join(enables.get(f, "") for f in features(body))
    src += read("common.wgsl")
    src += "\n" + read(GENERATED)
    inputs = next((ln[len("// @inputs ") :].split() for ln in lines if ln.startswith("// @inputs ")), [])
    template = read("load.wgsl.in")
    for k, name in enumerate(inputs):
        src += f"\n@group(0) @binding({k + 1}) var<storage, read> {name}: array<u32>;\n"
        src += template.replace("SRC", name).replace("[K]", f"[{k}u]").replace("(K,", f"({k}u,")
    for ln in lines:
        if ln.startswith("// @uses "):
            src += "\n" + read(f"{ln[len('// @uses ') :].strip()}.wgsl.in")
    src += "\n" + body
    driver = next(
        (ln.strip()[len("// @driver ") :].strip() for ln in lines if ln.strip().startswith("// @driver ")), None
    )
    if driver:
        src += "\n" + read(f"{driver}.wgsl.in")
    return src


def features(body: str) -> list[str]:
    """The optional features a family declares on its `// @features` lines."""
    return [f for ln in body.splitlines() if ln.startswith("// @features ") for f in ln.split()[2:]]


def shader_sources() -> dict[str, str]:
    """The shader files, and the part build.rs generated for this tree."""
    files = {p.name: p.read_text() for p in sorted(SHADERS.iterdir()) if p.suffix in (".wgsl", ".in")}
    return {**files, GENERATED: (build_out() / GENERATED).read_text()}


def build_out() -> Path:
    """build.rs's newest output folder for this tree."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "build"
    mine = str(ROOT / "backend-vulkan" / ".." / "shaders")
    outs = [p.parent / "out" for p in target.glob("vkml-backend-vulkan-*/output") if mine in p.read_text()]
    if not outs:
        sys.exit("mutate.py: no build.rs output for this tree; build the tests first")
    # The newest by its files: build.rs rewrites them in place, which leaves the directory's own mtime behind.
    return max(outs, key=lambda p: max((f.stat().st_mtime for f in p.iterdir()), default=0.0))


def families_using(sources: dict[str, str]) -> dict[str, list[str]]:
    """For each shader source file, the families whose assembled text includes it."""
    using: dict[str, list[str]] = {name: [] for name in sources}
    for family in FAMILIES:
        seen: set[str] = set()

        def read(name: str, seen=seen) -> str:
            seen.add(name)
            return sources[name]

        assemble(read, family)
        for name in seen:
            using[name].append(family)
    return using


def check_assembly(sources: dict[str, str]) -> None:
    """Refuse to run when this script's assembly differs from what build.rs wrote for this tree (it would test a
    different shader than the one that ships)."""
    out = build_out()
    for family in FAMILIES:
        if assemble(sources.__getitem__, family) != (out / f"{family}.wgsl").read_text():
            sys.exit(f"mutate.py: assembly of '{family}' differs from build.rs's ({out}); update assemble()")


def naga_ok(path: Path) -> bool | None:
    """naga's verdict on a WGSL file, or None without the naga CLI."""
    if not shutil.which("naga"):
        return None
    return subprocess.run(["naga", str(path)], capture_output=True).returncode == 0


# ---- generating mutants


def code_lines_wgsl(text: str) -> list[int]:
    """Indices of lines inside function bodies and top-level const declarations."""
    keep, depth, in_const = [], 0, False
    for i, raw in enumerate(text.splitlines()):
        line = raw.split("//")[0].strip()
        if depth == 0 and line.startswith("const "):
            in_const = True
        if (depth > 0 or in_const) and line and not line.startswith(("fn ", "@", "var<")):
            keep.append(i)
        if in_const and line.endswith(";"):
            in_const = False
        depth += line.count("{") - line.count("}")
    return keep


def code_lines_rust(text: str) -> list[int]:
    """Indices of lines inside function and macro bodies, leaving out signatures, attributes and string literals."""
    keep, depth, body_from = [], 0, None
    for i, raw in enumerate(text.splitlines()):
        line = raw.split("//")[0].strip()
        starts = re.match(r"(pub(\(crate\))?\s+)?(fn|macro_rules!)\s", line)
        if body_from is None and starts:
            body_from = depth
        elif body_from is not None and line and not line.startswith(("#[", "use ")) and '"' not in line:
            if " fn " not in f" {line}":
                keep.append(i)
        depth += line.count("{") - line.count("}")
        if body_from is not None and depth <= body_from and not starts:
            body_from = None
        elif body_from is not None and starts and depth <= body_from and "{" in line:
            body_from = None
    return keep


def line_mutations(code: str, rust: bool) -> list[tuple[str, str]]:
    """(operator, mutated code) for one line's code (comment removed)."""
    out = []
    if code.strip() in ("workgroupBarrier();", "storageBarrier();"):
        return [("barrier", code.replace(code.strip(), "// " + code.strip() + " (dropped)"))]
    for m in BINOP.finditer(code):
        op = m.group(1)
        if rust and op in "|&" and ("::" in code or "|" in code.replace(" | ", "")):
            continue  # a match pattern or closure, not an operator
        out.append((KIND.get(op, "arith"), code[: m.start()] + SWAPS[op] + code[m.end() :]))
    for m in NOT.finditer(code):
        out.append(("logic", code[: m.start()] + code[m.end() :]))
    for m in NUMBER.finditer(code):
        if re.search(r"array<[^>]*$", code[: m.start()]) or (rust and re.search(r"\w\s*$", code[: m.start()])):
            continue  # an array length, or a Rust tuple field
        out.append(("constant", code[: m.start()] + bump(m.group(1)) + (m.group(2) or "") + code[m.end() :]))
    for m in CALL2.finditer(code):
        a, b = m.group(1), m.group(2)
        if a.strip() != b.strip():
            out.append(("swap", code[: m.start(1)] + b + ", " + a + code[m.end(2) :]))
    for m in INDEX2.finditer(code):
        out.append(("swap", code[: m.start()] + f"[{m.group(2)}][{m.group(1)}]" + code[m.end() :]))
    if rust:
        for m in RANGE.finditer(code):
            out.append(("bound", code[: m.start()] + "..=" + code[m.end() :]))
    return out


def bump(lit: str) -> str:
    """A changed numeric literal of the same form: integers ±1, floats with their leading digit changed."""
    if lit.startswith("0x"):
        v = int(lit, 16)
        return f"0x{v - 1 if v == 16 ** (len(lit) - 2) - 1 else v + 1:0{len(lit) - 2}x}"
    if re.fullmatch(r"\d+", lit):
        return str(int(lit) + 1)
    i = next(k for k, c in enumerate(lit) if c in "123456789") if any(c in "123456789" for c in lit) else None
    if i is None:
        return lit.replace("0", "1", 1)
    d = int(lit[i])
    return lit[:i] + str(d + 1 if d < 9 else d - 1) + lit[i + 1 :]


def mutants_of(path: Path, kernel: str) -> list[Mutant]:
    text = path.read_text()
    rust = path.suffix == ".rs"
    lines = text.splitlines()
    seen: dict[tuple[str, str], int] = {}
    out = []
    for i in code_lines_rust(text) if rust else code_lines_wgsl(text):
        raw = lines[i]
        cut = raw.find("//")
        code, comment = (raw, "") if cut < 0 else (raw[:cut], raw[cut:])
        for op, mutated in line_mutations(code, rust):
            before, after = raw.strip(), (mutated + comment).strip()
            n = seen[(before, after)] = seen.get((before, after), -1) + 1
            key = hashlib.sha1(f"{path.name}\0{before}\0{after}\0{n}".encode()).hexdigest()[:10]
            rel = str(path.relative_to(ROOT))
            out.append(Mutant(key, kernel, rel, i + 1, op, before, mutated + comment))
    return out


def all_mutants() -> list[Mutant]:
    out = []
    for p in sorted(SHADERS.iterdir()):
        if p.suffix in (".wgsl", ".in"):
            out += mutants_of(p, p.name.split(".")[0])
    for name in CPU_KERNELS:
        out += mutants_of(ROOT / "backend-cpu" / "src" / name, "cpu/" + name[:-3])
    return out


def needs_features(m: Mutant) -> bool:
    """Whether the mutant's shader runs only on devices with optional features (not on lavapipe)."""
    return m.path.startswith("shaders/") and bool(features((ROOT / m.path).read_text()))


def capped(mutants: list[Mutant], cap: int, cpu_cap: int) -> list[Mutant]:
    """At most `cap` mutants per kernel, a seeded sample (so reruns pick the same ones), barrier drops always in."""
    by_kernel: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_kernel.setdefault(m.kernel, []).append(m)
    out = []
    for kernel, ms in by_kernel.items():
        limit = cpu_cap if kernel.startswith("cpu/") else cap
        if limit and len(ms) > limit:
            keep = {m.key for m in ms if m.operator == "barrier"}
            rest = [m for m in ms if m.key not in keep]
            keep |= {m.key for m in random.Random(f"{SEED}/{kernel}").sample(rest, max(0, limit - len(keep)))}
            ms = [m for m in ms if m.key in keep]
        out += ms
    return out


# ---- running tests


def cargo_build() -> list[str] | None:
    """Build vkml-tests' test binaries; their paths, or None when the build failed. The same cargo command as
    tools/test.sh's Rust tests step (features unify per command), so the sample there reuses its binaries."""
    cmd = ["cargo", "test", "--workspace", "--exclude", "vkml-py", "--no-run", "--message-format=json", "-q"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return None
    bins = []
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if msg["target"]["src_path"].startswith(str(ROOT / "tests" / "tests")):
            bins.append(msg["executable"])
    return sorted(bins)


def run_bounded(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """Run in its own process group; on timeout or interrupt, end that group (only what this script started)."""
    p = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        return None, p.communicate()[0]
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        raise


def run_tests(bins: list[str], filters: list[str], shader_dir: str | None, timeout: float) -> tuple[str, float, str]:
    env = dict(os.environ)
    env.pop("VKML_SHADER_DIR", None)
    # Every mutant is a shader lavapipe has never compiled; without LLVM's optimisation passes and with 4-wide vectors
    # it compiles 2-3x faster, which dominates a mutant's time (the tests themselves are small).
    env.setdefault("GALLIVM_PERF", "nopt")
    env.setdefault("LP_NATIVE_VECTOR_WIDTH", "128")
    if shader_dir:
        env["VKML_SHADER_DIR"] = shader_dir
    start = time.time()
    for b in bins:
        left = timeout - (time.time() - start)
        rc, out = run_bounded([b, *filters, "--test-threads", "2", "-q"], env, max(left, 1))
        if rc is None:
            return "timeout", time.time() - start, Path(b).name.rsplit("-", 1)[0]
        if rc != 0:
            if "GPU validation error" in out and ("Shader" in out or "parsing" in out):
                return "invalid", time.time() - start, "rejected by wgpu"
            failed = re.findall(r"^---- (\S+) stdout ----", out, re.M)
            return "killed", time.time() - start, failed[0] if failed else out.strip()[-200:]
    return "survived", time.time() - start, ""


def filters_for(families: list[str]) -> list[str]:
    missing = [fam for fam in families if fam not in FAMILY_TESTS]
    if missing:
        sys.exit(f"mutate.py: no test filters for shader families {missing}; add them to FAMILY_TESTS")
    return sorted({f for fam in families for f in FAMILY_TESTS[fam]})


class Campaign:
    def __init__(self, bins: list[str]):
        self.bins = bins
        self.sources = shader_sources()
        self.using = families_using(self.sources)
        self.tmp = Path(tempfile.mkdtemp(prefix="vkml-mutant-"))
        self.baseline: dict[str, float] = {}

    def families(self, m: Mutant) -> list[str]:
        if m.path.startswith("shaders/"):
            return self.using[Path(m.path).name]
        return CPU_KERNELS[Path(m.path).name]

    def write_shaders(self, m: Mutant, into: Path) -> bool | None:
        """The families the mutant touches, assembled with the mutated source, into `into`; naga's verdict."""
        into.mkdir(parents=True, exist_ok=True)
        name = Path(m.path).name
        lines = self.sources[name].split("\n")
        lines[m.line - 1] = lines[m.line - 1][: len(lines[m.line - 1]) - len(lines[m.line - 1].lstrip())] + m.after
        mutated = dict(self.sources, **{name: "\n".join(lines)})
        verdict: bool | None = True
        for family in self.using[name]:
            out = into / f"{family}.wgsl"
            out.write_text(assemble(mutated.__getitem__, family))
            ok = naga_ok(out)
            verdict = None if ok is None else verdict and ok
        return verdict

    def timeout_for(self, filters: list[str]) -> float:
        key = " ".join(filters)
        if key not in self.baseline:
            clean = self.tmp / "clean"
            clean.mkdir(exist_ok=True)
            for family in FAMILIES:
                (clean / f"{family}.wgsl").write_text(assemble(self.sources.__getitem__, family))
            status, secs, detail = run_tests(self.bins, filters, str(clean), 600)
            if status != "survived":
                sys.exit(f"mutate.py: tests {filters} fail on unmutated code ({status}: {detail})")
            self.baseline[key] = secs
        return max(60.0, 6 * self.baseline[key])

    def run_wgsl(self, m: Mutant) -> Result:
        if not self.families(m):
            return Result("equivalent", 0.0, "no shader family includes this file")
        filters = filters_for(self.families(m))
        timeout = self.timeout_for(filters)
        d = self.tmp / m.key
        if self.write_shaders(m, d) is False:
            return Result("invalid", 0.0, "rejected by naga")
        status, secs, detail = run_tests(self.bins, filters, str(d), timeout)
        shutil.rmtree(d, ignore_errors=True)
        return Result(status, secs, detail)

    def run_cpu(self, m: Mutant) -> Result:
        path = ROOT / m.path
        original = path.read_text()
        lines = original.split("\n")
        raw = lines[m.line - 1]
        lines[m.line - 1] = raw[: len(raw) - len(raw.lstrip())] + m.after
        start = time.time()
        try:
            path.write_text("\n".join(lines))
            bins = cargo_build()
            if bins is None:
                return Result("invalid", time.time() - start, "does not compile")
            filters = filters_for(self.families(m))
            status, secs, detail = run_tests(bins, filters, None, self.timeout_for(filters))
            return Result(status, time.time() - start, detail)
        finally:
            path.write_text(original)


# ---- the campaign and its report


def load_report() -> dict:
    return json.loads(REPORT_JSON.read_text()) if REPORT_JSON.exists() else {}


def summarise(mutants: list[Mutant], results: dict[str, dict], generated: dict[str, int]) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for m in mutants:
        r = results.get(m.key)
        if r is None:
            continue
        row = rows.setdefault(m.kernel, {"generated": generated.get(m.kernel, 0), "run": 0})
        row["run"] += 1
        row[r["status"]] = row.get(r["status"], 0) + 1
    for row in rows.values():
        dead = row.get("killed", 0) + row.get("timeout", 0)
        live = dead + row.get("survived", 0) + row.get("race", 0)
        row["kill_rate"] = round(100.0 * dead / live, 1) if live else None
    return rows


def write_report(mutants, results, generated, command, seconds, cap, first) -> None:
    rows = summarise(mutants, results, generated)
    data = {
        "command": command,
        "date": datetime.date.today().isoformat(),
        "seconds": round(seconds),
        "cap": cap,
        "summary": rows,
        "first_summary": first,
        "mutants": [asdict(m) | results[m.key] for m in mutants if m.key in results],
    }
    REPORT_JSON.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    md = [
        "# Mutation campaign (issue #3)",
        "",
        f"Generated by `{command}` on {data['date']}; do not edit by hand. Each mutant is one change to one",
        "line of a shader source or a CPU kernel; the Rust tests that exercise that kernel (FAMILY_TESTS in",
        "tools/mutate.py) compare Vulkan with the CPU oracle under each op's declared tolerance. Shader mutants run",
        "the prebuilt tests with VKML_SHADER_DIR; CPU mutants patch backend-cpu/src, rebuild and restore.",
        "",
        f"At most {cap[0]} mutants per shader kernel and {cap[1]} per CPU kernel are run, a seeded sample (barrier",
        "drops always in); `generated` counts them all. The kill rate counts timeouts as kills and leaves out",
        "`invalid` mutants (rejected by naga, or not compiling) and `equivalent` ones; `first` is the rate before the",
        "tests written to kill the first campaign's survivors (tests/tests/mutation_kill_*.rs). The mutants took",
        f"{seconds / 60:.0f} min in all on a 2-core machine with lavapipe (a CPU mutant's time includes its rebuild).",
        "",
        "Full campaign: `python tools/mutate.py --full`; after adding tests, `--full --survivors` re-runs only what",
        "has not been killed, and `--kernel NAME ...` limits a run to some kernels. The test command runs",
        f"`python tools/mutate.py --sample {SAMPLE}`: {SAMPLE} shader mutants this campaign killed must stay killed.",
        "",
        "| kernel | generated | run | killed | timeout | survived | race | invalid | equivalent | kill rate | first |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    first = data["first_summary"]
    for kernel in sorted(rows):
        r = rows[kernel]
        cells = [r.get(k, 0) for k in ("killed", "timeout", "survived", "race", "invalid", "equivalent")]
        rates = ["—" if x is None else f"{x}%" for x in (r["kill_rate"], first.get(kernel, {}).get("kill_rate"))]
        md.append(f"| {kernel} | {r['generated']} | {r['run']} | " + " | ".join(map(str, cells + rates)) + " |")
    md += ["", "## Findings in unmutated kernels", ""] + [f"- {f}" for f in FINDINGS]
    for status, title, note in [
        ("survived", "Surviving mutants", "No test tells these from the original."),
        ("race", "Race candidates: confirm on a real GPU", "Races lavapipe's scheduling rarely shows; see below."),
        ("equivalent", "Equivalent mutants", "These cannot change any output (reason given)."),
    ]:
        hits = [m for m in mutants if results.get(m.key, {}).get("status") == status]
        md += ["", f"## {title} ({len(hits)})", "", note, ""]
        for m in hits:
            why = results[m.key]["detail"] if status in ("equivalent", "race") else SURVIVOR_NOTES.get(m.key, "")
            md.append(
                f"- `{m.key}` {m.path}:{m.line} ({m.operator}): `{m.before}` → `{m.after.strip()}` {why}".rstrip()
            )
    md += [
        "",
        "## Confirming races on a GPU",
        "",
        "`python tools/mutate.py --export-races out/mutation-gpu` writes the shaders of each barrier drop and race",
        "above, the test binaries that exercise them (stripped) and `run.sh`; on the GPU machine",
        "`bash out/mutation-gpu/run.sh` runs the clean tests once and each mutant's tests 20 times, printing `killed`",
        "or `survived` per mutant.",
        "",
    ]
    REPORT_MD.write_text("\n".join(md))


def campaign(args) -> int:
    """Run the chosen mutants (none with --report, which rewrites the report with the current verdicts)."""
    offline = args.report or args.import_gpu
    bins = [] if offline else cargo_build()
    if bins is None or not (bins or offline):
        sys.exit("mutate.py: the tests do not build")
    if not offline:
        check_assembly(shader_sources())
    everything = all_mutants()
    generated: dict[str, int] = {}
    for m in everything:
        generated[m.kernel] = generated.get(m.kernel, 0) + 1
    chosen = capped(everything, args.cap, args.cpu_cap)
    if args.kernel:
        chosen = [m for m in chosen if any(fnmatch.fnmatch(m.kernel, k) for k in args.kernel)]
    old = load_report()
    results = {m["key"]: {k: m[k] for k in ("status", "seconds", "detail")} for m in old.get("mutants", [])}
    if args.import_gpu:
        # A kill on the GPU counts; a survival there changes nothing that the tests here have killed.
        operators = {m.key: m.operator for m in everything}
        gpu = "on a real GPU (tools/mutate.py --export-races)"
        for line in Path(args.import_gpu).read_text().splitlines():
            hit = re.fullmatch(r"(\w{10}) \S+:\d+ (killed|survived)", line.strip())
            if not hit:
                continue
            key, status = hit[1], hit[2]
            if status == "killed":
                results[key] = asdict(Result("killed", 0.0, gpu))
            elif results.get(key, {}).get("status") in (None, "survived", "race"):
                race = key in RACES or operators.get(key) == "barrier"
                why = RACES.get(key, f"survived {gpu}")
                results[key] = asdict(Result("race" if race else "survived", 0.0, why))
    for key, why in EQUIVALENT.items():
        results[key] = asdict(Result("equivalent", 0.0, why))
    for key, why in RACES.items():
        if results.get(key, {}).get("status") == "survived":
            results[key] |= {"status": "race", "detail": why}
    if offline:
        chosen = []
    elif args.survivors:
        chosen = [m for m in chosen if results.get(m.key, {}).get("status") in (None, "survived", "race")]
    cpu_files = [str(ROOT / "backend-cpu" / "src" / n) for n in CPU_KERNELS]
    if any(not m.path.startswith("shaders/") for m in chosen):
        if subprocess.run(["git", "diff", "--quiet", "--", *cpu_files], cwd=ROOT).returncode != 0:
            sys.exit("mutate.py: backend-cpu/src has uncommitted changes; CPU mutants restore from the file as found")
    skipped = [m for m in chosen if needs_features(m)]
    chosen = [m for m in chosen if not needs_features(m)]
    if skipped:
        print(f"{len(skipped)} mutants of feature-only shaders left to the GPU (--export-races --kernel ...)")
    c = Campaign(bins)
    # Baselines (and so timeouts) from the clean binaries, before any CPU mutant rebuilds them.
    for filters in sorted({tuple(filters_for(c.families(m))) for m in chosen}):
        c.timeout_for(list(filters))
    # Shader mutants first (the prebuilt binaries), then CPU mutants (a rebuild each), then one clean rebuild.
    chosen.sort(key=lambda m: not m.path.startswith("shaders/"))
    try:
        for n, m in enumerate(chosen, 1):
            if m.key in EQUIVALENT:
                r = Result("equivalent", 0.0, EQUIVALENT[m.key])
            elif m.path.startswith("shaders/"):
                r = c.run_wgsl(m)
            else:
                r = c.run_cpu(m)
            if r.status == "survived" and (m.operator == "barrier" or m.key in RACES):
                r.status, r.detail = "race", RACES.get(m.key, "race: confirm on a real GPU")
            results[m.key] = asdict(r)
            print(
                f"[{n}/{len(chosen)}] {r.status:9} {r.seconds:5.1f}s {m.path}:{m.line} {m.operator}: {m.after.strip()}"
            )
            sys.stdout.flush()
    finally:
        if any(not m.path.startswith("shaders/") for m in chosen):
            cargo_build()
            dirty = subprocess.run(["git", "diff", "--quiet", "--", *cpu_files], cwd=ROOT).returncode != 0
            print(
                "backend-cpu/src restored" if not dirty else "WARNING: backend-cpu/src differs from git after the run"
            )
        shutil.rmtree(c.tmp, ignore_errors=True)
    current = capped(everything, args.cap, args.cpu_cap)
    # The campaign's cost is the sum over the report's mutants (runs merged from several invocations included).
    seconds = sum(results[m.key]["seconds"] for m in current if m.key in results)
    command = "python tools/mutate.py --full" + (f" --cap {args.cap}" if args.cap != DEFAULT_CAP else "")
    command += f" --cpu-cap {args.cpu_cap}" if args.cpu_cap != DEFAULT_CPU_CAP else ""
    command = old.get("command", command) if offline else command
    caps = (args.cap, args.cpu_cap)
    first = old.get("first_summary", {})
    if args.first:
        rows = summarise(current, results, generated)
        first = first | {k: rows[k] for k in rows if any(m.kernel == k for m in chosen)}
    write_report(current, results, generated, command, seconds, caps, first)
    rows = summarise(current, results, generated)
    for kernel in sorted(rows):
        rate = rows[kernel]["kill_rate"]
        print(f"{kernel:16} {'—' if rate is None else f'{rate}%'} of {rows[kernel]['run']}")
    return 0


def sample(args) -> int:
    """N shader mutants the committed campaign killed, spread over kernels: a regression check that they stay
    killed (CPU mutants need a rebuild each, too slow for the test command)."""
    bins = cargo_build()
    if not bins:
        sys.exit("mutate.py: the tests do not build")
    check_assembly(shader_sources())
    killed = {m["key"] for m in load_report().get("mutants", []) if m["status"] in ("killed", "timeout")}
    # Races can be killed in one run and survive the next: they stay out of a check that must not be flaky.
    shaders = [
        m for m in all_mutants() if m.path.startswith("shaders/") and m.operator != "barrier" and not needs_features(m)
    ]
    pool = [m for m in shaders if m.key in killed and m.key not in RACES]
    if not pool:
        sys.exit("mutate.py: no killed shader mutants in docs/mutation.json; run --full first")
    rng = random.Random(SEED)
    rng.shuffle(pool)
    kernels = sorted({m.kernel for m in pool})
    picked: list[Mutant] = []
    while len(picked) < min(args.sample, len(pool)):
        for k in kernels:
            extra = [m for m in pool if m.kernel == k and m not in picked][:1]
            picked += extra[: args.sample - len(picked)]
    c = Campaign(bins)
    if args.clean_known:  # the caller has just run these tests clean: no baseline run per mutant (2.5 of 3.6 min)
        c.baseline = {" ".join(filters_for(c.families(m))): 20.0 for m in picked}
    bad = 0
    try:
        for m in picked:
            r = c.run_wgsl(m)
            bad += r.status not in ("killed", "timeout")
            print(f"{r.status:9} {r.seconds:5.1f}s {m.path}:{m.line} {m.operator}: {m.after.strip()}")
    finally:
        shutil.rmtree(c.tmp, ignore_errors=True)
    print(f"{len(picked) - bad} of {len(picked)} mutants killed")
    return 1 if bad else 0


def export_races(args) -> int:
    """Barrier-drop mutants, the test binaries that exercise them and run.sh, for a machine with a real GPU (which
    needs only a Vulkan loader): lavapipe runs a workgroup in lockstep, so a dropped barrier rarely shows there."""
    bins = cargo_build()
    if not bins:
        sys.exit("mutate.py: the tests do not build")
    out = Path(args.export_races).resolve()
    shutil.rmtree(out, ignore_errors=True)
    (out / "bin").mkdir(parents=True)
    c = Campaign(bins)
    everything = all_mutants()
    barriers = [m for m in everything if m.operator == "barrier" or m.key in RACES]
    kernels = args.kernel or []
    barriers += [
        m
        for m in capped(everything, args.cap, args.cpu_cap)
        if m.path.startswith("shaders/") and any(fnmatch.fnmatch(m.kernel, k) for k in kernels) and m not in barriers
    ]
    filters = filters_for(sorted({f for m in barriers for f in c.families(m)}))
    for b in bins:
        listed = subprocess.run([b, *filters, "--list"], capture_output=True, text=True).stdout
        if ": test" in listed:
            subprocess.run(["strip", "-o", str(out / "bin" / Path(b).name.rsplit("-", 1)[0]), b], check=True)
    script = [
        "#!/usr/bin/env bash",
        "# Generated by tools/mutate.py --export-races: each barrier-drop or race mutant's tests, RUNS times (20).",
        'cd "$(dirname "$0")"',
        "runs=${RUNS:-20}",
        'for b in bin/*; do "$b" -q >/dev/null 2>&1 || echo "clean tests fail: $b"; done',
    ]
    for m in barriers:
        c.write_shaders(m, out / m.key)
        f = " ".join(filters_for(c.families(m)))
        script.append(
            f'k=survived; for i in $(seq "$runs"); do for b in bin/*; do VKML_SHADER_DIR={m.key} "$b" {f} -q \\'
        )
        script.append(f'  >/dev/null 2>&1 || k=killed; done; done; echo "{m.key} {m.path}:{m.line} $k"')
    (out / "run.sh").write_text("\n".join(script) + "\n")
    shutil.rmtree(c.tmp, ignore_errors=True)
    print(f"wrote {out}: {len(barriers)} mutants, binaries {sorted(p.name for p in (out / 'bin').iterdir())}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--full", action="store_true")
    mode.add_argument("--sample", type=int)
    mode.add_argument("--list", action="store_true")
    mode.add_argument("--export-races")
    mode.add_argument("--report", action="store_true")
    mode.add_argument("--import-gpu")
    ap.add_argument("--clean-known", action="store_true", help="with --sample: the tests just ran clean")
    ap.add_argument("--cap", type=int, default=DEFAULT_CAP, help="mutants per shader kernel (0: all)")
    ap.add_argument("--first", action="store_true", help="record this run's rates as the kernels' first ones")
    ap.add_argument("--survivors", action="store_true", help="re-run only mutants the report has not seen killed")
    ap.add_argument("--cpu-cap", type=int, default=DEFAULT_CPU_CAP, help="mutants per CPU kernel (0: all)")
    ap.add_argument(
        "--kernel", nargs="*", help="only these kernels, globs allowed: 'cpu/*' (results merge into the report)"
    )
    args = ap.parse_args()
    # Ctrl-C and kill both unwind through the `finally` that restores a patched CPU kernel.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    if args.list:
        ms = all_mutants()
        for k in sorted({m.kernel for m in ms}):
            ops = [m.operator for m in ms if m.kernel == k]
            print(f"{k:16} {len(ops):5}  " + " ".join(f"{o}={ops.count(o)}" for o in sorted(set(ops))))
        return 0
    if args.export_races:
        return export_races(args)
    return sample(args) if args.sample else campaign(args)


if __name__ == "__main__":
    sys.exit(main())
