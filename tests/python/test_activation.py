"""Activations and float composites (log10, frac, isnan/isinf/isfinite, nan_to_num, clamp) against torch on every
device, input class and dtype, forward and backward."""

import numpy as np
import pytest
import torch
import vkml
from gradcheck import check_grad, grad_case
from helpers import case, check_op, each, error, matrix

F = "nn.functional"


def fn(name, **kw):
    """lib.nn.functional.<name>(x, **kw) for either library."""

    def call(x, lib):
        return getattr(lib.nn.functional, name)(x, **kw)

    call.__name__ = f"F.{name}"
    return call


UNARY = {
    "log10": lambda x: x.log10(),
    "frac": lambda x: x.frac(),
    "isnan": lambda x: x.isnan(),
    "isinf": lambda x, lib: lib.isinf(x),
    "isfinite": lambda x: x.isfinite(),
    "nan_to_num": lambda x: x.nan_to_num(),
    "hardtanh": fn("hardtanh"),
    "relu6": fn("relu6"),
    "leaky_relu": fn("leaky_relu"),
    "elu": fn("elu"),
    "selu": fn("selu"),
    "celu": fn("celu", alpha=0.5),
    "gelu": fn("gelu"),
    "gelu_tanh": fn("gelu", approximate="tanh"),
    "silu": fn("silu"),
    "mish": fn("mish"),
    "softplus": fn("softplus"),
    "logsigmoid": fn("logsigmoid"),
    "softsign": fn("softsign"),
    "hardsigmoid": fn("hardsigmoid"),
    "hardswish": fn("hardswish"),
}
# Inputs wide enough to reach every branch: the kinks at ±3 and 6, softplus's threshold, expm1's and erfc's tails.
DOMAIN = {"log10": "positive", **dict.fromkeys(("hardtanh", "relu6", "hardsigmoid", "hardswish", "softplus"), "wide")}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(UNARY))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], UNARY[op], device, cls, dtype, domain=DOMAIN.get(op, "normal"))


CLAMP = {"clamp": lambda a, b: a.clamp(min=b)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(CLAMP))
def test_clamp_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7), (5, 7)], CLAMP[op], device, cls, dtype, domain="grid")


INPLACE = "relu elu selu celu leaky_relu hardtanh relu6 silu mish hardsigmoid hardswish".split()


def _in_place(lib, op, x):
    y = x * 1.0
    out = getattr(lib.nn.functional, op)(y, inplace=True)
    assert out is y, f"{op}(inplace=True) returned a new tensor"
    return y


LINE = np.linspace(-30.0, 30.0, 2401)
KINKS = np.array([-6.0, -3.0, -1.0, -0.0, 0.0, 1.0, 3.0, 6.0, 20.0, 20.5, -20.0, 1e-30, -1e-30, 88.0, -88.0, 100.0])
SPECIAL = np.array([float("nan"), float("inf"), -float("inf"), 3e38, -3e38, 1e-40, -1e-40, 0.0, -0.0])

CASES = [
    *[case(op, [LINE], UNARY[op]) for op in UNARY if op not in ("isnan", "isinf", "isfinite", "log10")],
    *[case(op, [KINKS], UNARY[op]) for op in UNARY],
    *[case(op, [SPECIAL], UNARY[op]) for op in UNARY],
    case("log10", [np.geomspace(1e-30, 3e38, 2001)], lambda x: x.log10()),
    case("log10", [np.linspace(0.5, 2.0, 2001)], lambda x, lib: lib.log10(x)),
    case("softplus", [LINE], fn("softplus", beta=2.0, threshold=10.0)),
    case("softplus", [LINE], fn("softplus", beta=0.5)),
    case("elu", [LINE], fn("elu", alpha=2.5)),
    case("leaky_relu", [LINE], fn("leaky_relu", negative_slope=0.2)),
    case("hardtanh", [LINE], fn("hardtanh", min_val=-2.0, max_val=0.5)),
    case("hardtanh", [(4, 5)], fn("hardtanh", min_val=-2.0, max_val=3.0), dtype="int64"),  # integers stay integers
    case("nan_to_num", [SPECIAL], lambda x: x.nan_to_num(nan=1.5, posinf=7.0, neginf=-7.0)),
    case("nan_to_num", [SPECIAL], lambda x: x.nan_to_num(), dtype="float16"),
    case("nan_to_num", [SPECIAL], lambda x, lib: lib.nan_to_num(x, posinf=1.0), dtype="bfloat16"),
    case("nan_to_num", [(3, 4)], lambda x: x.nan_to_num(), dtype="int32"),
    case("clamp", [(5, 7)], lambda x: x.clamp(-0.5, 0.5)),
    case("clamp", [(5, 7)], lambda x: x.clamp(max=0.25)),
    case("clamp", [(5, 7)], lambda x: x.clamp(0.5, -0.5)),  # min > max: every element is max, as torch
    case("clamp", [(5, 7)], lambda x: x.clip(-1, 1)),
    case("clamp", [(5, 7)], lambda x: x.clamp_min(0.1) + x.clamp_max(0.1)),
    case("clamp", [(5, 7)], lambda x: x.clamp(-2, 2), dtype="int32"),
    case("clamp", [(5, 7)], lambda x: x.clamp(min=0.5), dtype="int64"),  # a float bound promotes to float32
    case("clamp", [(5, 7), (7,), (5, 1)], lambda x, lo, hi: x.clamp(lo, hi)),  # broadcast tensor bounds
    case("clamp", [SPECIAL], lambda x: x.clamp(-1.0, 1.0)),
    # inplace=True writes the result into the (non-leaf) input and returns it; gradients flow through the write
    *[case(op, [(5, 7)], lambda x, lib, op=op: _in_place(lib, op, x)) for op in INPLACE],
]


