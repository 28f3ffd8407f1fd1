"""Creation against torch: tensor and from_numpy (with dtype inference), zeros, ones, full, arange, *_like, and the
seeded random ops: same seed -> same bits on every device, statistics within bounds derived from the sample size."""

import math

import numpy as np
import pytest
import vkml
from coverage_matrix import FLOATS, INTS, cells
from helpers import SPECIALS, case, check_op, check_random, each, make_inputs, to_numpy

MIXED_LIST = [[1, 2.5, True], [-3, 0.0, False]]  # Python ints, floats and bools in one nested list


def _array(cls: str, dt: str) -> np.ndarray:
    """A NumPy array of dt's staging dtype: contiguous, a strided view, a stride-0 broadcast, empty or extreme."""
    if cls == "extreme":
        return make_inputs([(5, 7)], "extreme", dt)[0].data
    if cls == "empty":
        return make_inputs([(0, 7)], "contiguous", dt)[0].data
    a = make_inputs([(11, 15)], "contiguous", dt)[0].data
    return {"strided": a[1::2, ::3].T, "broadcast": np.broadcast_to(a[:1], (5, 15))}.get(cls, a[:5, :7].copy())


def _fill(cls: str, dt: str):
    """Fill values for full: ordinary of dt's own kind, specials, or of another Python type (mixed)."""
    if cls == "extreme":
        return SPECIALS[dt]
    if cls == "mixed":
        return [7, True] if dt in FLOATS else [2.5, True] if dt in INTS else [0, 2.5]
    return [2.5] if dt in FLOATS else [7] if dt in INTS else [True]


def _arange(cls: str, dt: str, lib, dev):
    d = getattr(lib, dt)
    if cls == "empty":
        return lib.arange(3, 3, dtype=d, device=dev), lib.arange(0, dtype=d, device=dev)
    if cls == "extreme":  # integers near the ends of their range (floats: see the static reason)
        top = 2**31 - 1 if dt == "int32" else 2**63 - 1
        return lib.arange(top - 9, top, 2, dtype=d, device=dev), lib.arange(-top - 1, -top + 8, 3, dtype=d, device=dev)
    if cls == "mixed":
        # Python ints, floats and bools as arguments. torch's integer arange with a fractional step or end is
        # inconsistent between int32 and int64 (even a division by zero), so fractions go only to float dtypes.
        both = lib.arange(1, 9, 2.0, dtype=d, device=dev), lib.arange(True, 5, dtype=d, device=dev)
        return both + ((lib.arange(0.5, 6, 2, dtype=d, device=dev),) if dt in FLOATS else ())
    return (
        lib.arange(0, 10, dtype=d, device=dev),
        lib.arange(10, 0, -3, dtype=d, device=dev),
        lib.arange(-4, 5, 2, dtype=d, device=dev),
    )


def _tensor(cls, dt):
    a = MIXED_LIST if cls == "mixed" else _array(cls, dt)
    return lambda lib, dev: lib.tensor(a, dtype=getattr(lib, dt), device=dev)


def _from_numpy(cls, dt):
    a = _array(cls, dt)
    return lambda lib, dev: lib.from_numpy(a).to(dev)


def _rows(cls):
    return 0 if cls == "empty" else 3


BUILD = {
    "tensor": _tensor,
    "from_numpy": _from_numpy,
    "zeros": lambda cls, dt: lambda lib, dev: lib.zeros(_rows(cls), 4, dtype=getattr(lib, dt), device=dev),
    "ones": lambda cls, dt: lambda lib, dev: lib.ones((_rows(cls), 4), dtype=getattr(lib, dt), device=dev),
    "full": lambda cls, dt: lambda lib, dev: tuple(
        lib.full((_rows(cls), 4), v, dtype=getattr(lib, dt), device=dev) for v in _fill(cls, dt)
    ),
    "arange": lambda cls, dt: lambda lib, dev: _arange(cls, dt, lib, dev),
}
LIKE = {
    "zeros_like": lambda x, lib: lib.zeros_like(x),
    "ones_like": lambda x, lib: lib.ones_like(x),
    "full_like": lambda x, lib: lib.full_like(x, 3),
}



