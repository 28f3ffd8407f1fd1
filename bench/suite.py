"""The benchmark suite beside PyTorch in the same run: matmul (f32, f16), add, exp, sqrt of |x|, a 5-op elementwise
chain, a full sum, softmax over rows, a small CNN's Adam step, MLP train steps, the host cost of one op and of 1,000
in-place adds, each as vkml throughput against torch's (CUDA where present, else the CPU). Wall clock around N
iterations ended by each library's synchronize, no read-back; every iteration gets other inputs (two sets,
alternated), so no result can be reused. The step and host cases also give vkml's host time per iteration in each
phase of realizing (`vkml.stats()`'s host_ns_* counters), and the training steps their peak of device memory beside
torch's `max_memory_allocated` (CUDA). Writes JSON and a markdown table.

Run: `PYTHONPATH=.pyinstall python bench/suite.py [--size small|full] [--device vulkan:0] [--out DIR]
[--only CNN,sum] [--cnn-batch 64]` after `bash tools/demo.sh`; `--size full` is the H200 form (2**28 elements,
4096**3 matmuls, batch 256), `small` the sampled form tools/test.sh runs; `--only` keeps the cases whose names
contain one of its parts, `--cnn-batch` sets the CNN step's batch. Speed goals are checked here, never by timed tests.
`--doc docs/performance.md` (with `--profile`) rewrites that file's marked block with the run's table, the issues'
targets met or missed, and the profiler's view of a CNN step.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import vkml

SIZES = {
    # name: (matmul n, elements, softmax row, CNN batch, MLP batches, iterations)
    "small": (256, 1 << 18, 1024, 16, (64, 256), 3),
    "full": (4096, 1 << 28, 4096, 256, (64, 1024), 20),
}
# Seconds each case runs before its clock starts: a GPU idling at low clocks ramps up first (on the H200 the first
# case, f32 matmul, read half the rate bench/matmul.py gave the same kernel in the same run without it).
WARM = {"small": 0.0, "full": 1.0}
# More for a run's first case: on a machine just started, the CNN step, first of `--only CNN,MLP`, read 9.0 ms after
# the usual second, then 2.1 ms in the next process (an H100, 2026-12-06; docs/measurements.md).
FIRST_WARM = {"small": 0.0, "full": 5.0}


# Issue targets by case name (the first key a name starts with): (issue, target, met(row)). Shares are vkml's
# throughput over torch's (for steps, torch's time over vkml's).
TARGETS = {
    "f32 matmul": ("#18", "≥ 50 %", lambda r: r["vkml_share"] >= 0.5),
    "f16 matmul": ("#18", "≥ 15 %", lambda r: r["vkml_share"] >= 0.15),
    "add": ("#18", "≥ 85 %", lambda r: r["vkml_share"] >= 0.85),
    "5-op chain": ("#19", "≥ 200 %", lambda r: r["vkml_share"] >= 2.0),
    "sum of all": ("#18", "≥ 70 %", lambda r: r["vkml_share"] >= 0.7),
    "mean of all": ("#18", "≥ 70 %", lambda r: r["vkml_share"] >= 0.7),
    "amax of all": ("#18", "≥ 70 %", lambda r: r["vkml_share"] >= 0.7),
    "softmax over rows": ("#18", "≥ 60 %", lambda r: r["vkml_share"] >= 0.6),
    "CNN Adam step, batch 256": ("#18", "time ≤ 1.5× torch's", lambda r: r["vkml_share"] >= 1 / 1.5),
    "MLP train step, batch 64": ("#19", "time ≤ 0.5× torch's", lambda r: r["vkml_share"] >= 2.0),
    "host cost of one op": ("#19", "≤ 5 µs", lambda r: r["vkml"] <= 0.005),
}
DOC_BEGIN = "<!-- bench/suite.py --doc: begin -->"
DOC_END = "<!-- bench/suite.py --doc: end -->"

# The phases of realizing whose host time vkml.stats() counts (host_ns_<phase>; the GPU's from launch on).
PHASES = "schedule fuse prepare launch bind record scope submit".split()


class Lib:
    """One library's side of a case: how to make its tensors, and how to wait for its device."""

    def __init__(self, name, device, warm=0.0, warm_runs=1, first_warm=0.0):
        self.name, self.device, self.warm, self.warm_runs = name, device, warm, warm_runs
        self.first_warm = first_warm  # added to the first case's warm-up, then spent
        self.phases = {}  # vkml: host µs per timed iteration in each phase, of the last timed case
        self.base = 0  # bytes the device held when the peak started
        self.peak = None  # bytes of device memory a training case's model, optimizer and steps held at most

    def start_peak(self):
        """Start counting the peak from what the device holds now (None where the library counts none: torch CPU)."""
        if self.name == "vkml":
            vkml.reset_peak_memory_stats(self.device)
            self.base = vkml.memory_allocated(self.device)
        elif self.device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
            self.base = torch.cuda.memory_allocated()

    def end_peak(self):
        if self.name == "vkml":
            self.peak = vkml.max_memory_allocated(self.device) - self.base
        elif self.device.startswith("cuda"):
            self.peak = torch.cuda.max_memory_allocated() - self.base

    def tensor(self, a):
        if self.name == "torch":
            return torch.from_numpy(a).to(self.device)
        return vkml.tensor(a, device=self.device)

    def sync(self, out=None):
        if self.name == "torch":
            if self.device.startswith("cuda"):
                torch.cuda.synchronize()
        else:
            if out is not None:
                vkml.realize(out)
            vkml.synchronize()

    @property
    def mod(self):
        return torch if self.name == "torch" else vkml


