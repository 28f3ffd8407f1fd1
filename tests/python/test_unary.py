"""Unary ops against torch on every device, input class and dtype."""

import numpy as np
import pytest
from helpers import case, check_op, matrix

UNARY = {
    "neg": lambda x: -x,
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "relu": lambda x: x.relu(),
    "abs": lambda x: x.abs(),
    "sign": lambda x: x.sign(),
    "exp2": lambda x: x.exp2(),
    "log2": lambda x: x.log2(),
    "floor": lambda x: x.floor(),
    "ceil": lambda x: x.ceil(),
    "trunc": lambda x: x.trunc(),
    "round": lambda x: x.round(),
    "rsqrt": lambda x: x.rsqrt(),
    "square": lambda x: x.square(),
    "reciprocal": lambda x: x.reciprocal(),
    "logical_not": lambda x: x.logical_not(),
    "bitwise_not": lambda x: ~x,
}
# log and sqrt of ordinary inputs stay in their real domain; nan from negative inputs is covered by the extreme class.
DOMAIN = {"log": "positive", "sqrt": "positive", "log2": "positive", "rsqrt": "positive"}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(UNARY))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], UNARY[op], device, cls, dtype, domain=DOMAIN.get(op, "normal"))


CASES = [
    case("exp", [(45, 65)], lambda x: x.exp()),
    case("exp", [(2, 3, 4)], lambda x, lib: lib.exp(x)),
    case("exp", [()], lambda x: x.exp()),
    case("exp", [(4096,)], lambda x: x.exp(), domain="unit"),
    case("exp", [np.linspace(-104.0, 89.0, 97)], lambda x: x.exp()),  # subnormal results, overflow to inf
    case("log", [(33, 17)], lambda x: x.log(), domain="positive"),
    case("log", [(2, 3, 4)], lambda x, lib: lib.log(x), domain="positive"),
    case("log", [(64,)], lambda x: x.log()),  # negative inputs give nan as in torch
    case("sqrt", [(33, 17)], lambda x: x.sqrt(), domain="positive"),
    case("sqrt", [(2, 3, 4)], lambda x, lib: lib.sqrt(x), domain="positive"),
    case("sqrt", [(64,)], lambda x: x.sqrt()),
    case("neg", [(45, 65)], lambda x: -x),
    case("neg", [(2, 3, 4)], lambda x, lib: lib.neg(x)),
    case("neg", [(2, 3, 4)], lambda x: x.neg(), dtype="int64"),
    case("relu", [(45, 65)], lambda x: x.relu()),
    case("relu", [(2, 3, 4)], lambda x, lib: lib.relu(x)),
    case("relu", [(6, 5)], lambda x: x.relu(), dtype="int32"),
    case("exp", [(6, 5)], lambda x: x.t().exp()),  # a transposed view, no copy asked for
    case("exp", [(6, 5)], lambda x: x[1:, ::2].exp()),
    case("exp", [(1, 5)], lambda x: x.expand(4, 5).exp()),
    case("neg", [(6, 5)], lambda x: x.relu().neg().relu()),  # a chain of exact unary ops in one graph
    case("sqrt", [np.array([0.0, -0.0, 1.0, 4.0, 2.0, 1e-40, 1e38, float("inf")])], lambda x: x.sqrt()),
    case("log", [np.array([0.0, -0.0, 1.0, 2.0, 1e-40, 1e38, float("inf"), -1.0])], lambda x: x.log()),
    case("neg", [(6, 5)], lambda x: -x.neg()),
    case("abs", [(6, 5)], lambda x, lib: abs(x) + lib.abs(x)),
    # round: ties go to even
    case("round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49999, 1e7 + 0.5])], lambda x: x.round()),
    case("sign", [np.array([0.0, -0.0, 2.0, -3.0, float("nan"), float("inf"), -float("inf")])], lambda x: x.sign()),
    case("rsqrt", [np.array([0.0, -0.0, 1.0, 4.0, -1.0, float("inf"), 1e-40])], lambda x: x.rsqrt()),
    case("log2", [np.array([0.0, 1.0, 2.0, 0.75, 1e-40, 1e38, float("inf"), -1.0])], lambda x: x.log2()),
    case("exp2", [np.linspace(-150.0, 128.0, 97)], lambda x: x.exp2()),  # subnormal results, overflow to inf
    case("reciprocal", [np.array([0.0, -0.0, 3.0, 1e-40, 1e38, float("inf")])], lambda x: x.reciprocal()),
    case("floor", [(6, 5)], lambda x: x.floor(), dtype="int32"),  # integers pass through as a copy
    case("square", [(6, 5)], lambda x: x.square(), dtype="bool"),  # bool squares to int64
]


@pytest.mark.parametrize("c", CASES)
def test_case(c, device):
    c.run(device)
