"""Planner fusion: chains of float32 elementwise ops, with comparisons, `where` and casts among float32, float16,
bfloat16 and bool, run as one kernel where nothing else holds their intermediate values, with the bytes each op's own
kernel gives (compared with eager mode, where every op runs alone); values something holds (a variable, autograd)
are still computed and kept, and arithmetic in other dtypes runs unfused."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import vkml
from helpers import CPUS


def _pair(device, dtype=np.float32):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 64, 33)).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        a[0, :8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 3e38]
    x, y = vkml.tensor(a, device=device), vkml.tensor(b, device=device)
    vkml.realize(x, y)
    return x, y


def _lazy_and_eager(fn, *inputs):
    """(lazy result, eager result, counter deltas of the lazy run) as NumPy arrays."""
    vkml.synchronize()
    before = vkml.stats()
    lazy = fn(*inputs).numpy()
    after = vkml.stats()
    vkml.set_eager(True)
    try:
        eager = fn(*inputs).numpy()
    finally:
        vkml.set_eager(False)
    return lazy, eager, {k: after[k] - before[k] for k in ("dispatches", "nodes_fused")}


def _same_bytes(p, q):
    assert p.dtype == q.dtype and p.shape == q.shape
    keep = ~(np.isnan(p) & np.isnan(q)).ravel()  # any NaN matches any NaN

    def rows(t):
        return t.view(np.uint8).reshape(t.size, -1)[keep]

    assert (rows(p) == rows(q)).all()


def chain(x, y):
    return ((x * y + 1).relu() - y).exp()


def test_the_chain_is_one_kernel(device):
    """Issue #19's chain: seven nodes (two scalars among them) inside the last one's kernel."""
    lazy, eager, d = _lazy_and_eager(chain, *_pair(device))
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] == 7, d
    if device not in CPUS:
        assert d["dispatches"] == 1, d
    xt, yt = (torch.from_numpy(t.numpy()) for t in _pair(device))
    np.testing.assert_allclose(lazy, chain(xt, yt).numpy(), rtol=2e-6, atol=0)


CHAINS = {
    "broadcast and strided": lambda x, y: (x.t()[:, :5].sqrt() * y[0, :5] - x[0, 0]).tanh(),
    "scalar forms": lambda x, y: (2.5 - x) / (y.abs() + 1e-30) ** 2 * 3,
    "transcendental": lambda x, y: x.sin().atan2(y.cos()).sigmoid().log1p(),
    "long": lambda x, y: sum((x * k + y).maximum(y) for k in range(6)),
    # Several blocks of the CPU's fused loop, each starting inside a line of the expanded, transposed inputs.
    "blocks over broadcast views": lambda x, y: (
        x[:63, :31].expand(5, 63, 31).transpose(1, 2) * y[:63, :31].t() + 1
    ).exp(),
    "mixed with reductions": lambda x, y: (x.exp() - x.exp().amax(dim=1, keepdim=True)).exp().sum(dim=1) + y[:, 0],
}


@pytest.mark.parametrize("name", CHAINS)
def test_fused_chains_give_the_eager_bytes(name, device):
    lazy, eager, d = _lazy_and_eager(CHAINS[name], *_pair(device))
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] > 0, d


# Chains through comparisons, `where` and casts, each one kernel: (chain, the nodes inside the last one's kernel).
SELECTS_AND_CASTS = {
    "where over a comparison": (lambda x, y: vkml.where(x > y, x * y, x.exp()), 3),
    "comparison as a factor": (lambda x, y: (x <= 0).float() * y, 3),
    "through float16": (lambda x, y: x.half().float() + y, 2),
    "float16 promoted": (lambda x, y: x.half() * y, 2),
    "through bfloat16": (lambda x, y: (x * 3).bfloat16().float() - y, 5),
    "through bool": (lambda x, y: (x * y).bool().float() + x, 3),
    "bool out": (lambda x, y: x * y > 0.5, 2),
    "float16 out": (lambda x, y: (x + y).half(), 1),
    # x + y three times, one input set whole, though no part of the tree reads fewer than four.
    "the same sum three ways": (lambda x, y: vkml.where(x + y <= 0, (x + y).maximum(y[0, 0]), x + y), 6),
}


@pytest.mark.parametrize("name", SELECTS_AND_CASTS)
def test_selects_and_casts_fuse(name, device):
    fn, inside = SELECTS_AND_CASTS[name]
    lazy, eager, d = _lazy_and_eager(fn, *_pair(device))
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] == inside, d
    if device not in CPUS:
        assert d["dispatches"] == 1, d