def timed(lib, step, iters):
    """Seconds per iteration of step(i), each result realized as it is made, after `lib.warm_runs` warm-up steps (the
    first compiles pipelines; a GPU gives a fused program its own kernel on its eighth run) and more for `lib.warm`
    seconds."""
    for _ in range(lib.warm_runs):
        lib.sync(step(0))
    # Warm steps queue up as the timed ones do (a wait every eighth): a GPU fed one short step at a time kept its low
    # clocks (an H100 just started gave the CNN step 20 ms, then 3.4 ms once warm; docs/performance.md).
    until, k = time.perf_counter() + lib.warm + lib.first_warm, 0
    lib.first_warm = 0.0
    while time.perf_counter() < until:
        out = step(0)
        if lib.name == "vkml":
            vkml.realize(out)
        k += 1
        if k % 8 == 0:
            lib.sync()
    lib.sync()
    before = vkml.stats()
    t0 = time.perf_counter()
    for i in range(iters):
        out = step(i + 1)
        if lib.name == "vkml":
            vkml.realize(out)
    lib.sync()
    elapsed = time.perf_counter() - t0
    if lib.name == "vkml":
        after = vkml.stats()
        lib.phases = {p: (after.get(f"host_ns_{p}", 0) - before.get(f"host_ns_{p}", 0)) / iters / 1e3 for p in PHASES}
    return elapsed / iters


def pair(rng, shape, dtype=np.float32):
    return [rng.standard_normal(shape).astype(dtype) for _ in range(2)]


