"""torch's fixed-rank products (mm, bmm, addmm, outer, dot) and var/std against torch on every device, input class
and dtype, forward and backward, with their shape and dtype errors."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

OPS = {
    "mm": (lambda a, b, lib: lib.mm(a, b), [(6, 9), (9, 5)], {"empty": [(0, 9), (9, 5)]}),
    "bmm": (lambda a, b: a.bmm(b), [(3, 6, 9), (3, 9, 5)], {"empty": [(3, 0, 9), (3, 9, 5)]}),
    "dot": (lambda a, b, lib: lib.dot(a, b), [(17,), (17,)], {"empty": [(0,), (0,)]}),
    "outer": (lambda a, b: a.outer(b), [(6,), (5,)], {"empty": [(0,), (5,)]}),
    # addmm: the bias broadcast over rows; positive scalings, so |inputs| bound every term
    "addmm": (lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=2.0), [(5,), (6, 9), (9, 5)], {}),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    f, shapes, by_class = OPS[op]
    shapes = by_class.get(cls, shapes)
    if isinstance(dtype, tuple) and len(shapes) == 3:
        dtype = (*dtype, dtype[1])
    check_op(op, shapes, f, device, cls, dtype)


MOMENTS = {
    "var": lambda x: x.var(1),
    "std": lambda x, lib: lib.std(x, 0, keepdim=True),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(MOMENTS))
def test_moments_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], MOMENTS[op], device, cls, dtype)


CASES = [
    case("mm", [(33, 17), (9, 17)], lambda a, b: a.mm(b.t())),  # a transposed view
    case("bmm", [(2, 17, 33), (2, 17, 9)], lambda a, b: a.transpose(1, 2).bmm(b)),
    case("addmm", [(6, 5), (6, 9), (9, 5)], lambda c, a, b: c.addmm(a, b)),
    case("addmm", [(1, 5), (6, 9), (9, 5)], lambda c, a, b, lib: lib.addmm(c, a, b, alpha=-1.5)),
    # beta = 0 ignores the bias, nan and inf included
    case("addmm", [np.array([[np.nan, np.inf]]), (3, 4), (4, 2)], lambda c, a, b: c.addmm(a, b, beta=0.0)),
    case("addmm", [(6, 5), (6, 9), (9, 5)], lambda c, a, b: c.addmm(a, b), dtype="float16"),
    case("dot", [(1000,), (1000,)], lambda a, b: a.dot(b)),
    case("outer", [(4,), (3,)], lambda a, b: a.outer(b), dtype=("int32", "float32")),
    case("var", [(5, 7)], lambda x: x.var()),
    case("var", [(5, 7)], lambda x: x.var(unbiased=False)),
    case("var", [(5, 7)], lambda x: x.var(False)),
    case("var", [(4, 5, 6)], lambda x: x.var((0, 2), correction=2, keepdim=True)),
    case("var", [(1, 5)], lambda x: x.var(0)),  # N − correction = 0: inf or nan, as torch
    case("var", [(64, 3)], lambda x: x.var(0), domain="wide"),
    case("var", [np.full((50,), 1e4) + np.arange(50) * 1e-2], lambda x: x.var()),  # a large mean, a small spread
    case("std", [(5, 7)], lambda x: x.std()),
    case("std", [(4, 5, 6)], lambda x: x.std(-1, correction=0)),
    case("std", [(3, 8)], lambda x: x.t().std(1)),
]


test_case = each(CASES)


ERRORS = [
    error("mm", [(3, 4, 5), (5, 2)], lambda a, b: a.mm(b), RuntimeError, match="matrix"),
    error("mm", [(3, 4), (5, 2)], lambda a, b: a.mm(b), RuntimeError, match="cannot be multiplied"),
    error("bmm", [(2, 3, 4), (3, 4, 5)], lambda a, b: a.bmm(b), RuntimeError, match="batches"),
    error("bmm", [(3, 4), (4, 5)], lambda a, b: a.bmm(b), RuntimeError, match="3D"),
    error("dot", [(3,), (4,)], lambda a, b: a.dot(b), RuntimeError, match="size"),
    error("dot", [(3, 1), (3,)], lambda a, b: a.dot(b), RuntimeError, match="1D"),
    error("dot", [(3,), (3,)], lambda a, b: a.dot(b), RuntimeError, match="dtype", dtype=("float32", "float16")),
    error("outer", [(3, 2), (3,)], lambda a, b: a.outer(b), RuntimeError, match="vector"),
    error("var", [(3, 4)], lambda x: x.var(), RuntimeError, match="floating point", dtype="int64"),
    error("var", [(3, 4)], lambda x: x.var(unbiased=True, correction=1), RuntimeError, match="both"),
]


test_error = each(ERRORS)


GRADS = {
    "mm": ([(4, 5), (5, 3)], lambda a, b: a.mm(b)),
    "bmm": ([(2, 4, 5), (2, 5, 3)], lambda a, b: a.bmm(b)),
    "dot": ([(7,), (7,)], lambda a, b: a.dot(b)),
    "outer": ([(4,), (3,)], lambda a, b: a.outer(b)),
    "addmm": ([(3,), (4, 5), (5, 3)], lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=2.0)),
    "var": ([(5, 7)], lambda x: x.var(1)),
    "std": ([(5, 7)], lambda x: x.std(0)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f = GRADS[op]
    check_grad(op, shapes, f, device, cls, dtype)
