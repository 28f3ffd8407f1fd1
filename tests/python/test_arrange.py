"""linspace, eye, masked_fill, roll, diagonal, diag and one_hot against torch on every device, input class and
dtype, with their gradients and errors."""

import numpy as np
import pytest
from coverage_matrix import cells
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


def _rows(cls):
    return 0 if cls == "empty" else 7


BUILD = {
    "linspace": lambda cls, dt: lambda lib, dev: (
        lib.linspace(-3e38, 3e38, 9, dtype=getattr(lib, dt), device=dev)
        if cls == "extreme"
        else lib.linspace(-2.5, 4.0, _rows(cls), dtype=getattr(lib, dt), device=dev)
    ),
    "eye": lambda cls, dt: lambda lib, dev: lib.eye(_rows(cls), 5, dtype=getattr(lib, dt), device=dev),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), cells(BUILD))
def test_creation_matrix(op, cls, dtype, device):
    check_op(op, [], BUILD[op](cls, dtype), device, cls, dtype)


MOVES = {
    "masked_fill": lambda x: x.masked_fill(x > 0, -1.5) if x.dtype.is_floating_point else x.masked_fill(x > 0, 3),
    "roll": lambda x: x.roll(2, 1),
    "diagonal": lambda x: x.diagonal(1),
    "diag": lambda x, lib: lib.diag(x),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(MOVES))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], MOVES[op], device, cls, dtype)


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix({"one_hot": None}))
def test_one_hot_matrix(op, cls, dtype, device):
    # Class indices from the input's values: |x| mod 4 for integers; other dtypes are refused as torch does.
    def f(x, lib):
        idx = x.abs().clamp(max=3) if x.dtype in (lib.int32, lib.int64) else x
        return lib.nn.functional.one_hot(idx, 4)

    check_op(op, [(5, 7)], f, device, cls, dtype, domain="positive")


LINES = [(0.0, 1.0, 5), (1.0, 0.0, 7), (-1.0, 1.0, 1), (2.0, 3.0, 0), (0.1, 0.7, 100), (-5.0, 5.0, 2), (1e-3, 1e3, 33)]

def lin(a, b, n, d):
    def f(lib, dev):
        return lib.linspace(a, b, n, dtype=getattr(lib, d), device=dev)

    f.__name__ = f"linspace({a}, {b}, {n}, {d})"
    return f


CASES = [
    *[
        case("linspace", [], lin(a, b, n, d))
        for a, b, n in LINES
        for d in ("float32", "float16", "bfloat16")
    ],
    case("linspace", [], lambda lib, dev: lib.linspace(-7, 9, 6, dtype=lib.int64, device=dev)),
    case("linspace", [], lambda lib, dev: lib.linspace(0, 1, 11, device=dev)),
    case("eye", [], lambda lib, dev: lib.eye(4, device=dev)),
    case("eye", [], lambda lib, dev: lib.eye(2, 6, dtype=lib.bool, device=dev)),
    case("masked_fill", [(4, 5)], lambda x, lib, dev: x.masked_fill(lib.tensor([1, 0, 1, 0, 0], device=dev) > 0, 2.0)),
    case("masked_fill", [(4, 5)], lambda x, lib: x.masked_fill(x < 0, lib.tensor(7.0))),
    case("masked_fill", [(4, 5)], lambda x: x.masked_fill(x < 0, float("-inf"))),
    case("roll", [(4, 5)], lambda x: x.roll(3)),  # over the flattened tensor
    case("roll", [(4, 5)], lambda x: x.roll((1, -2), (0, 1))),
    case("roll", [(4, 5)], lambda x, lib: lib.roll(x, -7, 0)),
    case("roll", [(0, 5)], lambda x: x.roll(1, 0)),
    case("diagonal", [(4, 5)], lambda x: x.diagonal(-2)),
    case("diagonal", [(3, 4, 5)], lambda x: x.diagonal(0, 0, 2)),
    case("diagonal", [(4, 5)], lambda x: x.diagonal(9)),  # past the edge: empty
    case("diagonal", [(4, 5)], lambda x: x.t().diagonal(1) * 2),  # a view of a view
    case("diag", [(5,)], lambda x: x.diag()),
    case("diag", [(5,)], lambda x: x.diag(2)),
    case("diag", [(5,)], lambda x: x.diag(-1), dtype="bool"),
    case("diag", [(4, 6)], lambda x: x.diag(-1)),
    case("one_hot", [np.array([0, 3, 1, 3])], lambda x, lib: lib.nn.functional.one_hot(x)),  # classes from the max
    case("one_hot", [np.zeros((2, 0), np.int64)], lambda x, lib: lib.nn.functional.one_hot(x, 3)),
]


test_case = each(CASES)


def one_hot3(x, lib):
    return lib.nn.functional.one_hot(x, 3)


ERRORS = [
    error("one_hot", [np.array([0, 5])], one_hot3, RuntimeError, match="smaller", dtype="int64"),
    error("one_hot", [np.array([0, -1])], one_hot3, RuntimeError, match="negative", dtype="int64"),
    error("one_hot", [(3,)], lambda x, lib: lib.nn.functional.one_hot(x, 3), RuntimeError, match="LongTensor"),
    error("masked_fill", [(3, 4)], lambda x: x.masked_fill(x, 1.0), RuntimeError, match="boolean"),
    error("masked_fill", [(3, 4)], lambda x, lib: x.masked_fill(x > 0, lib.ones(2)), RuntimeError, match="0-dim"),
    error("roll", [(3, 4)], lambda x: x.roll((1, 2), 0), RuntimeError, match="align"),
    error("diagonal", [(3,)], lambda x: x.diagonal(), IndexError, match="Dimension out of range"),  # as torch 2.11
    error("diag", [(2, 3, 4)], lambda x: x.diag(), RuntimeError, match="1D or 2D"),
    error("linspace", [], lambda lib, dev: lib.linspace(0, 1, -1, device=dev), RuntimeError, match="non-negative"),
]


test_error = each(ERRORS)


GRADS = {
    "masked_fill": ([(5, 7)], lambda x: x.masked_fill(x > 0.5, 2.0)),
    "roll": ([(5, 7)], lambda x: x.roll((1, 3), (0, 1))),
    "diagonal": ([(5, 7)], lambda x: x.diagonal(-1)),
    "diag": ([(6,)], lambda x: x.diag(1)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f = GRADS[op]
    check_grad(op, shapes, f, device, cls, dtype)
