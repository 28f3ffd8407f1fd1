"""Reductions (sum mean amax max argmax amin min argmin all any) against torch: dims, keepdim, negative dims,
empty inputs, input classes and dtypes."""

import numpy as np
import pytest
import vkml
from gradcheck import check_grad
from helpers import case, check_op, check_pipeline, each, error, matrix

REDUCE = {
    "sum": lambda x: x.sum(dim=1),
    "mean": lambda x: x.mean(dim=0),
    "amax": lambda x: x.amax(dim=1),
    "max": lambda x: x.max(dim=1),  # (values, indices)
    "argmax": lambda x: x.argmax(dim=1),
    "amin": lambda x: x.amin(dim=1),
    "min": lambda x: x.min(dim=1),  # (values, indices)
    "argmin": lambda x: x.argmin(dim=1),
    "all": lambda x: x.all(dim=1),
    "any": lambda x: x.any(dim=0),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(REDUCE))
def test_matrix(op, cls, dtype, device):
    # Few distinct values for max and argmax, so ties happen and the first index must win, as in torch.
    grid = op in ("max", "argmax", "min", "argmin", "all", "any")
    check_op(op, [(5, 7)], REDUCE[op], device, cls, dtype, domain="grid" if grid else "normal")


CASES = [
    # one, several and all dims; keepdim; negative dims; functional forms
    case("sum", [(45, 65)], lambda x: x.sum()),
    case("sum", [(3, 4, 5, 6)], lambda x: x.sum(dim=(1, 3), keepdim=True)),
    case("sum", [(3, 4, 5)], lambda x: x.sum(dim=-1)),
    case("sum", [(3, 4, 5)], lambda x: x.sum(dim=(0, -1))),
    case("sum", [(3, 4, 5)], lambda x: x.sum(dim=(0, 1, 2), keepdim=True)),
    case("sum", [(3, 4, 5)], lambda x: x.sum(1, True)),
    case("sum", [(3, 4, 5)], lambda x, lib: lib.sum(x, dim=1)),
    case("sum", [(4096,)], lambda x: x.sum()),
    case("sum", [(7, 300)], lambda x: x.sum(dim=1), dtype="float16"),
    case("sum", [(7, 300)], lambda x: x.sum(dim=0), dtype="bfloat16"),
    case("sum", [(5, 6)], lambda x: x.sum(), dtype="int32"),  # -> int64, as torch
    case("sum", [(5, 6)], lambda x: x.sum(dim=0), dtype="bool"),  # -> int64
    case("sum", [()], lambda x: x.sum()),
    case("sum", [()], lambda x: x.sum(dim=0)),
    case("sum", [(0, 5)], lambda x: x.sum()),  # the sum of nothing is 0
    case("sum", [(0, 5)], lambda x: x.sum(dim=0)),
    case("sum", [(0, 5)], lambda x: x.sum(dim=1, keepdim=True)),
    case("sum", [(6, 5)], lambda x: x.t().sum(dim=1)),
    case("sum", [(6, 5)], lambda x: x[1::2, ::2].sum(dim=0)),
    case("sum", [(300, 5)], lambda x: x.sum(dim=0), "broadcast"),  # a stride-0 reduction axis (1, 5) -> (300, 5)
    case("mean", [(45, 65)], lambda x: x.mean()),
    case("mean", [(3, 4, 5, 6)], lambda x: x.mean(dim=(1, 3), keepdim=True)),
    case("mean", [(3, 4, 5)], lambda x: x.mean(dim=-2)),
    case("mean", [(3, 4, 5)], lambda x, lib: lib.mean(x, dim=(0, 2))),
    case("mean", [(7, 300)], lambda x: x.mean(dim=1), dtype="float16"),
    case("mean", [(0, 5)], lambda x: x.mean()),  # nan, as torch
    case("mean", [(0, 5)], lambda x: x.mean(dim=0)),
    case("amax", [(45, 65)], lambda x: x.amax()),
    case("amax", [(3, 4, 5, 6)], lambda x: x.amax(dim=(1, 3), keepdim=True)),
    case("amax", [(3, 4, 5)], lambda x: x.amax(dim=-1)),
    case("amax", [(3, 4, 5)], lambda x, lib: lib.amax(x, dim=(0, 1))),
    case("amax", [(5, 6)], lambda x: x.amax(dim=0), dtype="int64"),
    case("amax", [(5, 6)], lambda x: x.amax(), dtype="bool"),
    case("amax", [(0, 5)], lambda x: x.amax(dim=1)),  # reducing a non-empty dim of an empty tensor is fine
    case("max", [(45, 65)], lambda x: x.max()),
    case("max", [(3, 4, 5)], lambda x: x.max(dim=1)),
    case("max", [(3, 4, 5)], lambda x: x.max(dim=-1, keepdim=True)),
    case("max", [(3, 4, 5)], lambda x: x.max(1).values),
    case("max", [(3, 4, 5)], lambda x: x.max(1).indices, domain="grid"),
    case("max", [(3, 4, 5)], lambda x: x.max(2, True), dtype="int32", domain="grid"),
    case("max", [(0, 5)], lambda x: x.max(dim=1)),
    case("max", [(6, 5)], lambda x: x.t().max(dim=1), domain="grid"),
    case("argmax", [(45, 65)], lambda x: x.argmax()),
    case("argmax", [(3, 4, 5)], lambda x: x.argmax(dim=-1)),
    case("argmax", [(3, 4, 5)], lambda x: x.argmax(dim=1, keepdim=True), domain="grid"),
    case("argmax", [(3, 4, 5)], lambda x, lib: lib.argmax(x, dim=0), domain="grid"),
    case("argmax", [(3, 4, 5)], lambda x: x.argmax(dim=2), dtype="int64"),
    case("argmax", [(6, 5)], lambda x: x[::2].t().argmax(dim=1), domain="grid"),
    case("argmax", [(0, 5)], lambda x: x.argmax(dim=1)),
    case("argmax", [np.array([[1.0, float("nan"), 3.0, float("nan")], [2.0, 2.0, -1.0, 0.0]])], lambda x: x.argmax(1)),
    case("max", [np.array([[1.0, float("nan"), 3.0], [-0.0, 0.0, -1.0]])], lambda x: x.max(dim=1)),
    case("sum", [np.array([1e38, 1e38, -1e38, 1.0, float("inf")])], lambda x: x.sum()),
    # where torch rejects an empty reduction, vkml raises the same kind of error
    error("amax", [(0, 5)], lambda x: x.amax(), RuntimeError),
    error("amax", [(0, 5)], lambda x: x.amax(dim=0), IndexError),
    error("max", [(0, 5)], lambda x: x.max(), RuntimeError),
    error("argmax", [(0, 5)], lambda x: x.argmax(), IndexError),
    error("argmax", [(0, 5)], lambda x: x.argmax(dim=0), IndexError),
    error("sum", [(3, 4)], lambda x: x.sum(dim=2), IndexError),
    error("sum", [(3, 4)], lambda x: x.sum(dim=-3), IndexError),
    error("sum", [(3, 4)], lambda x: x.sum(dim=(0, 0)), RuntimeError),
    error("mean", [(3, 4)], lambda x: x.mean(), RuntimeError, dtype="int32"),
    error("argmax", [(3, 4)], lambda x: x.argmax(), (RuntimeError, TypeError), dtype="bool"),
    case("amin", [(3, 4, 5)], lambda x: x.amin(dim=(0, 2), keepdim=True)),
    case("min", [(45, 65)], lambda x: x.min()),
    case("argmin", [(45, 65)], lambda x: x.argmin()),
    case("argmin", [np.array([[1.0, float("nan"), 0.0, float("nan")], [2.0, 1.0, 1.0, 5.0]])], lambda x: x.argmin(1)),
    case("all", [(3, 4)], lambda x: x.all()),
    case("any", [(3, 4)], lambda x: x.any(dim=1, keepdim=True), dtype="int32"),
    case("all", [(0, 4)], lambda x: x.all(dim=0)),  # the reduction of nothing: True
    case("any", [(0, 4)], lambda x: x.any()),  # False
    # Long reductions over few rows run in chunks of 16,384, the rest as one more partial, then over the partials:
    # past the split size (2**15), with a tail, in several dtypes, NaN included.
    case("sum", [(70001,)], lambda x: x.sum()),
    case("sum", [(3, 70001)], lambda x: x.sum(dim=1), dtype="float16"),
    case("sum", [(300, 300)], lambda x: x.sum(), dtype="int32"),
    case("sum", [(2, 65536)], lambda x: x.sum(dim=1), dtype="bool"),
    case("sum", [(70001, 2)], lambda x: x.sum(dim=0), "strided"),
    case("mean", [(70001, 2)], lambda x: x.mean(dim=0)),
    case("amax", [(70001,)], lambda x: x.amax()),
    case("amin", [(3, 70001)], lambda x: x.amin(dim=1), dtype="bfloat16"),
    case("max", [(300, 300)], lambda x: x.max()),
    case("amax", [np.where(np.arange(70001) == 69999, np.nan, np.linspace(-1, 1, 70001))], lambda x: x.amax()),
    # contiguous float32 rows, read four at a time on a GPU (shaders/reduce_flat.wgsl): whole vectors, heads before
    # the first multiple of four and tails of 1 to 3, ties (the first index wins), views.
    case("sum", [(3, 133)], lambda x: x.sum(dim=1)),  # rows from elements 0, 133, 266: heads of 0, 3 and 2
    case("sum", [(1, 4099)], lambda x: x.sum(dim=-1)),
    case("sum", [(3, 136)], lambda x: x[:, :133].sum(dim=-1)),
    case("mean", [(4, 1030)], lambda x: x.mean(dim=1)),
    case("amax", [(3, 135)], lambda x: x.amax(dim=1), domain="grid"),
    case("argmax", [(5, 513)], lambda x: x.argmax(dim=1), domain="grid"),
    case("amin", [(3, 134)], lambda x: x.amin(dim=1), domain="grid"),
    case("argmin", [(4, 1027)], lambda x: x.argmin(dim=1), domain="grid"),
    case("min", [(2, 2000)], lambda x: x.min(dim=1), domain="grid"),
    case("sum", [(5, 136)], lambda x: x[1:, 4:].sum(dim=1)),
    case("amax", [(4, 8, 40)], lambda x: x[1:, :6, 3:].amax(dim=-1)),  # kept dims that merge into two, not one
    case(
        "argmin", [(3, 5, 7, 36)], lambda x: x[:, 1:, ::2].argmin(dim=-1), domain="grid"
    ),  # three: generic  # rows of 132 from element 140: still aligned
    case("amax", [(5, 137)], lambda x: x[:, 1:].amax(dim=1)),
    case("amax", [(33, 40)], lambda x: x.t().amax(dim=0)),  # rows along a strided dim: the generic kernel
    case(
        "argmax",
        [np.where(np.isin(np.arange(300), [70, 75, 299]), np.nan, np.arange(300.0))[None]],
        lambda x: x.argmax(dim=1),
    ),
    case("amin", [np.where(np.arange(300) == 201, np.nan, -np.arange(300.0))[None]], lambda x: x.amin(dim=1)),
    # Columns: 1,024 or more outputs side by side, each one's 33 to 8,192 elements a row apart, take a workgroup per
    # 8 outputs on a GPU, sixteen invocations to an output (the last group part full); ties and NaN by index.
    case("sum", [(300, 1030)], lambda x: x.sum(dim=0)),
    case("mean", [(45, 1027)], lambda x: x.mean(dim=0), dtype="float16"),
    case("sum", [(40, 1030)], lambda x: x.sum(dim=0), dtype="int32"),
    case("sum", [(33, 1029)], lambda x: x.sum(dim=0), dtype="bool"),
    case("sum", [(3, 40, 100)], lambda x: x.sum(dim=1)),  # kept dims that merge into two: the generic path
    case("amax", [(1100, 1025)], lambda x: x.amax(dim=0), domain="grid"),
    case("argmax", [(40, 1030)], lambda x: x.argmax(dim=0), domain="grid"),
    case("min", [(37, 1030)], lambda x: x.min(dim=0), domain="grid"),
    case("argmin", [np.where((np.arange(40 * 1030) % 7 == 3).reshape(40, 1030), np.nan, 1.0)], lambda x: x.argmin(0)),
    case("sum", [(12, 1030, 2)], lambda x: x[:, :, 0].sum(dim=0)),  # outputs two apart: the generic path
    # Reduced dims that end the shape go first, on their own, when others precede a kept dim (a conv's bias
    # gradient over N, H and W): sums and extrema, keepdim, a stage too short to take on its own.
    case("sum", [(6, 5, 4, 3)], lambda x: x.sum(dim=(0, 2, 3))),
    case("sum", [(3, 4, 5, 9)], lambda x: x.sum(dim=(1, 3), keepdim=True)),
    case("mean", [(40, 3, 5, 7)], lambda x: x.mean(dim=(0, 2, 3)), dtype="float16"),
    case("sum", [(4, 3, 2, 3)], lambda x: x.sum(dim=(0, 2, 3)), dtype="int32"),
    case("amax", [(6, 5, 4, 3)], lambda x: x.amax(dim=(0, 2, 3), keepdim=True), domain="grid"),
    case("amin", [(6, 5, 4, 3)], lambda x: x.amin(dim=(0, 3))),
    case("sum", [(6, 5, 2, 3)], lambda x: x.sum(dim=(0, 3))),  # 3 trailing elements: one pass
    case("sum", [(6, 5, 4, 3)], lambda x: x.transpose(0, 1).sum(dim=(0, 2, 3))),  # not contiguous: one pass
]


