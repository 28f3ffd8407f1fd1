"""set_float32_matmul_precision: float32 products on float16 parts, held to the bound the core declares for each
precision (docs/matmul.md), on every device through the test hook that applies it without matrix units; forward,
gradients, non-finite values and the API as torch's."""

import numpy as np
import pytest
import torch
import vkml
from helpers import DEVICES

SPLIT = ("high", "medium")


@pytest.fixture
def split():
    """The hook on for the test, and the precision back to "highest" after it."""
    vkml._vkml._split_on_every_device(True)
    yield
    vkml._vkml._split_on_every_device(False)
    vkml.set_float32_matmul_precision("highest")


def gamma(n: int) -> float:
    u = 2.0**-24
    return n * u / (1 - n * u)


def allowed(a: np.ndarray, b: np.ndarray, precision: str) -> np.ndarray:
    """The declared bound of each output of a @ b (float64 arrays, batch dims broadcast)."""
    per_term, floor, least = vkml._vkml._precision_bound(precision)
    k = a.shape[-1] * (3 if precision == "high" else 1)
    mag = np.abs(a) @ np.abs(b)
    row = np.maximum(np.abs(a).max(axis=-1, keepdims=True), least)
    col = np.maximum(np.abs(b).max(axis=-2, keepdims=True), least)
    subnormal = floor * (row * np.abs(b).sum(axis=-2, keepdims=True) + col * np.abs(a).sum(axis=-1, keepdims=True))
    # The float32 accumulation of terms up to (1 + 2⁻⁹) times the exact ones, and a GPU's flushed subnormal output.
    return (per_term + gamma(k) * (1 + 2.0**-9)) * mag + subnormal + 2.0**-126


def product(a: np.ndarray, b: np.ndarray, device: str, transpose_b=False) -> np.ndarray:
    x = vkml.tensor(a, device=device)
    y = vkml.tensor(np.ascontiguousarray(b.swapaxes(-1, -2)) if transpose_b else b, device=device)
    if transpose_b:
        y = y.transpose(-1, -2)  # a strided operand
    return np.array((x @ y).tolist(), dtype=np.float64)


def operands(rng, sa, sb, spread: int):
    """Normal values, each row of a and column of b scaled by its own power of two in [2^-spread, 2^spread]."""
    a = rng.standard_normal(sa) * np.exp2(rng.integers(-spread, spread + 1, sa[:-1] + (1,)))
    b = rng.standard_normal(sb) * np.exp2(rng.integers(-spread, spread + 1, sb[:-2] + (1,) + sb[-1:]))
    return a.astype(np.float32), b.astype(np.float32)


SHAPES = [((64, 48), (48, 32)), ((33, 17), (17, 9)), ((3, 16, 32), (32, 16)), ((2, 1, 16, 16), (3, 16, 16))]


@pytest.mark.parametrize("precision", SPLIT)
@pytest.mark.parametrize(("sa", "sb"), SHAPES)
@pytest.mark.parametrize("spread", [0, 60])
@pytest.mark.parametrize("device", DEVICES)
def test_within_the_declared_bound(precision, sa, sb, spread, device, split):
    """Each output within its bound of the exact product; rows and columns of scales 2^-60..2^60 apart included (one
    float16 scale for the whole operand would lose them); b read transposed too."""
    rng = np.random.default_rng(len(sa) * 7 + spread)
    a, b = operands(rng, sa, sb, spread)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = allowed(a.astype(np.float64), b.astype(np.float64), precision)
    vkml.set_float32_matmul_precision(precision)
    for transpose_b in (False, True):
        got = product(a, b, device, transpose_b)
        err = np.abs(got - exact)
        assert np.all(err <= bound), f"{precision} {device}: worst {np.max(err / bound):.3g} of the bound"


@pytest.mark.parametrize("device", DEVICES)
def test_the_precision_takes_effect(device, split):
    """medium rounds each operand to 11 significant bits: its product differs from float32's and lies outside
    float32's own bound somewhere, while "highest" gives float32's bytes (so the split cannot silently be skipped)."""
    rng = np.random.default_rng(5)
    a, b = operands(rng, (32, 64), (64, 32), 0)
    x, y = vkml.tensor(a, device=device), vkml.tensor(b, device=device)
    full = np.array((x @ y).tolist())
    vkml.set_float32_matmul_precision("medium")
    medium = np.array((x @ y).tolist())
    vkml.set_float32_matmul_precision("highest")
    again = np.array((x @ y).tolist())
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.array_equal(full, again)
    assert np.any(np.abs(medium - full) > 2 * gamma(64) * mag)


