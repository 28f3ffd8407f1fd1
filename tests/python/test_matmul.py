"""matmul and @ against torch: 2-D, batched, broadcast batch, vectors, transposed views, odd sizes, empty, dtypes."""

import pytest
from helpers import case, check_op, each, matrix

MATMUL = lambda a, b: a @ b  # noqa: E731 - the one lambda of the matrix
# Shapes per input class: strided and extreme reuse the plain shapes (the class makes the views or the values).
SHAPES = {"broadcast": [(2, 1, 5, 7), (3, 7, 4)], "empty": [(0, 9), (9, 5)]}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(["matmul"]))
def test_matrix(op, cls, dtype, device):
    # Integers stay small so no dot product overflows; mixed pairs are rejected by torch, and must be by vkml.
    check_op(op, SHAPES.get(cls, [(8, 9), (9, 5)]), MATMUL, device, cls, dtype)


CASES = [
    case("matmul", [(33, 17), (17, 9)], lambda a, b: a @ b),
    case("matmul", [(33, 17), (9, 17)], lambda a, b: a @ b.T),  # a strided input, no copy asked for
    case("matmul", [(17, 33), (17, 9)], lambda a, b: a.t() @ b),
    case("matmul", [(17, 33), (9, 17)], lambda a, b: a.T @ b.T),
    case("matmul", [(16, 16), (16, 16)], lambda a, b: a @ b),
    case("matmul", [(64, 64), (64, 64)], lambda a, b: a @ b),
    case("matmul", [(31, 47), (47, 63)], lambda a, b: a @ b),  # no size a multiple of 16
    case("matmul", [(1, 37), (37, 1)], lambda a, b: a @ b),
    case("matmul", [(20, 1), (1, 30)], lambda a, b: a @ b),  # K = 1: an outer product
    case("matmul", [(5, 7), (7, 3)], lambda a, b, lib: lib.matmul(a, b)),
    case("matmul", [(5, 7), (7, 3)], lambda a, b: a.matmul(b)),
    # batched and broadcast batch dims
    case("matmul", [(4, 5, 7), (4, 7, 3)], lambda a, b: a @ b),
    case("matmul", [(2, 3, 5, 7), (2, 3, 7, 6)], lambda a, b: a @ b),
    case("matmul", [(2, 1, 5, 7), (3, 7, 4)], lambda a, b: a @ b),
    case("matmul", [(4, 5, 7), (7, 3)], lambda a, b: a @ b),
    case("matmul", [(5, 7), (4, 7, 3)], lambda a, b: a @ b),
    case("matmul", [(1, 5, 7), (7, 3)], lambda a, b: a @ b.expand(1, 7, 3)),  # a stride-0 batch
    case("matmul", [(4, 7, 5), (4, 3, 7)], lambda a, b: a.transpose(1, 2) @ b.transpose(-1, -2)),
    # vectors
    case("matmul", [(7,), (7, 5)], lambda a, b: a @ b),
    case("matmul", [(5, 7), (7,)], lambda a, b: a @ b),
    case("matmul", [(7,), (7,)], lambda a, b: a @ b),
    case("matmul", [(7,), (3, 7, 5)], lambda a, b: a @ b),
    case("matmul", [(3, 5, 7), (7,)], lambda a, b: a @ b),
    # empty dims
    case("matmul", [(0, 9), (9, 5)], lambda a, b: a @ b),
    case("matmul", [(4, 9), (9, 0)], lambda a, b: a @ b),
    case("matmul", [(4, 0), (0, 5)], lambda a, b: a @ b),  # K = 0: zeros
    case("matmul", [(0, 4, 5), (5, 3)], lambda a, b: a @ b),
    # dtypes: half inputs accumulate in f32 on every device; integers are exact on the CPU
    case("matmul", [(33, 17), (17, 9)], lambda a, b: a @ b, dtype="float16"),
    case("matmul", [(33, 17), (17, 9)], lambda a, b: a @ b, dtype="bfloat16"),
    case("matmul", [(64, 64), (64, 64)], lambda a, b: a @ b, dtype="float16"),
    case("matmul", [(4, 5, 7), (7, 3)], lambda a, b: a @ b, dtype="bfloat16"),
    case("matmul", [(33, 17), (17, 9)], lambda a, b: a @ b, dtype="int32"),
    case("matmul", [(33, 17), (9, 17)], lambda a, b: a @ b.T, dtype="int64"),
    case("matmul", [(33, 17), (17, 9)], lambda a, b: a @ b, dtype="float64"),
    # fused with elementwise ops around it
    case("matmul", [(8, 9), (9, 5), (5,)], lambda a, b, c: (a @ b + c).relu()),
]


test_case = each(CASES)