def kernel_cases(size, wanted=lambda name: True, matmul_n=None):
    """(name, unit, amount per iteration, inputs, fn): amount is FLOPs for TFLOP/s, bytes moved for GB/s. Inputs are
    drawn only for the cases `wanted` keeps; the products are matmul_n square where given."""
    n, elems, row, *_ = SIZES[size]
    n = matmul_n or n
    rng = np.random.default_rng(0)
    precisions = [p for p in ("high", "medium") if wanted(f"matmul {n}³, precision {p}")]
    if wanted("f32 matmul") or wanted("f16 matmul") or precisions:
        a, b = pair(rng, (n, n)), pair(rng, (n, n))
        if wanted("f32 matmul"):
            yield f"f32 matmul {n}³", "TFLOP/s", 2 * n**3, (a, b), lambda x, y: x @ y
        for p in precisions:
            # Float32 products at each library's set_float32_matmul_precision (torch: TF32 for both on CUDA).
            yield f"matmul {n}³, precision {p}", "TFLOP/s", 2 * n**3, (a, b), precise(p)
        if wanted("f16 matmul"):
            ah, bh = [v.astype(np.float16) for v in a], [v.astype(np.float16) for v in b]
            yield f"f16 matmul {n}³", "TFLOP/s", 2 * n**3, (ah, bh), lambda x, y: x @ y
    elementwise = [
        ("add", 3, lambda p, q: p + q),
        # Unary kernels: exp, and sqrt of |x| (standard normal inputs) through one fused kernel the suite times too.
        ("exp", 2, lambda p: p.exp()),
        ("sqrt of |x|", 2, lambda p: p.abs().sqrt()),
        # Issue #19's chain: five ops over the add's operands; fused it would move what the add moves.
        ("5-op chain", 3, lambda p, q: ((p * q + 1).relu() - q).exp()),
        ("sum of all", 1, lambda p: p.sum()),
        ("mean of all", 1, lambda p: p.mean()),
        ("amax of all", 1, lambda p: p.amax()),
    ]
    if any(wanted(name) for name, _, _ in elementwise):
        x, y = pair(rng, (elems,)), pair(rng, (elems,))
        for name, words, fn in elementwise:
            if wanted(name):
                yield name, "GB/s", words * 4 * elems, (x, y)[: fn.__code__.co_argcount], fn
    if wanted("softmax over rows"):
        rows = pair(rng, (elems // row, row))
        yield "softmax over rows", "GB/s", 2 * 4 * elems, (rows,), lambda p: p.softmax(-1)


def precise(precision):
    """x @ y at `precision` for either library (the suite's other cases keep "highest")."""

    def fn(x, y):
        lib = vkml if isinstance(x, vkml.Tensor) else torch
        lib.set_float32_matmul_precision(precision)
        try:
            return x @ y
        finally:
            lib.set_float32_matmul_precision("highest")

    return fn


def run_kernel(lib, inputs, fn, iters):
    sets = [[lib.tensor(v[k]) for v in inputs] for k in range(2)]
    if lib.name == "vkml":
        vkml.realize(*sets[0], *sets[1])  # every input uploaded before the clock starts
    lib.sync()
    return timed(lib, lambda i: fn(*sets[i % 2]), iters)


def cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 10),
    )  # fmt: skip


def mlp(nn):
    return nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))


def run_train(lib, make, shape, iters):
    """Seconds per Adam step of a fresh model on two alternating batches (torch's weights loaded into vkml's); the
    peak of device memory from the model's making to the last step is left in `lib.peak`."""
    lib.sync()
    lib.start_peak()
    torch.manual_seed(0)
    ref = make(torch.nn)
    model = ref.to(lib.device) if lib.name == "torch" else make(vkml.nn).to(lib.device)
    if lib.name == "vkml":
        model.load_state_dict({k: vkml.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    opt = lib.mod.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(1)
    batches = [(lib.tensor(x), lib.tensor(rng.integers(0, 10, shape[0]))) for x in pair(rng, shape)]

    def step(i):
        x, y = batches[i % 2]
        opt.zero_grad()
        loss = lib.mod.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    t = timed(lib, step, iters)
    lib.end_peak()
    return t


def profile_cnn(lib, batch):
    """The profiler's table of one CNN Adam step after two unprofiled ones (pipelines compiled, state allocated)."""
    torch.manual_seed(0)
    model = cnn(vkml.nn).to(lib.device)
    opt = vkml.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, batch))

    def step():
        opt.zero_grad()
        loss = vkml.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    step()
    step()
    with vkml.profile() as p:
        step()
    return p.table()


def run_host(lib, iters):
    """Seconds per op of a chain of 64 one-element adds: the host's cost of recording and running an op."""
    ones = [lib.tensor(np.full((1,), v, np.float32)) for v in (1.0, 2.0)]

    def step(i):
        t = ones[i % 2]
        for _ in range(64):
            t = t + 1.0
        return t

    return timed(lib, step, iters) / 64