@pytest.mark.parametrize(("op", "cls", "dtype"), cells(BUILD))
def test_matrix(op, cls, dtype, device):
    check_op(op, [], BUILD[op](cls, dtype), device, cls, dtype)


@pytest.mark.parametrize(("op", "cls", "dtype"), cells(LIKE))
def test_like_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], LIKE[op], device, cls, dtype)


CASES = [
    # dtype inference as torch: Python floats -> float32, ints -> int64, bools -> bool; NumPy keeps its dtype
    case("tensor", [], lambda lib, dev: lib.tensor([[1, 2], [3, 4]], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([1, 2.0], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([True, 2], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([True, 1.5], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([True, False], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(3, device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(2.5, device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(True, device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([[[1.5]], [[-2.0]]], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([1e-40, -0.0, float("inf"), float("nan")], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([2**40, -(2**40)], device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(np.arange(6, dtype=np.float16).reshape(2, 3), device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(np.arange(6, dtype=np.int32), device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(np.arange(12, dtype=np.int64)[1::3], device=dev)),  # strided
    case("tensor", [], lambda lib, dev: lib.tensor(np.array([True, False]), device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(np.array(1.5, dtype=np.float32), device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor(np.arange(6.0).reshape(2, 3), device=dev)),  # float64 kept
    case("tensor", [], lambda lib, dev: lib.tensor([1, 2], dtype=lib.float16, device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([0.1, 1 / 3, 1e5], dtype=lib.bfloat16, device=dev)),  # rounds
    case("tensor", [], lambda lib, dev: lib.tensor([0.1, 1 / 3, 65519.0, 65520.0], dtype=lib.half, device=dev)),
    case("tensor", [], lambda lib, dev: lib.tensor([1.7, -1.7, 2.5], dtype=lib.int32, device=dev)),  # truncates
    case("tensor", [(3, 4)], lambda x, lib, dev: lib.tensor(x, device=dev)),  # from a tensor
    case("from_numpy", [], lambda lib, dev: lib.from_numpy(np.arange(6, dtype=np.float32).reshape(3, 2)).to(dev)),
    # zeros, ones, full: sizes as varargs, tuples, 0-d; default dtypes of full from the fill value
    case("zeros", [], lambda lib, dev: lib.zeros(2, 3, 4, device=dev)),
    case("zeros", [], lambda lib, dev: lib.zeros((2, 3), device=dev)),
    case("zeros", [], lambda lib, dev: lib.zeros((), device=dev)),
    case("ones", [], lambda lib, dev: lib.ones(5, device=dev)),
    case("ones", [], lambda lib, dev: lib.ones([2, 0, 3], dtype=lib.long, device=dev)),
    case("full", [], lambda lib, dev: lib.full((2, 3), 1.5, device=dev)),
    case("full", [], lambda lib, dev: lib.full((2, 3), 7, device=dev)),
    case("full", [], lambda lib, dev: lib.full((2, 3), True, device=dev)),
    case("full", [], lambda lib, dev: lib.full((), -2.5, device=dev)),
    case("full", [], lambda lib, dev: lib.full((2, 3), 0.1, dtype=lib.float16, device=dev)),
    # arange: ints -> int64, any float -> float32, negative steps, float steps
    case("arange", [], lambda lib, dev: lib.arange(5, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(2, 11, 3, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(5, 0, -1, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(0, 1, 0.1, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(5, 0, -1.5, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(-3.0, 3.0, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(0, 3000, 1, dtype=lib.float16, device=dev)),
    case("arange", [], lambda lib, dev: lib.arange(10, device=dev).reshape(2, 5)),
    # *_like keeps shape, dtype and device; an explicit dtype overrides
    case("zeros_like", [(3, 4)], lambda x, lib: lib.zeros_like(x, dtype=lib.int32)),
    case("ones_like", [(3, 4)], lambda x, lib: lib.ones_like(x.t())),
    case("full_like", [(3, 4)], lambda x, lib: lib.full_like(x, 2.5)),
    case("full_like", [(3, 4)], lambda x, lib: lib.full_like(x, 2.5), dtype="int64"),  # truncated like torch
    case("full_like", [(3, 4)], lambda x, lib: lib.full_like(x, float("-inf")), dtype="bfloat16"),
]


test_case = each(CASES)


# --- random ---------------------------------------------------------------------------------------------------------

RANDOM = {
    "rand": lambda cls, dt: lambda lib, dev: lib.rand(_rows(cls) * 12, 29, dtype=getattr(lib, dt), device=dev),
    "randn": lambda cls, dt: lambda lib, dev: lib.randn(_rows(cls) * 12, 29, dtype=getattr(lib, dt), device=dev),
    "rand_like": lambda cls, dt: lambda lib, dev: lib.rand_like(_like_input(lib, cls, dt, dev)),
    "randn_like": lambda cls, dt: lambda lib, dev: lib.randn_like(_like_input(lib, cls, dt, dev)),
}


def _like_input(lib, cls, dt, dev):
    x = lib.zeros(0 if cls == "empty" else 40, 30, dtype=getattr(lib, dt), device=dev)
    return x[::2, 1:].t() if cls == "strided" else x


@pytest.mark.parametrize(("op", "cls", "dtype"), cells(RANDOM))
def test_random_matrix(op, cls, dtype, device):
    check_random(op, RANDOM[op](cls, dtype), device, cls, dtype)


def _sample(op: str, device: str, dtype: str = "float32", n: int = 4096, seed: int = 7) -> np.ndarray:
    vkml.manual_seed(seed)
    t = getattr(vkml, op)(n, dtype=getattr(vkml, dtype), device=device)
    return to_numpy(t).astype(np.float64)


def _within(stat: float, expect: float, sd: float, what: str) -> None:
    # Six standard deviations of the statistic: a false alarm has probability ~2e-9; the seed is fixed anyway.
    assert abs(stat - expect) <= 6 * sd, f"{what}: {stat} is more than 6 sd ({sd}) from {expect}"


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_rand_statistics(dtype, device):
    x = _sample("rand", device, dtype)
    n = x.size
    assert ((x >= 0) & (x < 1)).all()
    _within(x.mean(), 0.5, math.sqrt(1 / 12 / n), "mean of U[0,1)")
    # Var of the sample variance of U[0,1): (mu4 - sigma^4) / n with mu4 = 1/80, sigma^4 = 1/144.
    _within(x.var(), 1 / 12, math.sqrt((1 / 80 - 1 / 144) / n), "variance of U[0,1)")
    counts = np.histogram(x, bins=10, range=(0, 1))[0]
    for k, c in enumerate(counts):  # each decile is Binomial(n, 1/10); rounding to 16 bits moves little mass
        _within(c, n / 10, math.sqrt(n * 0.1 * 0.9) + (n * 2.0**-8 if dtype != "float32" else 0), f"decile {k}")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_randn_statistics(dtype, device):
    x = _sample("randn", device, dtype)
    n = x.size
    _within(x.mean(), 0.0, math.sqrt(1 / n), "mean of N(0,1)")
    _within(x.var(), 1.0, math.sqrt(2 / n), "variance of N(0,1)")  # Var(s^2) = 2 sigma^4 / n
    p = math.erf(1 / math.sqrt(2))  # P(|x| < 1)
    _within((np.abs(x) < 1).mean(), p, math.sqrt(p * (1 - p) / n), "P(|x| < 1)")
    assert np.isfinite(x).all()


def test_manual_seed_reproducible(device):
    a = _sample("rand", device, seed=11)
    b = _sample("rand", device, seed=11)
    c = _sample("rand", device, seed=12)
    assert (a == b).all(), "the same seed must give the same values"
    assert (a != c).mean() > 0.99, "another seed must give other values"
    vkml.manual_seed(11)
    first = to_numpy(vkml.rand(64, device=device))
    second = to_numpy(vkml.rand(64, device=device))
    assert (first != second).mean() > 0.9, "successive draws must advance the generator"


@pytest.mark.parametrize("op", ["rand", "randn"])
def test_random_same_bits_across_devices(op, device):
    """The seed, not the device, decides the values: every device reproduces the CPU's bits for rand."""
    check_random(op, lambda lib, dev: getattr(lib, op)(13, 7, device=dev), device)
