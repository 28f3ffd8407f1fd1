"""conv_transpose2d and nn.ConvTranspose2d against torch on every device, input class and dtype: stride, padding,
output_padding, dilation and groups, unbatched inputs, gradients of input, weight and bias, and torch's errors."""

import numpy as np
import pytest
import torch
import vkml
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


def F(lib):
    return lib.nn.functional


SHAPES = [(2, 4, 5, 6), (4, 3, 3, 2), (3,)]
OPS = {"conv_transpose2d": lambda x, w, b, lib: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    if isinstance(dtype, tuple):
        dtype = (*dtype, dtype[-1])
    check_op(op, SHAPES, OPS[op], device, cls, dtype)


def ct(**kw):
    def f(x, w, *b, lib):
        return F(lib).conv_transpose2d(x, w, b[0] if b else None, **kw)

    f.__name__ = f"conv_transpose2d({', '.join(f'{k}={v}' for k, v in kw.items())})"
    return f


CASES = [
    case("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 3)], ct()),
    case("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 3), (3,)], ct(stride=(2, 3), output_padding=(1, 2))),
    case("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 3)], ct(padding=2, dilation=2)),
    case("conv_transpose2d", [(2, 4, 5, 6), (4, 2, 3, 3), (4,)], ct(stride=2, groups=2)),
    case("conv_transpose2d", [(4, 5, 6), (4, 3, 2, 2)], ct(stride=2)),  # unbatched
    case("conv_transpose2d", [(1, 2, 1, 1), (2, 3, 4, 4)], ct(stride=3, padding=1)),
]


test_case = each(CASES)


ERRORS = [
    error("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 3)], ct(stride=1, output_padding=1), RuntimeError),
    error("conv_transpose2d", [(2, 5, 5, 6), (4, 3, 3, 3)], ct(), RuntimeError),
    error("conv_transpose2d", [(5, 6), (4, 3, 3, 3)], ct(), RuntimeError),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kw", [{"stride": 2, "padding": 1}, {"stride": 1, "dilation": 2, "groups": 2}])
def test_grad(kw, dtype, device):
    w = (4, 3, 3, 3) if "groups" not in kw else (4, 2, 3, 3)
    b = (3,) if "groups" not in kw else (4,)
    check_grad("conv_transpose2d", [(2, 4, 5, 6), w, b], ct(**kw), device, "contiguous", dtype)


def test_module_loads_torch_weights(device):
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    ours = vkml.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2).to(device)
    assert repr(ours) == repr(ref)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in ref.state_dict().items()
    }
    ours.load_state_dict(ref.state_dict())
    x = np.random.default_rng(0).standard_normal((2, 4, 5, 5)).astype(np.float32)
    assert ours(vkml.tensor(x, device=device)).shape == tuple(ref(torch.tensor(x)).shape)