def run_inplace(lib, iters):
    """Seconds per op of 1,000 in-place adds to a 4-element tensor, recorded and then realized once."""
    x = lib.tensor(np.zeros(4, np.float32))

    def step(i):
        for _ in range(1000):
            x.add_(1.0)
        return x

    return timed(lib, step, iters) / 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", choices=sorted(SIZES), default="small")
    p.add_argument("--device", help="vkml device (default: vkml.best_device())")
    p.add_argument("--warm-runs", type=int, default=1, help="warm-up steps per case before the timed warm-up")
    p.add_argument("--out", type=Path, default=Path("tests/out/bench"), help="folder for suite.json and suite.md")
    p.add_argument("--profile", action="store_true", help="also write the profiler's table of a CNN step (cnn.txt)")
    p.add_argument("--only", help="comma-separated parts of case names: run only the cases that contain one")
    p.add_argument("--cnn-batch", type=int, help="the CNN step's batch (default: the size's; issue #22 asks for 64)")
    p.add_argument("--matmul-n", type=int, help="the square products' size (default: the size's; issue #22 asks 512)")
    p.add_argument("--doc", type=Path, help="a markdown file whose marked block gets this run's table and profile")
    args = p.parse_args()

    def wanted(name):
        return not args.only or any(part.lower() in name.lower() for part in args.only.split(","))

    # Issue #18 compares plain float32 arithmetic: no TF32 in torch's products or convolutions, no reduced-precision
    # float16 accumulation.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    try:
        vkml.init_vulkan(0)
    except RuntimeError as e:
        print(f"no Vulkan device: {e}")
    warm = (WARM[args.size], args.warm_runs, FIRST_WARM[args.size])
    ours = Lib("vkml", args.device or vkml.best_device()[0], *warm)
    theirs = Lib("torch", "cuda" if torch.cuda.is_available() else "cpu", *warm)
    _, _, _, batch, mlp_batches, iters = SIZES[args.size]
    batch = args.cnn_batch or batch
    rows = []

    def record(name, unit, amount, t_ours, t_theirs):
        # Throughput where the case has one (higher is better), else milliseconds per step (lower is better).
        if unit == "ms":
            ours_v, theirs_v, share = t_ours * 1e3, t_theirs * 1e3, t_theirs / t_ours
        else:
            scale = 1e12 if unit == "TFLOP/s" else 1e9
            ours_v, theirs_v = amount / t_ours / scale, amount / t_theirs / scale
            share = ours_v / theirs_v
        rows.append({"case": name, "unit": unit, "vkml": ours_v, "torch": theirs_v, "vkml_share": share})
        print(f"{name:28s} vkml {ours_v:10.3f} {unit:8s} torch {theirs_v:10.3f} {unit:8s} ({share:6.1%} of torch)")

    for name, unit, amount, inputs, fn in kernel_cases(args.size, wanted, args.matmul_n):
        record(name, unit, amount, *(run_kernel(lib, inputs, fn, iters) for lib in (ours, theirs)))
    steps = [(f"CNN Adam step, batch {batch}", lambda lib: run_train(lib, cnn, (batch, 1, 28, 28), iters))]
    for b in mlp_batches:
        steps += [(f"MLP train step, batch {b}", lambda lib, b=b: run_train(lib, mlp, (b, 784), iters))]
    steps += [("host cost of one op", lambda lib: run_host(lib, iters))]
    steps += [("1,000 in-place adds, per add", lambda lib: run_inplace(lib, iters))]
    for name, run in steps:
        if wanted(name):
            ours.peak = theirs.peak = None
            t_ours = run(ours)
            phases = ours.phases
            record(name, "ms", 0, t_ours, run(theirs))
            # Where vkml's host time went, per timed iteration (a step, or a case's chain of ops).
            rows[-1]["vkml_host_us"] = phases
            print("    vkml host µs per iteration: " + ", ".join(f"{p} {v:.0f}" for p, v in phases.items() if v))
            if ours.peak is not None:
                # Issue #19 compares a training step's peak with torch's max_memory_allocated (CUDA only).
                rows[-1]["peak_mb"] = {
                    "vkml": ours.peak / 1e6,
                    "torch": None if theirs.peak is None else theirs.peak / 1e6,
                }
                mine = f"    peak device memory: vkml {ours.peak / 1e6:.1f} MB"
                print(mine + ("" if theirs.peak is None else f", torch {theirs.peak / 1e6:.1f} MB"))
    profile = None
    if args.profile:
        args.out.mkdir(parents=True, exist_ok=True)
        profile = profile_cnn(ours, batch)
        (args.out / "cnn.txt").write_text(profile)
        print(f"wrote {args.out}/cnn.txt")
    build = vkml._vkml._build_profile()
    head = (
        f"vkml on {ours.device} ({build} build) beside torch {torch.__version__} on {theirs.device}, size {args.size}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "this machine's CPU"
    (args.out / "suite.json").write_text(json.dumps({"setup": head, "gpu": gpu, "rows": rows}, indent=1))
    table = ["| case | vkml | torch | vkml / torch (throughput) |", "|---|---|---|---|"]
    table += [f"| {r['case']} | {r['vkml']:.3f} {r['unit']} | {r['torch']:.3f} | {r['vkml_share']:.1%} |" for r in rows]
    (args.out / "suite.md").write_text(f"{head}\n\n" + "\n".join(table) + "\n")
    print(f"wrote {args.out}/suite.json and suite.md: {head}")
    if args.doc:
        write_doc(args.doc, f"{head}; {gpu}", rows, profile, batch)
        print(f"rewrote the marked block of {args.doc}")


def value(v, unit):
    return f"{v:,.3f}" if unit == "ms" or v < 100 else f"{v:,.1f}" if v < 1000 else f"{v:,.0f}"


def write_doc(path, head, rows, profile, batch):
    """Replace the block between DOC_BEGIN and DOC_END in `path` with a run (suite.json's setup and rows): its
    setup, the table with the issues' targets, each training step's peak memory, and the profiler's table of a CNN
    step (`profile`, or None)."""
    text = path.read_text()
    if DOC_BEGIN not in text or DOC_END not in text:
        raise SystemExit(f"{path} has no block marked {DOC_BEGIN!r} … {DOC_END!r}")
    lines = [
        DOC_BEGIN,
        f"Written by `bench/suite.py --doc` on {time.strftime('%Y-%m-%d')}: {head}.",
        "",
        "| case | vkml | torch | vkml / torch (throughput) | target |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        key = next((k for k in TARGETS if r["case"].startswith(k)), None)
        target = "—"
        if key:
            issue, what, met = TARGETS[key]
            target = f"{what} ({issue}): {'met' if met(r) else 'missed'}"
        unit, case = r["unit"], r["case"].replace("|", "\\|")  # a bar inside a cell ends it
        ours, theirs = f"{value(r['vkml'], unit)} {unit}", value(r["torch"], unit)
        lines.append(f"| {case} | {ours} | {theirs} | {r['vkml_share']:.1%} | {target} |")
    for r in rows:
        if r.get("peak_mb"):
            mine, theirs = r["peak_mb"]["vkml"], r["peak_mb"]["torch"]
            than = "" if theirs is None else f" against torch's {theirs:.1f} MB ({mine / theirs:.2f}×)"
            lines += ["", f"{r['case']}: peak device memory {mine:.1f} MB{than}."]
    if profile:
        lines += [
            "",
            f"The profiler's view of one CNN Adam step at batch {batch}:",
            "",
            "```text",
            profile.rstrip(),
            "```",
        ]
    lines.append(DOC_END)
    start, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END)
    path.write_text(text[:start] + "\n".join(lines) + text[end:])


if __name__ == "__main__":
    main()
