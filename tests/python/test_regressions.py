"""Regressions found by review, each checked on every device against torch: scalar handling in 16-bit arithmetic,
negating -2^63, sizes that overflow (errors, never panics), huge slice steps, setitem broadcasting, full overflow."""

import numpy as np
import pytest
import torch
import vkml
from helpers import DEVICES, op_row, ulp_of

HALF = [("float16", torch.float16, vkml.float16), ("bfloat16", torch.bfloat16, vkml.bfloat16)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("name", "tdt", "vdt"), HALF)
@pytest.mark.parametrize("expr", ["x * 0.1", "x / 0.1", "x * (1 / 3)", "x + 0.001", "0.1 - x"])
def test_16bit_arithmetic_keeps_python_scalars_at_f32(expr, name, tdt, vdt, device):
    """torch computes `f16 op python_float` with the scalar in f32 and rounds once; so must vkml (bit-exact)."""
    values = np.linspace(0.5, 100.0, 400, dtype=np.float32)
    want = eval(expr, {"x": torch.tensor(values).to(tdt)}).float().numpy()
    got = eval(expr, {"x": vkml.tensor(values, device=device).to(vdt)}).float().numpy()
    if expr.startswith("x / "):
        # Division's declared contract: its f32 ULP bound, plus one unit of the 16-bit type for the final rounding.
        tol = op_row("div")[1]["tolerance"]
        bound = tol["ulp"] * ulp_of(want, "float32") + ulp_of(want, name)
        assert np.all(np.abs(got - want) <= bound), f"{name} {expr} on {device}"
    else:
        assert np.array_equal(got, want), f"{name} {expr} on {device}: {np.sum(got != want)} values differ"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_subtracting_int64_min(dtype, device):
    want = (torch.tensor([1], dtype=getattr(torch, dtype)) - (-(2**63))).float().numpy()
    got = (vkml.tensor([1], dtype=getattr(vkml, dtype), device=device) - (-(2**63))).float().numpy()
    assert np.array_equal(got, want), f"{dtype} on {device}: {got} vs torch {want}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "make",
    [
        lambda d: vkml.zeros((2**32, 2**32), device=d),
        lambda d: vkml.zeros(0, device=d).reshape(2**32, 2**32),
        lambda d: vkml.arange(0, 2**62, device=d),
        lambda d: vkml.ones(1, device=d).expand(2**33, 2**33).sum(),
    ],
    ids=["zeros", "reshape", "arange", "expand-sum"],
)
def test_overflowing_sizes_raise_runtime_error(make, device):
    with pytest.raises(RuntimeError):
        make(device).numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_huge_slice_step(device):
    t = torch.arange(12.0).reshape(3, 4)[:: 2**62]
    v = vkml.arange(12.0, device=device).reshape(3, 4)[:: 2**62]
    assert tuple(v.shape) == tuple(t.shape) and np.array_equal(v.numpy(), t.numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_drops_leading_unit_dims(device):
    t, v = torch.zeros(3), vkml.zeros(3, device=device)
    t[:] = torch.ones(1, 3)
    v[:] = vkml.ones(1, 3, device=device)
    assert np.array_equal(v.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        vkml.zeros(3, device=device).copy_(vkml.ones(2, 3, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_values_that_do_not_fit_raise(device):
    for fn in (
        lambda: vkml.full((1,), 3e9, dtype=vkml.int32, device=device),
        lambda: vkml.full((1,), 1e6, dtype=vkml.float16, device=device),
        lambda: vkml.where(vkml.ones(2, device=device) > 0, vkml.ones(2, dtype=vkml.int32, device=device), 2**40),
    ):
        with pytest.raises(RuntimeError, match="without overflow"):
            fn().numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_subnormal_divided_by_a_tiny_normal(device):
    """fdiv's subnormal-dividend branch overflowed to inf for divisors below 2^-104 (found by the mutation
    campaign's tests): now within div's contract (flushing GPUs may give 0)."""
    from helpers import check_op

    a = np.array([1e-40, -1e-40, 1e-42, 3e-39, 1e-45], np.float32)
    b = np.array([1e-35, 1e-35, 2e-38, 1.5e-38, 3e-38], np.float32)
    check_op("div", [a, b], lambda x, y: x / y, device)


def test_assigning_an_empty_region_writes_the_base_whatever_the_pool_holds(device):
    """The gradient of a broadcast view with a size-0 dim assigns an empty region into zeros; on a GPU the assign
    shader took a size-0 dim's `% 0` for a match and read the empty value's buffer, which a warm pool had filled
    (found by tests/python/test_fuzz.py's gradient fuzz)."""
    for _ in range(3):
        junk = vkml.full((), 1.5, device=device)  # leaves a small buffer holding 1.5 in the pool
        vkml.realize(junk)
        del junk
        base = vkml.zeros(1, 3, 1, 5, device=device, requires_grad=True)
        base.expand(5, 3, 0, 5).ceil().backward(vkml.zeros(5, 3, 0, 5, device=device))
        assert base.grad.tolist() == [[[[0.0] * 5]] * 3]
