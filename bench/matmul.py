"""Matmul pipelines side by side (docs/matmul.md): for shapes that each pipeline is meant for, the time of every
pipeline forced on each Vulkan device, the selector's pick, and torch on the GPU it has (CUDA, else its CPU), with
ratios to torch. Each timing is the median of `--repeat` products, each ended by the library's synchronize (no
read-back). Every pipeline's result is also checked against a float64 product of the same operands: ‖out − ref‖ /
‖ref‖ above 1e-5 (1e-3 for float16 results, which round once more) is printed as WRONG, so a run on a GPU that
lavapipe cannot stand in for (the cooperative-matrix pipeline) checks correctness too. `--dtype float16` times
float16 operands, adding the cooperative-matrix pipelines where the device has them (float32 ones add the wide
pipeline where the device runs it); `--bt` gives b column-major, as `x @ w.t()` in a linear layer reads it.
Run: `PYTHONPATH=.pyinstall python bench/matmul.py` (after the wheel is installed into .pyinstall)."""

import argparse
import statistics
import time

import numpy as np
import torch
import vkml
from vkml import _vkml

PIPELINES = ("gemv", "small", "splitk", "tiled", "wide", "batched", "coop", "coop_staged")
# (batch, m, k, n): a vector side, tiny, long K with few outputs, large square and MLP-shaped, many small batches.
SHAPES = [
    (1, 1, 4096, 4096),
    (1, 4096, 4096, 1),
    (1, 16, 16, 16),
    (1, 32, 8192, 32),
    (1, 64, 4096, 64),
    (1, 256, 256, 256),
    (1, 512, 512, 512),
    (1, 1024, 1024, 1024),
    (1, 2048, 2048, 2048),
    (1, 64, 784, 128),
    (1, 128, 784, 128),
    (64, 48, 48, 48),
    (1, 4096, 4096, 4096),
]
# From this many outputs only the tiled pipelines are timed: the others take seconds there.
TILED_ONLY = 1 << 22


def timeit(fn, sync, repeat):
    """Median milliseconds of `fn()` ended by `sync()`, after one warm-up that compiles pipelines."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def rel_error(out, ref):
    return float(np.linalg.norm(out.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-300))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dtype", choices=("float32", "float16"), default="float32")
    p.add_argument("--bt", action="store_true", help="b column-major (a transposed view of an n x k matrix)")
    p.add_argument("--large", action="store_true", help="only the shapes of at least a million outputs")
    args = p.parse_args()
    vkml.init_vulkan(0)
    half = args.dtype == "float16"
    coop = half and _vkml._has_coop_matmul()
    staged = coop and _vkml._has_staged_matmul()
    wide = not half and _vkml._has_wide_matmul()
    runs = {"coop": coop, "coop_staged": staged, "wide": wide}
    names = [name for name in PIPELINES if runs.get(name, True)]
    tdev = "cuda" if torch.cuda.is_available() else "cpu"
    gpus = [str(d) for d in vkml.devices() if not str(d).startswith("cpu")]
    print(f"{args.dtype}, median of {args.repeat} (ms); torch on {tdev}; ratio = vkml / torch (below 1: vkml faster)")
    rng = np.random.default_rng(0)
    for batch, m, k, n in SHAPES:
        if args.large and batch * m * n < 1 << 20:
            continue
        a = rng.standard_normal((batch, m, k), dtype=np.float32).astype(args.dtype)
        b = rng.standard_normal((batch, n, k) if args.bt else (batch, k, n), dtype=np.float32).astype(args.dtype)
        b64 = b.astype(np.float64)
        ref = a.astype(np.float64) @ (b64.transpose(0, 2, 1) if args.bt else b64)
        ta, tb = torch.from_numpy(a).to(tdev), torch.from_numpy(b).to(tdev)
        if args.bt:
            tb = tb.transpose(1, 2)
        tsync = torch.cuda.synchronize if tdev == "cuda" else (lambda: None)
        base = timeit(lambda ta=ta, tb=tb: ta @ tb, tsync, args.repeat)
        pick = _vkml._matmul_pipeline(m, n, k, batch, coop, wide and m % 4 == n % 4 == k % 4 == 0, staged)
        tflops = 2 * batch * m * n * k / base / 1e9
        print(f"{batch}x{m}x{k} @ {k}x{n}: torch {base:.3f} ({tflops:.1f} TFLOP/s); selector picks {pick}")
        for d in gpus:
            va, vb = vkml.tensor(a, device=d), vkml.tensor(b, device=d)
            vkml.realize(va, vb)
            if args.bt:
                vb = vb.transpose(1, 2)
            cells = []
            for name in names:
                if batch * m * n >= TILED_ONLY and name not in ("tiled", "wide", "batched", "coop", "coop_staged"):
                    continue
                _vkml._force_matmul(name)
                try:
                    err = rel_error((va @ vb).numpy(), ref)
                    ms = timeit(lambda va=va, vb=vb: vkml.realize(va @ vb), vkml.synchronize, args.repeat)
                    flag = " WRONG" if not err <= (1e-3 if half else 1e-5) else ""
                    mark = "*" if name == pick else ""
                    cells.append(f"{name}{mark} {ms:.3f} ({ms / base:.2f}x, err {err:.1e}{flag})")
                except (RuntimeError, NotImplementedError) as e:
                    cells.append(f"{name}: {str(e)[:40]}")
            _vkml._force_matmul(None)
            print(f"  {d}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
