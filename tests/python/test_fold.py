"""unfold and fold (F.unfold, F.fold, nn.Unfold, nn.Fold) against torch on every device, input class and dtype:
kernel, dilation, padding and stride, unbatched inputs, gradients (each is the other's), and torch's errors."""

import numpy as np
import pytest
import torch
import vkml
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


def F(lib):
    return lib.nn.functional


def unfold(*args, **kw):
    def f(x, lib):
        return F(lib).unfold(x, *args, **kw)

    f.__name__ = f"unfold{args}{kw}"
    return f


def fold(*args, **kw):
    def f(x, lib):
        return F(lib).fold(x, *args, **kw)

    f.__name__ = f"fold{args}{kw}"
    return f


# fold's input (2, 3·2·3, 6·6): blocks of 2x3 at stride (1, 2) with padding (1, 2) over a 5x9 image.
OPS = {
    "unfold": ([(2, 3, 5, 6)], unfold((2, 3), padding=1, stride=(1, 2))),
    "fold": ([(2, 18, 36)], fold((5, 9), (2, 3), padding=(1, 2), stride=(1, 2))),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    shapes, fn = OPS[op]
    check_op(op, shapes, fn, device, cls, dtype)


CASES = [
    case("unfold", [(2, 3, 6, 7)], unfold(3)),
    case("unfold", [(1, 2, 7, 8)], unfold((3, 2), dilation=(2, 1), padding=(2, 0), stride=(2, 3))),
    case("unfold", [(3, 5, 4)], unfold(2, stride=2)),  # unbatched
    case("unfold", [(2, 4, 3, 3)], unfold(1)),
    case("unfold", [(0, 2, 4, 4)], unfold(2)),  # empty batch
    case("unfold", [(2, 3, 6, 7)], unfold(3), cls="strided"),
    case("fold", [(2, 27, 20)], fold((6, 7), 3)),
    case("fold", [(1, 12, 12)], fold((7, 8), (3, 2), dilation=(2, 1), padding=(2, 0), stride=(2, 3))),
    case("fold", [(20, 2)], fold((3, 4), 2, stride=2)),  # unbatched; the last row gets no block
    case("fold", [(0, 8, 9)], fold(4, 2)),
    case("fold", [(2, 27, 20)], fold((6, 7), 3), cls="strided"),
]


test_case = each(CASES)


ERRORS = [
    error("unfold", [(1, 1, 3, 3)], unfold(5), RuntimeError),
    error("unfold", [(1, 1, 3, 3)], unfold(0), RuntimeError),
    error("unfold", [(1, 1, 3, 3)], unfold(2, stride=0), RuntimeError),
    error("unfold", [(1, 1, 3, 3)], unfold(2, dilation=0), RuntimeError),
    error("unfold", [(1, 1, 3, 3)], unfold(2, padding=-1), RuntimeError),
    error("unfold", [(3, 3)], unfold(2), (RuntimeError, IndexError)),
    error("unfold", [(1, 0, 3, 3)], unfold(2), RuntimeError),
    error("unfold", [(1, 1, 3, 3)], unfold((2, 2, 2)), RuntimeError),
    error("fold", [(1, 5, 4)], fold((3, 3), 2), RuntimeError),
    error("fold", [(1, 4, 5)], fold((3, 3), 2), RuntimeError),
    error("fold", [(1, 1, 4, 4)], fold((3, 3), 2), RuntimeError),
    error("fold", [(1, 0, 4)], fold((3, 3), 2), RuntimeError),
    error("fold", [(1, 4, 4)], fold((3, 3), 2, stride=0), RuntimeError),
    error("fold", [(1, 4, 4)], fold((0, 3), 2), RuntimeError),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_grad(dtype, device):
    check_grad("unfold", [(2, 3, 5, 6)], unfold((2, 3), padding=1, stride=(1, 2)), device, "contiguous", dtype)
    check_grad("fold", [(2, 18, 36)], fold((5, 9), (2, 3), padding=(1, 2), stride=(1, 2)), device, "contiguous", dtype)


def test_modules(device):
    pairs = [
        (torch.nn.Unfold(3, dilation=2, padding=1, stride=2), vkml.nn.Unfold(3, dilation=2, padding=1, stride=2)),
        (torch.nn.Fold((6, 7), 3), vkml.nn.Fold((6, 7), 3)),
    ]
    x = np.random.default_rng(0).standard_normal((2, 27, 20)).astype(np.float32)
    for ref, ours in pairs:
        assert repr(ours) == repr(ref)
    got = pairs[1][1](vkml.tensor(x, device=device))
    np.testing.assert_array_equal(got.numpy(), pairs[1][0](torch.tensor(x)).numpy())


def test_fold_is_unfold_adjoint(device):
    # <unfold(x), y> == <x, fold(y)>: in integers-valued floats every sum is exact, so the two sides agree exactly.
    rng = np.random.default_rng(1)
    x = rng.integers(-4, 5, (2, 3, 7, 8)).astype(np.float32)
    y = rng.integers(-4, 5, (2, 3 * 6, 4 * 3)).astype(np.float32)
    kw = {"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1, "stride": (2, 3)}
    tx, ty = vkml.tensor(x, device=device), vkml.tensor(y, device=device)
    ux, fy = F(vkml).unfold(tx, **kw), F(vkml).fold(ty, (7, 8), **kw)
    assert (ux * ty).sum().item() == (tx * fy).sum().item()
