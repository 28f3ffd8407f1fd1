"""Vector norms (Tensor.norm, vkml.norm, vkml.linalg.vector_norm) against torch on every device, input class and
dtype: orders 2 ('fro'), 1, inf, -inf and 0 over one, several or all dims, forward and backward, and torch's errors."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

OPS = {"norm": lambda x: x.norm(dim=1)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], OPS[op], device, cls, dtype)


INF = float("inf")
CASES = [
    case("norm", [(4, 5, 6)], lambda x: x.norm()),
    case("norm", [(4, 5, 6)], lambda x: x.norm(p="fro", dim=(0, 2), keepdim=True)),
    case("norm", [(4, 5, 6)], lambda x, lib: lib.norm(x, p=1, dim=-1)),
    case("norm", [(4, 5, 6)], lambda x: x.norm(p=INF, dim=0)),
    case("norm", [(4, 5, 6)], lambda x: x.norm(p=-INF, dim=1)),
    case("norm", [np.array([[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]])], lambda x: x.norm(p=0, dim=1)),
    case("norm", [np.array([[0.0, 0.0], [3e30, 4e30], [3e-30, -4e-30]])], lambda x: x.norm(dim=1)),  # no overflow
    case("norm", [np.array([[np.inf, 1.0], [np.nan, 1.0]])], lambda x: x.norm(dim=1)),
    case("norm", [(4, 5)], lambda x, lib: lib.linalg.vector_norm(x, 2, dim=0)),
    case("norm", [(4, 5)], lambda x, lib: lib.linalg.vector_norm(x.t(), ord=1)),
    case("norm", [(0, 5)], lambda x: x.norm(dim=0)),
    case("norm", [()], lambda x: x.norm(dim=0)),  # a 0-d tensor's dim 0 (a panic before; found by the Node fuzz)
    case("norm", [()], lambda x: x.norm(p=INF, dim=-1, keepdim=True)),
    case("norm", [(64, 64)], lambda x: x.norm(), dtype="float16"),
    # General orders: (Σ|x|^p)^(1/p), as torch.
    case("norm", [(4, 5, 6)], lambda x: x.norm(p=3, dim=1)),
    case("norm", [(4, 5, 6)], lambda x, lib: lib.linalg.vector_norm(x, ord=0.5, dim=(0, 2))),
    case("norm", [(4, 5)], lambda x, lib: lib.linalg.vector_norm(x, ord=-1.5), domain="positive"),
    case("norm", [(32, 32)], lambda x: x.norm(p=4), dtype="bfloat16"),
]


test_case = each(CASES)


ERRORS = [
    error("norm", [(3, 4)], lambda x: x.norm(), RuntimeError, dtype="int64"),
    error("norm", [(3, 4)], lambda x: x.norm(dim=2), IndexError),
]


test_error = each(ERRORS)


GRADS = {
    "2": lambda x: x.norm(dim=1),
    "fro": lambda x: x.norm(),
    "1": lambda x: x.norm(p=1, dim=0),
    "inf": lambda x: x.norm(p=INF, dim=1),
    "3": lambda x: x.norm(p=3, dim=1),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast"])
@pytest.mark.parametrize("p", list(GRADS))
def test_grad(p, cls, dtype, device):
    check_grad("norm", [(4, 6)], GRADS[p], device, cls, dtype)
