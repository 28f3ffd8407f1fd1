"""Matmul pipelines side by side (docs/matmul.md): for shapes that each pipeline is meant for, the time of every
pipeline forced on each Vulkan device, the selector's pick, and torch on the GPU it has (CUDA, else its CPU), with
ratios to torch. Each timing includes reading the result back to the host, on both sides. `--dtype float16` times
float16 operands, adding the cooperative-matrix pipeline where the device has it.
Run: `PYTHONPATH=.pyinstall python bench/matmul.py` (after the wheel is installed into .pyinstall)."""

import argparse

import numpy as np
import torch
import vkml
from run import timeit  # bench/run.py: the same median-of-N timing
from vkml import _vkml

PIPELINES = ("gemv", "small", "splitk", "tiled", "batched", "coop")
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
]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--dtype", choices=("float32", "float16"), default="float32")
    args = p.parse_args()
    vkml.init_vulkan(0)
    half = args.dtype == "float16"
    coop = half and _vkml._has_coop_matmul()
    names = [name for name in PIPELINES if name != "coop" or coop]
    tdev = "cuda" if torch.cuda.is_available() else "cpu"
    gpus = [str(d) for d in vkml.devices() if str(d) != "cpu"]
    print(f"{args.dtype}, median of {args.repeat} (ms); torch on {tdev}; ratio = vkml / torch (below 1: vkml faster)")
    rng = np.random.default_rng(0)
    for batch, m, k, n in SHAPES:
        a = rng.standard_normal((batch, m, k), dtype=np.float32).astype(args.dtype)
        b = rng.standard_normal((batch, k, n), dtype=np.float32).astype(args.dtype)
        ta, tb = torch.from_numpy(a).to(tdev), torch.from_numpy(b).to(tdev)
        base = timeit(lambda ta=ta, tb=tb: (ta @ tb).cpu().numpy(), args.repeat)
        pick = _vkml._matmul_pipeline(m, n, k, batch, coop)
        print(f"{batch}x{m}x{k} @ {k}x{n}: torch {base:.3f}; selector picks {pick}")
        for d in gpus:
            va, vb = vkml.tensor(a, device=d), vkml.tensor(b, device=d)
            vkml.realize(va, vb)
            cells = []
            for name in names:
                _vkml._force_matmul(name)
                try:
                    ms = timeit(lambda va=va, vb=vb: (va @ vb).numpy(), args.repeat)
                    cells.append(f"{name}{'*' if name == pick else ''} {ms:.3f} ({ms / base:.2f}x)")
                except (RuntimeError, NotImplementedError) as e:
                    cells.append(f"{name}: {str(e)[:40]}")
            _vkml._force_matmul(None)
            print(f"  {d}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
