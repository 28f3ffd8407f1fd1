"""Side-by-side timings of vkml against what a user would pick instead (PyTorch on the CPU here; PyTorch CUDA where a
CUDA GPU is present), printing ratios. Each timing is one op (or chain) including reading the result back to NumPy.
Run: `PYTHONPATH=.pyinstall python bench/run.py` after `bash tools/demo.sh`.

Speed goals are checked here, never by timed tests.
"""

import argparse
import statistics
import time

import numpy as np
import torch
import vkml


def timeit(fn, repeat: int) -> float:
    """Median wall time of fn() in milliseconds, after one warm-up (which compiles pipelines)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def cases(n: int):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    yield "matmul", (a, b), lambda x, y: x @ y
    yield "elementwise chain", (a, b), lambda x, y: ((x * y + 1.0).relu() - y).exp()
    yield "sum over rows", (a,), lambda x: x.sum(dim=1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    try:
        vkml.init_vulkan(0)
    except RuntimeError as e:
        print(f"no Vulkan device: {e}")
    tdev = "cuda" if torch.cuda.is_available() else "cpu"
    devices = [str(d) for d in vkml.devices()]
    print(f"n={args.n}, median of {args.repeat}; baseline torch on {tdev}; ratio = vkml time / torch time")
    for name, arrays, fn in cases(args.n):
        tt = [torch.from_numpy(x).to(tdev) for x in arrays]

        def run_torch(fn=fn, tt=tt):
            # Read the result back like the vkml side does (`.numpy()`), so both include the device → host copy.
            fn(*tt).cpu().numpy()

        base = timeit(run_torch, args.repeat)
        row = [f"{name:18s} torch {base:8.2f} ms"]
        for d in devices:
            vt = [vkml.tensor(x, device=d) for x in arrays]
            vkml.realize(*vt)
            ms = timeit(lambda fn=fn, vt=vt: fn(*vt).numpy(), args.repeat)
            row.append(f"{d} {ms:8.2f} ms ({ms / base:6.2f}x)")
        print(" | ".join(row))


if __name__ == "__main__":
    main()