test_case = each(CASES)


def test_long_reductions_keep_gradients(device):
    """A split sum's gradient is the single pass's; amax with history is not split (its gradient divides among
    ties, which chunks would divide per chunk)."""
    check_grad("sum", [(3, 70001)], lambda x: x.sum(dim=1), device)
    check_grad("amax", [np.round(np.linspace(-3, 3, 70001))], lambda x: x.amax(), device)


def test_long_sums_are_exact_where_torch_is(device):
    """2**25 ones sum to 2**25 and average 1 on every device (the CPU summed one by one in float32: 2**24 and 0.5,
    issue #20)."""
    x = vkml.ones(2**25, device=device)
    assert x.sum().item() == 2**25 and x.mean().item() == 1.0
    assert vkml.ones(3, 2**23 + 8, device=device).sum(dim=1).tolist() == [2**23 + 8] * 3


def test_the_cpu_oracle_sums_within_a_rounding_of_exact():
    """A row just short of the split (32,767 values of float32(0.1)): the CPU accumulates in float64 and rounds once."""
    x = np.full(32767, 0.1, np.float32)
    exact = np.float32(x.astype(np.float64).sum())
    assert vkml.tensor(x).sum().item() == exact


@pytest.mark.parametrize(
    ("shape", "view", "pipeline"),
    [
        ((3, 133), lambda x: x, "reduce_flat"),
        ((5, 136), lambda x: x[1:, 4:], "reduce_flat"),
        ((5, 137), lambda x: x[:, 1:], "reduce_flat"),
        ((3, 20), lambda x: x, "reduce"),
        ((40, 33), lambda x: x.t(), "reduce"),
        ((6, 9, 40), lambda x: x[:, :5], "reduce_flat"),
    ],
)
def test_contiguous_float32_rows_take_the_vector_kernel(shape, view, pipeline, device):
    """The cases above reach the kernel they are meant for on a GPU, the floor included (rows of at most 32 take one
    invocation each); the CPU has one."""
    x = view(vkml.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), device=device))
    vkml.realize(x)
    check_pipeline(device, lambda: x.sum(dim=-1).numpy(), "sum", pipeline)


