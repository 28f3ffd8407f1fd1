"""vkml.where(cond, a, b) against torch: classes, dtypes, broadcasting, scalars and promotion of a and b."""

import pytest
from helpers import as_tuple, case, check_op, each, matrix

WHERE = lambda c, a, b, lib: lib.where(c, a, b)  # noqa: E731 - the one lambda of the matrix


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(["where"]))
def test_matrix(op, cls, dtype, device):
    pair = as_tuple(dtype) * (2 // len(as_tuple(dtype)))  # a dtype for a and b, or the mixed pair
    check_op(op, [(5, 7)] * 3, WHERE, device, cls, ("bool", *pair))


CASES = [
    case("where", [(4, 5), (4, 5)], lambda x, y, lib: lib.where(x > 0, x, y)),
    case("where", [(4, 5)], lambda x, lib: lib.where(x > 0, x, 0.0)),  # a Python scalar operand
    case("where", [(4, 5)], lambda x, lib: lib.where(x > 0, 1.5, x)),
    case("where", [(4, 5)], lambda x, lib: lib.where(x > 0, x, 0.5), dtype="float16"),  # the scalar is weak: f16
    case("where", [(4, 5)], lambda x, lib: lib.where(x > 0, x, 2.5), dtype="int32"),  # int and float -> f32
    case("where", [(4, 5)], lambda x, lib: lib.where(x > 0, 1, 2)),  # two int scalars -> int64
    case("where", [(4, 1), (1, 5), (5,)], lambda c, a, b, lib: lib.where(c > 0, a, b)),
    case("where", [(4, 5), (4, 1)], lambda x, y, lib: lib.where(x < y, x, y)),
    case("where", [(), (3, 4)], lambda c, a, lib: lib.where(c > 0, a, -a)),  # 0-d condition
    case("where", [(6, 5), (5, 6)], lambda x, y, lib: lib.where(x.t() > 0, x.t(), y)),
    case("where", [(3, 4), (3, 4), (3, 4)], WHERE, dtype=("bool", "float16", "float32")),
    case("where", [(3, 4), (3, 4), (3, 4)], WHERE, dtype=("bool", "int32", "int64")),
    case("where", [(3, 4), (3, 4), (3, 4)], WHERE, dtype=("bool", "bool", "int32")),
    case("where", [(3, 4), (3, 4), (3, 4)], WHERE, dtype=("bool", "bfloat16", "float16")),  # -> float32
    case("where", [(0, 4), (0, 4), (0, 4)], WHERE, dtype=("bool", "float32", "float32")),
]


test_case = each(CASES)
