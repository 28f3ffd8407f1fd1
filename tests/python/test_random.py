"""randint, normal, bernoulli, randperm, multinomial and empty: shape, dtype and device as torch's, the same bits on
every device for a seed (check_random), each distribution checked by statistics whose bounds follow from the sample
size, and torch's errors."""

import math

import numpy as np
import pytest
import vkml
from coverage_matrix import cells
from helpers import check_random, each, error, to_numpy

DTYPES = ("float32", "float16", "bfloat16", "float64", "int32", "int64", "bool")
CLASSES = ("contiguous", "strided", "broadcast", "empty", "extreme", "mixed")


def _rows(cls):
    return 0 if cls == "empty" else 7


RANDOM = {
    "randint": lambda cls, dt: (
        lambda lib, dev: lib.randint(-3, 9, (_rows(cls) * 12, 29), dtype=getattr(lib, dt), device=dev)
    ),
    "normal": lambda cls, dt: (
        lambda lib, dev: lib.normal(1.5, 2.0, (_rows(cls) * 12, 29), dtype=getattr(lib, dt), device=dev)
    ),
    "randperm": lambda cls, dt: lambda lib, dev: lib.randperm(_rows(cls) * 40, dtype=getattr(lib, dt), device=dev),
    "empty": lambda cls, dt: lambda lib, dev: lib.empty(_rows(cls), 5, dtype=getattr(lib, dt), device=dev),
    "multinomial": lambda cls, dt: (
        lambda lib, dev: lib.multinomial(
            lib.full((max(_rows(cls), 1), 6), 0.5, dtype=getattr(lib, dt), device=dev), 4, replacement=True
        )
    ),
    "bernoulli": lambda cls, dt: (
        lambda lib, dev: lib.bernoulli(lib.full((_rows(cls) * 12, 29), 0.3, dtype=getattr(lib, dt), device=dev))
    ),
}



@pytest.mark.parametrize(("op", "cls", "dtype"), cells(RANDOM))
def test_random_matrix(op, cls, dtype, device):
    check_random(op, RANDOM[op](cls, dtype), device, cls, dtype)


def _within(stat, expect, sd, what):
    # Six standard deviations of the statistic: a false alarm has probability ~2e-9; the seed is fixed anyway.
    assert abs(stat - expect) <= 6 * sd, f"{what}: {stat} is more than 6 sd ({sd}) from {expect}"


N = 8192


def test_randint_is_uniform(device):
    vkml.manual_seed(5)
    x = to_numpy(vkml.randint(3, 10, (N,), device=device))
    assert x.dtype == np.int64 and x.min() >= 3 and x.max() <= 9
    for v in range(3, 10):
        _within((x == v).sum(), N / 7, math.sqrt(N * (1 / 7) * (6 / 7)), f"count of {v}")
    y = to_numpy(vkml.randint(5, (N,), device=device))  # randint(high, size)
    assert y.min() == 0 and y.max() == 4


def test_normal_moments_and_broadcast(device):
    vkml.manual_seed(6)
    x = to_numpy(vkml.normal(2.0, 3.0, (N,), device=device)).astype(np.float64)
    _within(x.mean(), 2.0, 3.0 / math.sqrt(N), "mean")
    _within(x.var(), 9.0, math.sqrt(2 * 81 / N), "variance")
    mean = vkml.tensor([[0.0], [10.0]], device=device)
    std = vkml.tensor([1.0, 0.5, 0.0], device=device)
    y = to_numpy(vkml.normal(mean, std))
    assert y.shape == (2, 3)
    assert y[0, 2] == 0.0 and y[1, 2] == 10.0, "std 0 gives the mean"