def test_signed_zero_extrema_keep_the_first(device):
    """A row whose extremum is zero, both signs present, gives the first zero's sign on every device, as the CPU
    oracle does (torch's own kernels differ by path here: its CPU amax gave +0 for this row and -0 for [-0, +0])."""
    head, tail = [-1.0] * 7, [-2.0] * 90 + [-3.0] * 40
    rows = np.array([head + [-0.0] + tail[:90] + [0.0] + tail[90:], head + [0.0] + tail[:90] + [-0.0] + tail[90:]])
    x = vkml.tensor(rows.astype(np.float32), device=device)
    assert np.signbit(x.amax(dim=1).numpy()).tolist() == [True, False]
    assert np.signbit((-x).amin(dim=1).numpy()).tolist() == [False, True]
    assert x.argmax(dim=1).tolist() == [7, 7] and (-x).argmin(dim=1).tolist() == [7, 7]


@pytest.mark.parametrize(
    ("shape", "dims", "ops"),
    [
        ((64, 8, 64, 64), (0, 2, 3), ["sum", "sum"]),  # long enough to split: no contiguous copy first
        ((256, 32, 6, 6), (0, 2, 3), ["sum", "sum"]),
        ((6, 5, 3, 3), (0, 2, 3), ["sum", "sum"]),
        ((6, 5, 2, 3), (0, 2, 3), ["sum"]),  # six trailing elements: one pass
        ((6, 5, 2, 3), (0, 3), ["sum"]),
    ],
)
def test_trailing_reduced_dims_go_first(shape, dims, ops, device):
    """A sum over N, H and W is a sum of rows over H·W, then one over N: two kernels on every device, where a
    permuted view took one pass of strided reads, or a contiguous copy and a split into chunks (seven kernels for a
    conv's bias gradient at batch 256). Fewer than eight trailing elements stay one pass."""
    x = vkml.tensor(np.ones(shape, dtype=np.float32), device=device)
    vkml.realize(x)
    with vkml.profile() as p:
        s = x.sum(dim=dims)
        vkml.realize(s)
    assert [k["op"] for k in p.kernels] == ops, p.kernels
    assert s.tolist() == np.ones(shape).sum(axis=dims).tolist()