def test_a_sum_read_three_times_is_computed_in_each_reader(device):
    """x + y read by three elementwise nodes is stored by no kernel: each reader's program computes it again (one
    step over values that exist anyway). Where one reader's program has no room for it, it also runs on its own."""
    x, y = _pair(device)

    def thrice(p, q):
        s = p + q
        return vkml.where(s > 0, s.exp(), s)

    lazy, eager, d = _lazy_and_eager(thrice, x, y)
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] == 4 and (device in CPUS or d["dispatches"] == 1), d

    def crowded(p, q):
        s = p + q
        # The sum inside the first program; the second reads four tensors with the sum's two, so the sum stays a leaf
        # there, and runs on its own.
        return s.exp() - s, s * p.t().sin() + q.t().cos()

    x, y = x[:33], y[:33]
    vkml.set_eager(True)
    try:
        eager = [t.numpy() for t in crowded(x, y)]
    finally:
        vkml.set_eager(False)
    with vkml.profile() as prof:
        lazy = crowded(x, y)
        vkml.realize(*lazy)
    for p, q in zip(lazy, eager):
        _same_bytes(p.numpy(), q)
    assert [k["op"] for k in prof.kernels].count("add") == 1, prof.kernels


def test_a_bool_input_is_a_condition(device):
    x, y = _pair(device)
    mask = x > y
    vkml.realize(mask)
    lazy, eager, d = _lazy_and_eager(lambda m, p: vkml.where(m, p * 2, -p), mask, x)
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] == 3 and (device in CPUS or d["dispatches"] == 1), d


def test_held_values_are_kept(device):
    x, y = _pair(device)
    h = x * y
    z = (h + 1).exp()
    vkml.synchronize()
    before = vkml.stats()["nodes_fused"]
    zn = z.numpy()
    assert vkml.stats()["nodes_fused"] - before == 2, "the add and its scalar join exp; x * y is held and runs alone"
    vkml.set_eager(True)
    try:
        _same_bytes(h.numpy(), (x * y).numpy())
        _same_bytes(zn, ((x * y) + 1).exp().numpy())
    finally:
        vkml.set_eager(False)


@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_other_dtypes_run_unfused(dtype, device):
    x, y = _pair(device, dtype)
    lazy, eager, d = _lazy_and_eager(lambda p, q: (p * q + 1) * q, x, y)
    _same_bytes(lazy, eager)
    assert d["nodes_fused"] == 0, d


def test_gradients_through_a_fused_forward(device):
    def run():
        x, y = _pair(device)
        x.requires_grad_(True)
        loss = chain(x, y).sum()
        loss.backward()
        return x.grad.numpy()

    lazy = run()
    vkml.set_eager(True)
    try:
        eager = run()
    finally:
        vkml.set_eager(False)
    _same_bytes(lazy, eager)


@pytest.mark.parametrize("setting", ["0", "1"])
def test_fusion_can_be_turned_off(setting):
    code = "import vkml; x = vkml.tensor([0.5] * 8); ((x * 2 + 1).exp()).numpy(); print(vkml.stats()['nodes_fused'])"
    env = {**os.environ, "VKML_FUSION": setting}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ("0" if setting == "0" else "4"), out


def test_a_program_that_comes_back_gets_its_own_kernel(device):
    """A GPU runs a program on a straight-line kernel of its own: at once among its first 32 programs
    (backend-vulkan's EAGER_PROGRAMS), else from its eighth run (HOT), interpreted before: the same bytes."""
    x, y = _pair(device)

    def fresh(p, q):  # a constant no other test's program has
        return ((p * q + 1.375).relu() - q).exp()

    before = vkml.stats()["kernels_generated"]
    eager = _lazy_and_eager(fresh, x, y)[1]
    for _ in range(9):
        _same_bytes(fresh(x, y).numpy(), eager)
    made = vkml.stats()["kernels_generated"] - before
    # At most one (none where an earlier test's program of the same steps, other constants, made it).
    assert made in ((0,) if device in CPUS else (0, 1)), made
    with vkml.profile() as p:
        fresh(x, y).numpy()
    pipelines = [k["pipeline"] for k in p.kernels if k["op"] == "fused"]
    assert pipelines == ["cpu" if device in CPUS else "fused program"], p.kernels
