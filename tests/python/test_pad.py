"""F.pad against torch on every device, input class and dtype: constant (negative amounts crop), reflect, replicate
and circular over 1, 2 and 3 dims, with gradients and torch's errors."""

import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


def F(lib):
    return lib.nn.functional


OPS = {"pad": lambda x, lib: F(lib).pad(x, (2, 1, 0, 3), value=-1.5 if x.dtype.is_floating_point else 7)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], OPS[op], device, cls, dtype)


MODES = ("reflect", "replicate", "circular")

CASES = [
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x, (-1, 2))),  # crop one side, pad the other
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x, (1, 1, -1, 0, 2, 0), value=3.0)),
    case("pad", [(0, 3)], lambda x, lib: F(lib).pad(x, (1, 2))),
    *[case("pad", [(2, 3, 5)], lambda x, lib, m=m: F(lib).pad(x, (4, 2), mode=m)) for m in MODES],
    *[case("pad", [(2, 3, 4, 5)], lambda x, lib, m=m: F(lib).pad(x, (1, 3, 2, 0), mode=m)) for m in MODES],
    *[case("pad", [(3, 4, 5)], lambda x, lib, m=m: F(lib).pad(x, (1, 2, 3, 1), mode=m)) for m in MODES],
    *[case("pad", [(1, 2, 3, 4, 5)], lambda x, lib, m=m: F(lib).pad(x, (1, 1, 2, 2, 1, 0), mode=m)) for m in MODES],
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x, (-1, -2), mode="reflect")),
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x.transpose(1, 2), (2, 2), mode="replicate")),
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x, (5, 5), mode="circular")),
    case("pad", [(2, 3, 5)], lambda x, lib: F(lib).pad(x, (3, 1), mode="reflect"), dtype="int64"),
]


test_case = each(CASES)


ERRORS = [
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (1,)), RuntimeError, match="divisible"),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (1.5, 1)), TypeError, match="ints"),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (1, 1, 1, 1, 1, 1)), RuntimeError, match="less than or equal"),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (3, 0), mode="reflect"), RuntimeError, match="less than"),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (4, 4), mode="circular"), RuntimeError, match="wrapping"),
    error("pad", [(5,)], lambda x, lib: F(lib).pad(x, (1, 1), mode="reflect"), NotImplementedError),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (-2, -2)), RuntimeError, match="negative"),
    error("pad", [(2, 3)], lambda x, lib: F(lib).pad(x, (1, 1), mode="wrap"), (ValueError, NotImplementedError)),
]


test_error = each(ERRORS)


GRADS = {
    "constant": lambda x, lib: F(lib).pad(x, (1, 2, -1, 1)),
    **{m: (lambda x, lib, m=m: F(lib).pad(x, (3, 2), mode=m)) for m in MODES},
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("mode", list(GRADS))
def test_grad(mode, dtype, device):
    check_grad("pad", [(3, 4, 5)], GRADS[mode], device, "contiguous", dtype)
