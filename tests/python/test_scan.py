"""prod, cumsum and cumprod against torch on every device, input class and dtype, forward and backward (zeros
included: the gradients are built without dividing by the input), with dtype= and torch's errors."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

OPS = {
    "prod": lambda x: x.prod(1),
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x, lib: lib.cumprod(x, 0),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    # Products of unit-range values stay representable; sums take the ordinary values.
    check_op(op, [(5, 7)], OPS[op], device, cls, dtype, domain="normal" if op == "cumsum" else "unit")


ZEROS = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 0.5], [2.0, -2.0, 0.5, 1.0]])
# Factors whose partial products leave the float32 range in some order though the product does not (issue #20,
# item 16: 512 alternating 1e20 and 1e-20 gave NaN on Vulkan, and torch's own vectorised CPU loop does too): each
# row's product is in range, or truly overflows, underflows, or is 0, inf or NaN by the factors themselves.
ALTERNATING = np.tile(np.array([1e20, 1e-20], np.float32), 256)
FAR = np.array(
    [
        [1e30] * 6 + [1e-30] * 6,
        [1e-30] * 6 + [3e30] * 6,
        [1e30] * 3 + [1.0] * 9,
        [1e-30] * 3 + [1.0] * 9,
        [0.0] + [1e30] * 11,
        [np.inf] + [1e-30] * 11,
        [np.inf, 0.0] + [1.0] * 10,
        [-1e20, 1e20, -1e-20, 1e-20] * 3,
    ],
    np.float32,
)

CASES = [
    case("prod", [(3, 4, 5)], lambda x: x.prod()),
    case("prod", [(3, 4, 5)], lambda x: x.prod(-1, keepdim=True)),
    case("prod", [(3, 4, 5)], lambda x, lib: lib.prod(x.transpose(0, 2), 1)),
    case("prod", [(6, 5)], lambda x: x.prod(0), dtype="int32"),  # int64 result
    case("prod", [(6, 5)], lambda x: x.prod(1, dtype=x.dtype), dtype="int32"),
    case("prod", [(300,)], lambda x: x.prod(), domain="unit"),  # past one workgroup's width
    case("prod", [(0, 3)], lambda x: x.prod(0)),  # the empty product is 1
    case("prod", [ZEROS], lambda x: x.prod(1)),
    case("cumsum", [(3, 4, 5)], lambda x: x.cumsum(-1)),
    case("cumsum", [(3, 4, 5)], lambda x, lib: lib.cumsum(x.permute(2, 0, 1), dim=0)),
    case("cumsum", [(200,)], lambda x: x.cumsum(0)),
    case("cumsum", [(6, 5)], lambda x: x.cumsum(1), dtype="int32"),
    case("cumsum", [(6, 5)], lambda x: x.cumsum(0), dtype="bool"),
    case("cumsum", [(6, 5)], lambda x: x.cumsum(1, dtype=x.dtype), dtype="float16"),
    case("cumsum", [()], lambda x: x.cumsum(0)),
    case("cumprod", [ZEROS], lambda x: x.cumprod(1)),
    case("cumprod", [(4, 9)], lambda x: x.cumprod(-1), dtype="int64"),
    case("cumprod", [(4, 9)], lambda x: x.cumprod(1), domain="unit", dtype="bfloat16"),
]


test_case = each(CASES)


ERRORS = [
    error("cumsum", [(3, 4)], lambda x: x.cumsum(2), IndexError),
    error("prod", [(3, 4)], lambda x: x.prod(-3), IndexError),
]


test_error = each(ERRORS)


GRADS = {
    "prod": ([(4, 6)], lambda x: x.prod(1)),
    "cumsum": ([(4, 6)], lambda x: x.cumsum(0)),
    "cumprod": ([(4, 6)], lambda x: x.cumprod(1)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f = GRADS[op]
    check_grad(op, shapes, f, device, cls, dtype, domain="unit")


@pytest.mark.parametrize("op", ["prod", "cumprod"])
def test_grad_with_zeros(op, device):
    """One zero in a row gives the others zero gradient and itself the product of the rest; two zeros give all zero."""
    check_grad(op, [ZEROS], (lambda x: x.prod(1)) if op == "prod" else (lambda x: x.cumprod(1)), device)
    check_grad(op, [ZEROS], (lambda x: x.prod()) if op == "prod" else (lambda x: x.cumprod(0)), device)


@pytest.mark.parametrize(
    ("values", "fn", "rows"),
    [
        (ALTERNATING, lambda x: x.prod(), [ALTERNATING]),
        (ALTERNATING.reshape(4, 128), lambda x: x.prod(1), list(ALTERNATING.reshape(4, 128))),
        (FAR, lambda x: x.prod(1), list(FAR)),
        (FAR.T.copy(), lambda x: x.prod(0), list(FAR)),
        (FAR, lambda x: x.t().prod(0), list(FAR)),
    ],
)
def test_prod_never_overflows_on_the_way(values, fn, rows, device):
    """Every device gives the exact product (math.prod in float64, in range for these factors) within prod's
    contract, (n − 1)·u relatively, or its inf, zero or NaN: intermediate products never leave the range."""
    import math

    import vkml

    got = np.asarray(fn(vkml.tensor(values, device=device)).numpy(), np.float64).ravel()
    assert got.size == len(rows)
    for g, row in zip(got, rows):
        want = float(np.float32(math.prod(float(v) for v in row)))
        if math.isnan(want) or math.isinf(want) or want == 0:
            assert (math.isnan(g) and math.isnan(want)) or g == want, (g, want, row)
        else:
            assert abs(g - want) <= (len(row) - 1) * 2.0**-24 * abs(want), (g, want)