def test_bernoulli_frequency(device):
    vkml.manual_seed(7)
    p = vkml.full((N,), 0.3, device=device)
    x = to_numpy(vkml.bernoulli(p))
    assert set(np.unique(x)) <= {0.0, 1.0}
    _within(x.mean(), 0.3, math.sqrt(0.3 * 0.7 / N), "frequency of ones")
    edges = to_numpy(vkml.tensor([0.0, 1.0, 0.0, 1.0], device=device).bernoulli())
    np.testing.assert_array_equal(edges, [0.0, 1.0, 0.0, 1.0])
    assert to_numpy(p.bernoulli(0.5)).mean() > 0.4


def test_randperm_is_a_uniform_permutation(device):
    vkml.manual_seed(8)
    n = 2048
    x = to_numpy(vkml.randperm(n, device=device))
    np.testing.assert_array_equal(np.sort(x), np.arange(n))
    # Inversions of a uniform permutation: mean n(n−1)/4, variance n(n−1)(2n+5)/72.
    inv = sum(int((x[i + 1 :] < x[i]).sum()) for i in range(n))
    _within(inv, n * (n - 1) / 4, math.sqrt(n * (n - 1) * (2 * n + 5) / 72), "inversions")
    assert to_numpy(vkml.randperm(0, device=device)).shape == (0,)


def test_multinomial_frequencies(device):
    vkml.manual_seed(9)
    w = np.array([0.1, 0.0, 0.3, 0.6], np.float32)
    x = to_numpy(vkml.multinomial(vkml.tensor(w * 3, device=device), N, replacement=True))  # unnormalised weights
    assert x.dtype == np.int64 and x.min() >= 0 and x.max() <= 3
    for j, p in enumerate(w):
        _within((x == j).sum(), N * p, math.sqrt(N * p * (1 - p)), f"count of {j}")
    # Without replacement: distinct picks, the first distributed as the weights, the zero-weight one never picked.
    rows = to_numpy(vkml.multinomial(vkml.tensor(np.tile(w, (2000, 1)), device=device), 3))
    s = np.sort(rows, axis=1)
    assert (s[:, 1:] != s[:, :-1]).all()
    assert (rows != 1).all()
    for j, p in enumerate(w):
        _within((rows[:, 0] == j).sum(), 2000 * p, math.sqrt(2000 * p * (1 - p)), f"first pick {j}")


def test_empty_is_zeros(device):
    x = vkml.empty(3, 4, dtype=vkml.float16, device=device)
    assert x.shape == (3, 4) and x.dtype == vkml.float16 and str(x.device) == device
    assert (to_numpy(x) == 0).all()
    y = vkml.empty_like(x, dtype=vkml.int32)
    assert y.dtype == vkml.int32 and (to_numpy(y) == 0).all()


ERRORS = [
    error("randint", [], lambda lib, dev: lib.randint(5, 5, (3,), device=dev), RuntimeError, match="from"),
    error(
        "randint", [], lambda lib, dev: lib.randint(0, 2**30, (3,), device=dev), NotImplementedError, torch_raises=False
    ),
    error("normal", [], lambda lib, dev: lib.normal(0.0, -1.0, (3,), device=dev), RuntimeError, match="std"),
    error("normal", [], lambda lib, dev: lib.normal(lib.zeros(3, device=dev), -lib.ones(3, device=dev)), RuntimeError),
    error("bernoulli", [], lambda lib, dev: lib.bernoulli(lib.full((3,), 1.5, device=dev)), RuntimeError),
    error("randperm", [], lambda lib, dev: lib.randperm(-1, device=dev), RuntimeError),
    error("multinomial", [], lambda lib, dev: lib.multinomial(lib.tensor([0.5, -0.1], device=dev), 1), RuntimeError),
    # torch goes on to draw zero-weight categories once the others are used up; vkml refuses, naming the cause.
    error(
        "multinomial",
        [],
        lambda lib, dev: lib.multinomial(lib.tensor([0.5, 0.0], device=dev), 2),
        RuntimeError,
        match="not enough",
        torch_raises=False,
    ),
    error("multinomial", [], lambda lib, dev: lib.multinomial(lib.zeros(3, device=dev), 1, True), RuntimeError),
]


test_error = each(ERRORS)
