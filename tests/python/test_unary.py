"""Unary ops against torch on every device, input class and dtype."""

import numpy as np
import pytest
import vkml
from helpers import case, check_op, check_pipeline, each, matrix

# Every unary primitive of the op table (one row each in vkml_ops, which also says where its ordinary inputs lie),
# then the unary composites.
PRIMITIVES = {r["name"]: r["domain"] for r in vkml.op_table() if r["kind"] == "unary" and r["primitive"]}
UNARY = {name: (lambda x, name=name: getattr(x, name)()) for name in PRIMITIVES} | {
    "relu": lambda x: x.relu(),
    "square": lambda x: x.square(),
    "reciprocal": lambda x: x.reciprocal(),
    "logical_not": lambda x: x.logical_not(),
    "bitwise_not": lambda x: ~x,
}
# log and sqrt of ordinary inputs stay in their real domain; nan from negative inputs is covered by the extreme class.
DOMAIN = {name: domain for name, domain in PRIMITIVES.items() if domain != "normal"}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(UNARY))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], UNARY[op], device, cls, dtype, domain=DOMAIN.get(op, "normal"))


# Near multiples of π/2 (f32 neighbours of k·π/2), huge arguments, and the largest finite float.
TRIG_POINTS = [
    *[
        float(np.nextafter(np.float32(k * np.pi / 2), np.float32(d)))
        for k in (1, 2, 3, 4, 100, 355, 1e5)
        for d in (0, 1e9)
    ],
    1e10,
    -3e15,
    1.7e24,
    2.9e37,
    3.4028235e38,
    -3.4028235e38,
    0.7853982,
    -0.7853981,
    1e-30,
    1e-40,
]
SPECIALS = [
    0.0,
    -0.0,
    1e-40,
    -1e-40,
    1e-20,
    -1e-20,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    float("inf"),
    -float("inf"),
    float("nan"),
]
SPECIAL_OPS = (
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "expm1",
    "log1p",
)

