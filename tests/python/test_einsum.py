"""einsum against torch on every device, input class and dtype: the common one- and two-operand patterns (matrix
and batched products, outer products, traces, diagonals, transposes, sums, ellipsis, implicit output,
broadcasting), forward and backward, with torch's errors."""

import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

OPS = {"einsum": lambda a, b, lib: lib.einsum("ij,jk->ik", a, b.t())}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7), (6, 7)], OPS[op], device, cls, dtype)


PATTERNS = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("i,j->ij", [(4,), (5,)]),
    ("i,i->", [(6,), (6,)]),
    ("ij,ij->i", [(3, 5), (3, 5)]),
    ("ij,j->i", [(3, 5), (5,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 5)]),
    ("ijk->k", [(2, 3, 4)]),
    ("ij,kj", [(3, 5), (4, 5)]),  # implicit output: ik
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]),
    ("b...i,bi->b...", [(2, 3, 4), (2, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),  # attention scores
    ("ij,ab->ijab", [(2, 3), (2, 2)]),
    ("ij,kj->ikj", [(1, 5), (4, 5)]),  # a size-1 dim broadcasts
    ("iij,j->i", [(3, 3, 4), (4,)]),
    ("i j , j k -> i k", [(3, 4), (4, 2)]),  # spaces
]

def by(eq):
    def f(*a, lib):
        return lib.einsum(eq, *a)

    f.__name__ = f"einsum({eq!r})"
    return f


CASES = [case("einsum", shapes, by(eq)) for eq, shapes in PATTERNS]


test_case = each(CASES)


ERRORS = [
    error("einsum", [(3, 4), (5, 6)], lambda a, b, lib: lib.einsum("ij,jk->ik", a, b), RuntimeError),
    error("einsum", [(3, 4)], lambda a, lib: lib.einsum("ijk->i", a), RuntimeError),
    error("einsum", [(3, 4)], lambda a, lib: lib.einsum("ij->k", a), (ValueError, RuntimeError)),
    error("einsum", [(3, 4)], lambda a, lib: lib.einsum("ij,jk->ik", a), (ValueError, RuntimeError)),
    error("einsum", [(3, 4)], lambda a, lib: lib.einsum("ii->i", a), RuntimeError),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(("eq", "shapes"), [p for p in PATTERNS if len(p[1]) == 2][:6])
def test_grad(eq, shapes, dtype, device):
    check_grad("einsum", shapes, lambda *a, lib: lib.einsum(eq, *a), device, "contiguous", dtype)
