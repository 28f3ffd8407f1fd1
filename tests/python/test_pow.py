"""pow (`**`, `torch.pow`, `pow_`, `**=`) against torch on every device, input class and dtype, forward and backward:
IEEE's special values, results across the whole float32 range (where Vulkan's own pow drifts by hundreds of ulp),
negative bases with integer exponents, Python scalars on either side, integer powers (torch's powi, wrapping) and
torch's errors."""

import numpy as np
import pytest
from gradcheck import check_grad, grad_case
from helpers import case, check_op, each, error, matrix


def POW(a, b):
    return a**b


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(["pow"]))
def test_pow_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7), (5, 7)], POW, device, cls, dtype, domain="positive")


SPECIAL = [0.0, -0.0, 1e-40, -1e-40, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 2.5, -7.0, 1e30, -3e38]
SPECIAL += [float("inf"), -float("inf"), float("nan")]
A, B = (v.ravel() for v in np.meshgrid(np.array(SPECIAL, np.float32), np.array(SPECIAL, np.float32)))
rng = np.random.default_rng(3)
# Results from the subnormals to the largest floats: |y·log2 x| up to about 150, where every bit of log2 x counts.
WIDE_X = np.exp(rng.uniform(-80.0, 80.0, 2000)).astype(np.float32)
WIDE_Y = (rng.uniform(-1.5, 1.5, 2000) * 88.0 / np.maximum(np.abs(np.log(WIDE_X)), 1.0)).astype(np.float32)
NEAR_ONE = (1.0 + rng.uniform(-1e-3, 1e-3, 1000)).astype(np.float32)
HUGE_Y = (np.exp(rng.uniform(0.0, 11.0, 1000)) * rng.choice([-1.0, 1.0], 1000)).astype(np.float32)
NEG_X = -rng.uniform(0.1, 6.0, 500).astype(np.float32)
INT_Y = rng.integers(-40, 41, 500).astype(np.float32)

CASES = [
    case("pow", [A, B], POW),
    case("pow", [WIDE_X, WIDE_Y], POW),
    case("pow", [NEAR_ONE, HUGE_Y], POW),
    case("pow", [NEG_X, INT_Y], POW),
    case("pow", [(4, 5)], lambda a: a**2),
    case("pow", [(4, 5)], lambda a: a**3),
    case("pow", [(4, 5)], lambda a: a**0.5, domain="positive"),
    case("pow", [(4, 5)], lambda a: a**-1.5, domain="positive"),
    case("pow", [(4, 5)], lambda a: 2**a),
    case("pow", [(4, 5)], lambda a: 0.5**a),
    case("pow", [(4, 5)], lambda a, lib: lib.pow(a, 3)),
    case("pow", [(4, 5)], lambda a: a.pow(-2)),
    case("pow", [(4, 5), (5,)], POW, domain="positive"),  # broadcast
    case("pow", [(4, 5)], lambda a: a.pow_(2.5), domain="positive"),
    case("pow", [(4, 5)], lambda a: a.clone().__ipow__(3)),
    # A Python scalar takes a 16-bit tensor's dtype before the power, as torch rounds it.
    case("pow", [(4, 5)], lambda a: a**2.3, dtype="float16", domain="positive"),
    case("pow", [(4, 5)], lambda a: 2.3**a, dtype="bfloat16"),
    # Integers: torch's powi (negative exponents give 0 unless the base is ±1), wrapping on overflow.
    case("pow", [np.array([2, -3, 0, 1, -1, 5]), np.array([10, 3, 0, -4, -3, -1])], POW, dtype="int64"),
    case("pow", [np.array([2, -3, 0, 1, -1, 5]), np.array([10, 3, 0, -4, -3, -1])], POW, dtype="int32"),
    case("pow", [(4, 5), (4, 5)], POW, dtype=("int32", "float16")),
    case("pow", [np.array([3, -3, 7])], lambda a: a**25, dtype="int32"),
    case("pow", [np.array([3, -3, 7])], lambda a: a**41, dtype="int64"),
    case("pow", [np.array([2, 3])], lambda a: 2**a, dtype="int64"),
    case("pow", [np.array([2, 3])], lambda a: a**2.5, dtype="int64"),
]


test_case = each(CASES)


ERRORS = [
    error("pow", [np.array([True, False])], lambda a: a**a, NotImplementedError, match="Bool", dtype="bool"),
    error("pow", [np.array([2, 3])], lambda a: a**-1, RuntimeError, match="negative integer powers", dtype="int64"),
    error("pow", [np.array([2, 3])], lambda a: a.pow_(0.5), RuntimeError, match="can't be cast", dtype="int64"),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
def test_grad_matrix(cls, dtype, device):
    check_grad("pow", [(5, 7), (5, 7)], POW, device, cls, dtype, domain="positive")


GRAD_CASES = [
    grad_case("pow", [(4, 5)], lambda a: a**3),
    grad_case("pow", [(4, 5)], lambda a: a**0),  # torch: zero where the exponent is 0
    grad_case("pow", [(4, 5)], lambda a: 2.5**a),
    grad_case("pow", [np.array([2.0, 0.5, 3.0]), np.array([0.0, -1.0, 0.0])], POW),
]


test_grad_case = each(GRAD_CASES)