CASES = [
    case("exp", [(45, 65)], lambda x: x.exp()),
    case("exp", [(2, 3, 4)], lambda x, lib: lib.exp(x)),
    case("exp", [()], lambda x: x.exp()),
    case("exp", [(4096,)], lambda x: x.exp(), domain="unit"),
    case("exp", [np.linspace(-104.0, 89.0, 97)], lambda x: x.exp()),  # subnormal results, overflow to inf
    case("log", [(33, 17)], lambda x: x.log(), domain="positive"),
    case("log", [(2, 3, 4)], lambda x, lib: lib.log(x), domain="positive"),
    case("log", [(64,)], lambda x: x.log()),  # negative inputs give nan as in torch
    case("sqrt", [(33, 17)], lambda x: x.sqrt(), domain="positive"),
    case("sqrt", [(2, 3, 4)], lambda x, lib: lib.sqrt(x), domain="positive"),
    case("sqrt", [(64,)], lambda x: x.sqrt()),
    case("neg", [(45, 65)], lambda x: -x),
    case("neg", [(2, 3, 4)], lambda x, lib: lib.neg(x)),
    case("neg", [(2, 3, 4)], lambda x: x.neg(), dtype="int64"),
    case("relu", [(45, 65)], lambda x: x.relu()),
    case("relu", [(2, 3, 4)], lambda x, lib: lib.relu(x)),
    case("relu", [(6, 5)], lambda x: x.relu(), dtype="int32"),
    case("exp", [(6, 5)], lambda x: x.t().exp()),  # a transposed view, no copy asked for
    case("exp", [(6, 5)], lambda x: x[1:, ::2].exp()),
    case("exp", [(1, 5)], lambda x: x.expand(4, 5).exp()),
    case("neg", [(6, 5)], lambda x: x.relu().neg().relu()),  # a chain of exact unary ops in one graph
    case("sqrt", [np.array([0.0, -0.0, 1.0, 4.0, 2.0, 1e-40, 1e38, float("inf")])], lambda x: x.sqrt()),
    case("log", [np.array([0.0, -0.0, 1.0, 2.0, 1e-40, 1e38, float("inf"), -1.0])], lambda x: x.log()),
    case("neg", [(6, 5)], lambda x: -x.neg()),
    case("abs", [(6, 5)], lambda x, lib: abs(x) + lib.abs(x)),
    # round: ties go to even
    case("round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49999, 1e7 + 0.5])], lambda x: x.round()),
    case("sign", [np.array([0.0, -0.0, 2.0, -3.0, float("nan"), float("inf"), -float("inf")])], lambda x: x.sign()),
    case("rsqrt", [np.array([0.0, -0.0, 1.0, 4.0, -1.0, float("inf"), 1e-40])], lambda x: x.rsqrt()),
    case("log2", [np.array([0.0, 1.0, 2.0, 0.75, 1e-40, 1e38, float("inf"), -1.0])], lambda x: x.log2()),
    case("exp2", [np.linspace(-150.0, 128.0, 97)], lambda x: x.exp2()),  # subnormal results, overflow to inf
    case("reciprocal", [np.array([0.0, -0.0, 3.0, 1e-40, 1e38, float("inf")])], lambda x: x.reciprocal()),
    case("floor", [(6, 5)], lambda x: x.floor(), dtype="int32"),  # integers pass through as a copy
    case("square", [(6, 5)], lambda x: x.square(), dtype="bool"),  # bool squares to int64
    # Trigonometry: large arguments (Payne–Hanek reduction), near multiples of π/2, the largest float and specials.
    *[case(op, [np.array(TRIG_POINTS, np.float32)], lambda x, op=op: getattr(x, op)()) for op in ("sin", "cos", "tan")],
    case("sin", [np.linspace(-1e4, 1e4, 4001)], lambda x: x.sin()),
    case("cos", [np.geomspace(1e-3, 3e38, 4001)], lambda x: x.cos()),
    case("tan", [np.linspace(-20.0, 20.0, 4001)], lambda x: x.tan()),
    *[case(op, [np.linspace(-1.1, 1.1, 2201)], lambda x, op=op: getattr(x, op)()) for op in ("asin", "acos", "atanh")],
    *[case(op, [np.geomspace(1e-9, 1.0, 2001)], lambda x, op=op: getattr(x, op)()) for op in ("asin", "acos", "atanh")],
    case("acos", [-np.geomspace(1e-9, 1.0, 2001)], lambda x: x.acos()),
    case("atan", [np.geomspace(1e-6, 3e38, 2001)], lambda x: x.atan()),
    case("atan", [np.linspace(-5.0, 5.0, 2001)], lambda x: x.atan()),
    *[case(op, [np.linspace(-95.0, 95.0, 3801)], lambda x, op=op: getattr(x, op)()) for op in ("sinh", "cosh", "tanh")],
    *[case(op, [np.geomspace(1e-9, 3e38, 801)], lambda x, op=op: getattr(-x, op)()) for op in ("sinh", "cosh")],
    case("asinh", [np.concatenate([np.linspace(-3.0, 3.0, 1201), np.geomspace(1e-8, 3e38, 400)])], lambda x: x.asinh()),
    case("acosh", [np.concatenate([np.linspace(0.9, 3.0, 1201), np.geomspace(1.0, 3e38, 400)])], lambda x: x.acosh()),
    *[case(op, [np.linspace(-11.0, 11.0, 4401)], lambda x, op=op: getattr(x, op)()) for op in ("erf", "erfc")],
    case("expm1", [np.linspace(-20.0, 90.0, 4401)], lambda x: x.expm1()),
    case("expm1", [np.linspace(-0.6, 0.6, 2401)], lambda x: x.expm1()),
    case("log1p", [np.concatenate([np.linspace(-1.1, 2.0, 3101), np.geomspace(1e-9, 3e38, 400)])], lambda x: x.log1p()),
    *[case(op, [np.array(SPECIALS, np.float32)], lambda x, op=op: getattr(x, op)()) for op in SPECIAL_OPS],
    case("atan", [(2, 3, 4)], lambda x, lib: lib.arctan(x) + lib.atan(x)),
    case("tanh", [(6, 5)], lambda x: x.t().tanh()),  # a transposed view
    case("erf", [(6, 5)], lambda x: x.erf(), dtype="int64"),  # integers compute in float32
    case("sinc", [np.array([*SPECIALS, 1e-4, 9.9e-5, 0.625, 1e7 + 1, 3e38], np.float32)], lambda x: x.sinc()),
    # float32 neg, abs, exp, log, sqrt, rsqrt and tanh of a contiguous input, four at a time on a GPU
    # (shaders/unary_flat.wgsl): a partial last vector, views from aligned and unaligned rows, the special values.
    case("sqrt", [(3, 7)], lambda x: x.sqrt(), domain="positive"),
    case("rsqrt", [(5, 8)], lambda x: x[1:].rsqrt(), domain="positive"),
    case("exp", [(5, 9)], lambda x: x[1:].exp()),
    case("log", [(5, 8)], lambda x: x[2:].log(), domain="positive"),
    case("tanh", [(1001,)], lambda x: x.tanh(), domain="wide"),
    *[case(op, [np.array(SPECIALS, np.float32)], lambda x, op=op: getattr(x, op)()) for op in ("neg", "abs", "exp")],
]


test_case = each(CASES)


@pytest.mark.parametrize(
    ("fn", "op", "pipeline"),
    [
        (lambda x: x.sqrt(), "sqrt", "unary_flat"),
        (lambda x: x[1:].tanh(), "tanh", "unary_flat"),
        (lambda x: x[:, 1:].exp(), "exp", "unary"),
        (lambda x: x[0, 1:].log(), "log", "unary"),
        (lambda x: x.sin(), "sin", "unary"),
        (lambda x: x.half().neg(), "neg", "unary"),
    ],
)
def test_contiguous_float32_inputs_take_the_vector_kernel(fn, op, pipeline, device):
    """The cases above reach the kernel they are meant for on a GPU, the floor included; the CPU has one."""
    x = vkml.tensor(np.arange(40, dtype=np.float32).reshape(5, 8) + 1, device=device)
    vkml.realize(x)
    check_pipeline(device, lambda: fn(x).numpy(), op, pipeline)
