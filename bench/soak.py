"""The soak (issue #20): train the MNIST MLP for many Adam steps and check that memory stays flat, on the host (the
process's resident set) and on the device (vkml.memory_allocated and memory_reserved), sampled every `--every`
steps after a warm-up. A benchmark-style script, not a timed test.

Run: `PYTHONPATH=.pyinstall python bench/soak.py [--steps 20000] [--device cpu|vulkan:0] [--every 1000]`; it exits
non-zero when memory grew past `--slack` (default 8 MiB on the host, nothing on the device) between the first
sample after the warm-up and the last.
"""

import argparse
import sys
import time

import numpy as np
import vkml
from vkml import nn, optim


def resident_bytes() -> int:
    """The process's resident set, from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--every", type=int, default=1000)
    p.add_argument("--device", default="cpu")
    p.add_argument("--slack", type=float, default=8.0, help="host growth allowed, MiB")
    args = p.parse_args()
    if args.device.startswith("vulkan"):
        vkml.init_vulkan(int(args.device.split(":")[1]), min_spec=args.device.endswith(":floor"))
    dev = args.device
    vkml.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    batches = [
        (vkml.tensor(rng.standard_normal((64, 784)).astype(np.float32), device=dev),
         vkml.tensor(rng.integers(0, 10, 64), device=dev))
        for _ in range(4)
    ]  # fmt: skip
    samples = []
    t0 = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = batches[step % 4]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % args.every == 0:
            value = loss.item()
            sample = (step, resident_bytes(), vkml.memory_allocated(dev), vkml.memory_reserved(dev))
            samples.append(sample)
            print(
                f"step {step:6d}  loss {value:.4f}  host RSS {sample[1] / 2**20:8.1f} MiB  "
                f"device allocated {sample[2] / 2**20:7.2f} MiB  reserved {sample[3] / 2**20:7.2f} MiB  "
                f"{(time.perf_counter() - t0) / step * 1e3:.2f} ms/step",
                flush=True,
            )
    first, last = samples[min(1, len(samples) - 1)], samples[-1]  # the first sample after one interval of warm-up
    host = (last[1] - first[1]) / 2**20
    device = (last[2] - first[2], last[3] - first[3])
    flat = host <= args.slack and device == (0, 0)
    print(
        f"{args.steps} steps on {dev}: host RSS {host:+.1f} MiB, device allocated {device[0]:+d} B, reserved "
        f"{device[1]:+d} B from step {first[0]} to {last[0]}: {'flat' if flat else 'GREW'}"
    )
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
