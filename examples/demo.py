"""The main job for now: pick the best device, say why, and run a small lazy computation on it and on the CPU.

MNIST training (issue #4) replaces this. Run it with `bash tools/demo.sh`.
"""

import time

import numpy as np
import vkml


def main() -> None:
    try:
        vkml.init_vulkan(0)
    except RuntimeError as e:
        print(f"no Vulkan device: {e}")
    dev, why = vkml.best_device()
    print(why)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 128), dtype=np.float32)
    b = rng.standard_normal((128, 64), dtype=np.float32)
    for d in [dev] + [x for x in vkml.devices() if x != dev]:
        t0 = time.perf_counter()
        x = vkml.tensor(a, device=d)
        w = vkml.tensor(b, device=d)
        before = vkml.stats()["submissions"]
        h = (x @ w).relu()
        loss = (h * h).mean()
        pending = vkml.stats()["submissions"] - before
        value = loss.item()
        print(
            f"{str(d):16s} mean(relu(x @ w)^2) = {value:.6f}  "
            f"(submissions before observing: {pending}; {1000 * (time.perf_counter() - t0):.1f} ms)"
        )
    ref = np.mean(np.maximum(a @ b, 0) ** 2)
    print(f"{'numpy':16s} mean(relu(x @ w)^2) = {ref:.6f}")


if __name__ == "__main__":
    main()
