"""F.interpolate and nn.Upsample against torch on every device, input class and dtype: nearest, linear and bilinear
(align_corners or half-pixel), by size or scale factor, up and down, with gradients and torch's errors."""

import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


def F(lib):
    return lib.nn.functional


OPS = {"interpolate": lambda x, lib: F(lib).interpolate(x, scale_factor=2)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(2, 3, 4, 5)], OPS[op], device, cls, dtype)


def it(**kw):
    def f(x, lib):
        return F(lib).interpolate(x, **kw)

    f.__name__ = f"interpolate({', '.join(f'{k}={v!r}' for k, v in kw.items())})"
    return f


CASES = [
    case("interpolate", [(2, 3, 4, 5)], it(size=(7, 3))),
    case("interpolate", [(2, 3, 4, 5)], it(size=(7, 9), mode="bilinear")),
    case("interpolate", [(2, 3, 4, 5)], it(size=(7, 9), mode="bilinear", align_corners=True)),
    case("interpolate", [(2, 3, 8, 9)], it(size=(3, 4), mode="bilinear")),  # down
    case("interpolate", [(2, 3, 4, 5)], it(scale_factor=1.5, mode="bilinear")),
    case("interpolate", [(2, 3, 4, 5)], it(scale_factor=(2.0, 0.5))),
    case("interpolate", [(2, 3, 4, 5)], it(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
    case("interpolate", [(2, 3, 6)], it(size=11, mode="linear")),
    case("interpolate", [(2, 3, 6)], it(scale_factor=3)),
    case("interpolate", [(2, 3, 4, 5)], it(size=(6, 6), mode="bilinear"), dtype="bfloat16"),
    case("interpolate", [(2, 3, 4, 5)], lambda x, lib: lib.nn.Upsample(scale_factor=2, mode="bilinear")(x)),
]


test_case = each(CASES)


ERRORS = [
    error("interpolate", [(2, 3, 4, 5)], it(), ValueError),
    error("interpolate", [(2, 3, 4, 5)], it(size=(2, 2), scale_factor=2), ValueError),
    error("interpolate", [(2, 3, 4, 5)], it(size=(2, 2), align_corners=True), ValueError),
    error("interpolate", [(2, 3, 4, 5)], it(size=4, mode="linear"), (ValueError, NotImplementedError)),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(
    "kw",
    [
        {"scale_factor": 2},
        {"size": (7, 3), "mode": "bilinear"},
        {"size": (5, 8), "mode": "bilinear", "align_corners": True},
    ],
)
def test_grad(kw, dtype, device):
    check_grad("interpolate", [(2, 3, 4, 5)], it(**kw), device, "contiguous", dtype)