@pytest.mark.parametrize("device", DEVICES)
def test_matrix_units_without_the_hook(device):
    """Without the hook, a device with float16 matrix units splits products whose dims are multiples of 16 (within
    the bound, unlike float32's bytes) and keeps float32 for the others; a device without them (the CPU devices,
    lavapipe) keeps float32 products in every precision, as torch keeps them where it has no TF32."""
    rng = np.random.default_rng(6)
    a, b = operands(rng, (32, 64), (64, 48), 0)
    x, y = vkml.tensor(a, device=device), vkml.tensor(b, device=device)
    full, odd = np.array((x @ y).tolist()), np.array((x[:, :63] @ y[:63]).tolist())
    units = x.device.f16_matrix_units
    try:
        for precision in SPLIT:
            vkml.set_float32_matmul_precision(precision)
            got = np.array((x @ y).tolist())
            assert np.array_equal(np.array((x[:, :63] @ y[:63]).tolist()), odd), f"{device}: K = 63 was split"
            assert np.array_equal(got, full) != units, f"{device} {precision}: units {units}"
            err = np.abs(got - a.astype(np.float64) @ b.astype(np.float64))
            assert np.all(err <= allowed(a.astype(np.float64), b.astype(np.float64), precision))
    finally:
        vkml.set_float32_matmul_precision("highest")


@pytest.mark.parametrize("precision", SPLIT)
@pytest.mark.parametrize("device", DEVICES)
def test_non_finite_as_float32(precision, device, split):
    """An infinity or NaN gives float32's infinities and NaNs at the same places (a remainder of inf − inf would
    have made NaN of every infinity), zero rows stay zero, and the rest of the product is unharmed."""
    a = np.ones((16, 16), np.float32)
    b = np.full((16, 16), 0.5, np.float32)
    a[0, 3], a[1, 5], a[2, :] = np.inf, np.nan, 0.0
    b[3, 7], b[4, 9] = -np.inf, 0.0
    a[5, 4] = 3.0e38  # a row near float32's top: its scale is 2^-114
    want = (torch.tensor(a) @ torch.tensor(b)).double().numpy()
    vkml.set_float32_matmul_precision(precision)
    got = product(a, b, device)
    same = (np.isnan(got) == np.isnan(want)) & (np.isposinf(got) == np.isposinf(want))
    assert np.all(same & (np.isneginf(got) == np.isneginf(want))), f"{precision} {device}"
    finite = np.isfinite(want)  # outputs no infinity or NaN reaches: those elements count as zero in their bound
    clean = [np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0) for v in (a, b)]
    bound = allowed(*clean, precision)
    assert np.all(np.abs(got[finite] - want[finite]) <= bound[finite])


@pytest.mark.parametrize("precision", SPLIT)
@pytest.mark.parametrize("device", DEVICES)
def test_gradients_follow_the_precision(precision, device, split):
    """The gradients are products too, in the same precision (torch's TF32 applies to backward as well): each
    within the bound of g·bᵀ and aᵀ·g for the upstream gradient g."""
    rng = np.random.default_rng(8)
    a, b = operands(rng, (24, 32), (32, 16), 4)
    g = rng.standard_normal((24, 16)).astype(np.float32)
    vkml.set_float32_matmul_precision(precision)
    x = vkml.tensor(a, device=device, requires_grad=True)
    y = vkml.tensor(b, device=device, requires_grad=True)
    (x @ y).backward(vkml.tensor(g, device=device))
    a64, b64, g64 = a.astype(np.float64), b.astype(np.float64), g.astype(np.float64)
    for got, (p, q) in ((x.grad, (g64, b64.T)), (y.grad, (a64.T, g64))):
        err = np.abs(np.array(got.tolist()) - p @ q)
        assert np.all(err <= allowed(p, q, precision)), f"{precision} {device}"


@pytest.mark.parametrize("device", DEVICES)
def test_same_bytes_every_run(device, split):
    rng = np.random.default_rng(9)
    a, b = operands(rng, (48, 32), (32, 48), 20)
    for precision in SPLIT:
        vkml.set_float32_matmul_precision(precision)
        first, second = (product(a, b, device) for _ in range(2))
        assert np.array_equal(first, second), precision


def test_api_as_torch():
    """Torch's names and default; an int is refused with torch's RuntimeError; a misspelt name, which torch only
    warns about and ignores, is refused."""
    assert vkml.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        for name in ("high", "medium", "highest"):
            vkml.set_float32_matmul_precision(name)
            assert vkml.get_float32_matmul_precision() == name
        with pytest.raises(RuntimeError, match="expects a str, but got int"):
            vkml.set_float32_matmul_precision(3)
        with pytest.raises(RuntimeError, match="expects a str, but got int"):
            torch.set_float32_matmul_precision(3)
        vkml.set_float32_matmul_precision("medium")
        with pytest.raises(ValueError, match="'highest', 'high' or 'medium', got 'HIGH'"):
            vkml.set_float32_matmul_precision("HIGH")
        assert vkml.get_float32_matmul_precision() == "medium"
    finally:
        vkml.set_float32_matmul_precision("highest")
