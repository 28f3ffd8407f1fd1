"""sort, argsort and topk against torch on every device, input class and dtype: values and positions (torch's stable
order, NaN last, -0 equal to +0), gradients through the values, and torch's errors."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

OPS = {
    # stable=True: ties keep their order in torch too, so the positions compare exactly.
    "sort": lambda x: x.sort(dim=1, stable=True),
    "argsort": lambda x, lib: lib.argsort(x, dim=0, descending=True, stable=True),
    # Values only: torch's topk orders equal values as it likes.
    "topk": lambda x: x.topk(min(3, x.shape[1]), 1).values,
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], OPS[op], device, cls, dtype)


NAN, INF = np.nan, np.inf
GRID = np.array([[2.0, -1.0, 2.0, NAN, -0.0, 0.0, -1.0, INF], [NAN, 1.0, -INF, 1.0, 3.0, NAN, 0.0, -0.0]])

CASES = [
    case("sort", [GRID], lambda x: x.sort(stable=True)),  # ties, NaN, infinities, signed zeros
    case("sort", [GRID], lambda x: x.sort(dim=1, descending=True, stable=True)),
    case("sort", [(4, 5, 6)], lambda x: x.sort(dim=0, stable=True)),
    case("sort", [(4, 5, 6)], lambda x, lib: lib.sort(x.transpose(0, 2), dim=1, descending=True, stable=True)),
    case("sort", [(300,)], lambda x: x.sort(stable=True), domain="grid"),  # a long row of few values
    case("sort", [()], lambda x: x.sort()),
    case("sort", [(3, 0)], lambda x: x.sort(0)),
    case("argsort", [GRID], lambda x: x.argsort(dim=1, stable=True)),
    case("argsort", [(6, 9)], lambda x: x.argsort(stable=True), dtype="int64", domain="grid"),
    case("argsort", [(6, 9)], lambda x: x.argsort(dim=0, stable=True), dtype="bool"),
    case("sort", [(6, 4)], lambda x: x.msort()),
    case("topk", [(6, 9)], lambda x: x.topk(4)),  # float32 normal values: distinct, so positions compare
    case("topk", [(6, 9)], lambda x: x.topk(2, 0, largest=False)),
    case("topk", [(6, 9)], lambda x, lib: lib.topk(x, 9, dim=1)),
    case("topk", [(6, 9)], lambda x: x.topk(0)),
    case("topk", [GRID], lambda x: x.topk(3).values),
]


test_case = each(CASES)


ERRORS = [
    error("topk", [(3, 4)], lambda x: x.topk(5), RuntimeError, match="out of range"),
    error("topk", [(3, 4)], lambda x: x.topk(-1), RuntimeError, match="out of range"),
    error("sort", [(3, 4)], lambda x: x.sort(2), IndexError),
]


test_error = each(ERRORS)


GRADS = {
    "sort": lambda x: x.sort(1, descending=True).values,
    "topk": lambda x: x.topk(3, 0).values,
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shape = (6, 7) if not (op == "topk" and cls == "empty") else (3, 0)
    check_grad(op, [shape], GRADS[op], device, cls, dtype)


def test_randomly_ordered_rows_come_back_sorted(device):
    """A long row (the kernel's n² comparisons) of a permutation sorts to 0..n−1 with the inverse positions."""
    import vkml

    rng = np.random.default_rng(3)
    perm = rng.permutation(2000)
    v, i = vkml.tensor(perm.astype(np.float32), device=device).sort()
    np.testing.assert_array_equal(v.numpy(), np.arange(2000, dtype=np.float32))
    np.testing.assert_array_equal(i.numpy(), np.argsort(perm))