test_case = each(CASES)


ERRORS = [
    error("clamp", [(3, 4)], lambda x: x.clamp(), (ValueError, RuntimeError, TypeError), match="min.*max"),
    error("gelu", [(3, 4)], fn("gelu", approximate="cubic"), (ValueError, RuntimeError), match="approximate"),
    # an in-place write into a leaf that requires grad, refused by both
    error(
        "elu",
        [(3, 4)],
        lambda x, lib: lib.nn.functional.elu(x.requires_grad_(), inplace=True),
        (RuntimeError,),
        match="leaf",
    ),
]


test_error = each(ERRORS)


GRADS = {
    "log10": ([(5, 7)], lambda x: x.log10(), "positive"),
    "frac": ([(5, 7)], lambda x: x.frac(), "wide"),
    "nan_to_num": ([(5, 7)], lambda x: x.nan_to_num(), "normal"),
    "clamp": ([(5, 7)], lambda x: x.clamp(-0.5, 0.8), "normal"),
    **{
        op: ([(5, 7)], UNARY[op], DOMAIN.get(op, "normal"))
        for op in UNARY
        if op not in ("isnan", "isinf", "isfinite", "log10", "frac", "nan_to_num")
    },
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f, domain = GRADS[op]
    check_grad(op, shapes, f, device, cls, dtype, domain=domain)


GRAD_CASES = [
    # torch's gradients at the kinks: hardtanh and relu6 strictly inside, clamp inclusive, hardswish (2x + 3)/6 at ±3
    grad_case("hardtanh", [KINKS], UNARY["hardtanh"]),
    grad_case("relu6", [KINKS], UNARY["relu6"]),
    grad_case("clamp", [KINKS], lambda x: x.clamp(-1.0, 3.0)),
    grad_case("hardswish", [KINKS], UNARY["hardswish"]),
    grad_case("hardsigmoid", [KINKS], UNARY["hardsigmoid"]),
    grad_case("leaky_relu", [KINKS], UNARY["leaky_relu"]),
    grad_case("elu", [KINKS], UNARY["elu"]),
    grad_case("softplus", [LINE], UNARY["softplus"]),
    grad_case("gelu", [LINE], UNARY["gelu"]),
    grad_case("silu", [np.linspace(-20.0, 20.0, 801)], UNARY["silu"]),
]


test_grad_case = each(GRAD_CASES)


MODULES = [
    ("GELU", {}),
    ("GELU", {"approximate": "tanh"}),
    ("SiLU", {}),
    ("Mish", {}),
    ("ELU", {"alpha": 0.7}),
    ("SELU", {}),
    ("CELU", {"alpha": 2.0}),
    ("LeakyReLU", {"negative_slope": 0.3}),
    ("Softplus", {"beta": 2.0}),
    ("LogSigmoid", {}),
    ("Softsign", {}),
    ("Hardsigmoid", {}),
    ("Hardswish", {}),
    ("Hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("ReLU6", {}),
    ("Tanh", {}),
]


@pytest.mark.parametrize(("name", "kw"), MODULES)
def test_modules_match_torch(name, kw, device):
    x = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32) * 4
    ours = getattr(vkml.nn, name)(**kw)(vkml.tensor(x, device=device)).numpy()
    ref = getattr(torch.nn, name)(**kw)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, ref, rtol=2e-6, atol=1e-6)
    assert repr(getattr(vkml.nn, name)(**kw)).split("(")[0] == name


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh"])
def test_gradient_at_nan_passes_as_torch(name, device):
    """torch's threshold and hardtanh backward pass the gradient where the input is not at or beyond a bound: NaN
    included (issue #20)."""

    def grads(lib, dev):
        x = lib.tensor([float("nan"), -1.0, 0.5, 7.0], device=dev, requires_grad=True)
        getattr(lib.nn.functional, name)(x).sum().backward()
        return x.grad.tolist()

    assert grads(vkml, device) == grads(torch, "cpu")
