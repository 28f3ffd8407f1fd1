"""Binary ops (add sub mul div maximum minimum, comparisons) against torch: classes, dtypes, scalars, promotion."""

import numpy as np
import pytest
import vkml
from helpers import case, check_op, check_pipeline, each, matrix

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": lambda a, b, lib: lib.maximum(a, b),
    "minimum": lambda a, b, lib: lib.minimum(a, b),
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b, lib: lib.bitwise_xor(a, b),
    "logical_and": lambda a, b: a.logical_and(b),
    "logical_or": lambda a, b, lib: lib.logical_or(a, b),
    "logical_xor": lambda a, b: a.logical_xor(b),
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "logical_and", "logical_or", "logical_xor")
# NOTE: the extreme class pairs 0.0 with -0.0, so maximum's choice between equal zeros is compared: torch's CPU
# kernel returns its first argument (maximum(0., -0.) = 0., maximum(-0., 0.) = -0.), and the contract is "exact".


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(BINARY))
def test_matrix(op, cls, dtype, device):
    # Comparisons and maximum draw from few values so that ties and equality happen.
    check_op(op, [(5, 7), (5, 7)], BINARY[op], device, cls, dtype, domain="grid" if op in COMPARE else "normal")


CASES = [
    # zero over subnormal and tiny divisors is a signed zero (lavapipe's division gave nan)
    case("div", [np.array([0.0, -0.0, 0.0, 0.0]), np.array([1e-40, 1e-40, 1e-38, -1e-45])], lambda a, b: a / b),
    # methods and functions, in torch's spelling
    case("add", [(45, 65), (45, 65)], lambda a, b: a.add(b)),
    case("add", [(4, 5), (4, 5)], lambda a, b, lib: lib.add(a, b)),
    case("sub", [(4, 5), (4, 5)], lambda a, b: a.sub(b)),
    case("sub", [(4, 5), (4, 5)], lambda a, b, lib: lib.sub(a, b)),
    case("mul", [(4, 5), (4, 5)], lambda a, b: a.mul(b)),
    case("mul", [(4, 5), (4, 5)], lambda a, b, lib: lib.mul(a, b)),
    case("div", [(4, 5), (4, 5)], lambda a, b: a.div(b)),
    case("div", [(4, 5), (4, 5)], lambda a, b, lib: lib.div(a, b)),
    case("maximum", [(4, 5), (4, 5)], lambda a, b: a.maximum(b)),
    case("eq", [(4, 5), (4, 5)], lambda a, b: a.eq(b), domain="grid"),
    case("ne", [(4, 5), (4, 5)], lambda a, b, lib: lib.ne(a, b), domain="grid"),
    case("lt", [(4, 5), (4, 5)], lambda a, b: a.lt(b), domain="grid"),
    case("le", [(4, 5), (4, 5)], lambda a, b, lib: lib.le(a, b), domain="grid"),
    case("gt", [(4, 5), (4, 5)], lambda a, b: a.gt(b), domain="grid"),
    case("ge", [(4, 5), (4, 5)], lambda a, b, lib: lib.ge(a, b), domain="grid"),
    # Python scalars on either side ("weak" scalars: the tensor's dtype wins within its category)
    case("add", [(4, 5)], lambda x: x + 2.5),
    case("add", [(4, 5)], lambda x: 2.5 + x),
    case("add", [(4, 5)], lambda x: x + 3, dtype="int32"),
    case("add", [(4, 5)], lambda x: x + 2.5, dtype="int32"),  # int tensor + float scalar -> float32
    case("add", [(4, 5)], lambda x: x + 0.1, dtype="float16"),  # the scalar is not rounded to f16 first
    case("add", [(4, 5)], lambda x: x + 0.1, dtype="bfloat16"),
    case("add", [(4, 5)], lambda x: x + 2, dtype="bool"),  # bool + int -> int64
    case("add", [(4, 5)], lambda x: True + x, dtype="int32"),
    case("sub", [(4, 5)], lambda x: x - 1.5),
    case("sub", [(4, 5)], lambda x: 1.5 - x),
    case("sub", [(4, 5)], lambda x: 7 - x, dtype="int64"),
    case("mul", [(4, 5)], lambda x: x * 3),
    case("mul", [(4, 5)], lambda x: 0.1 * x),
    case("mul", [(4, 5)], lambda x: x * 2.5, dtype="bool"),  # bool * float -> float32
    case("div", [(4, 5)], lambda x: x / 3),
    case("div", [(4, 5)], lambda x: 1 / x),
    case("div", [(4, 5)], lambda x: x / 2, dtype="int64"),  # int / int -> float32, as torch
    case("div", [(4, 5)], lambda x: 7 / x, dtype="int32"),  # including 0 divisors: inf and nan
    case("maximum", [(4, 5), ()], lambda a, b, lib: lib.maximum(a, b)),
    case("eq", [(4, 5)], lambda x: x == 1.0, domain="grid"),
    case("eq", [(4, 5)], lambda x: x == 1, dtype="int32"),
    case("ne", [(4, 5)], lambda x: x != 0.5, domain="grid"),
    case("lt", [(4, 5)], lambda x: x < 0.5, domain="grid"),
    case("lt", [(4, 5)], lambda x: 0.5 < x, domain="grid"),  # the reflected operator
    case("le", [(4, 5)], lambda x: x <= 0, dtype="int64"),
    case("gt", [(4, 5)], lambda x: x > 0.5, dtype="float16", domain="grid"),
    case("ge", [(4, 5)], lambda x: 1 >= x, domain="grid"),
    case("gt", [(4, 5)], lambda x: x > 2.5, dtype="int32"),  # int tensor against a float scalar
    # broadcasting
    case("add", [(4, 1), (1, 5)], lambda a, b: a + b),
    case("add", [(5,), (4, 5)], lambda a, b: a + b),
    case("add", [(4, 1, 3), (2, 3)], lambda a, b: a + b),
    case("mul", [(2, 1, 4, 1), (3, 1, 5)], lambda a, b: a * b),
    case("sub", [(), (3, 4)], lambda a, b: a - b),
    case("div", [(3, 4), ()], lambda a, b: a / b),
    case("lt", [(4, 1), (5,)], lambda a, b: a < b, domain="grid"),
    case("maximum", [(1, 5), (4, 1)], lambda a, b, lib: lib.maximum(a, b)),
    case("add", [(0, 1), (1, 5)], lambda a, b: a + b),  # broadcast to an empty result
    # promotion of mixed dtypes, torch.result_type
    case("add", [(3, 4), ()], lambda a, b: a + b, dtype=("float16", "float32")),  # a 0-d tensor is weak: f16
    case("add", [(3, 4), ()], lambda a, b: a + b, dtype=("float16", "int64")),
    case("add", [(3, 4), ()], lambda a, b: a + b, dtype=("int32", "float32")),  # float category wins: f32
    case("add", [(3, 4), (3, 4)], lambda a, b: a + b, dtype=("bfloat16", "float16")),  # -> float32
    case("mul", [(3, 4), (3, 4)], lambda a, b: a * b, dtype=("bool", "float16")),
    case("sub", [(3, 4), (3, 4)], lambda a, b: a - b, dtype=("int64", "int32")),
    case("div", [(3, 4), (3, 4)], lambda a, b: a / b, dtype=("int32", "int64")),
    case("div", [(3, 4), (3, 4)], lambda a, b: a / b, dtype=("bool", "bool")),
    case("eq", [(3, 4), (3, 4)], lambda a, b: a == b, dtype=("int32", "float32"), domain="grid"),
    case("maximum", [(3, 4), (3, 4)], lambda a, b, lib: lib.maximum(a, b), dtype=("int32", "float16")),
    # views as operands, and a chain in one graph
    case("add", [(6, 5), (5, 6)], lambda a, b: a + b.t()),
    case("mul", [(6, 5), (6, 5)], lambda a, b: a[::2] * b[1::2]),
    case("add", [(4, 5), (4, 5)], lambda a, b: (a + b) * (a - b) + a),  # exact ops only, so exact overall
    case("add", [(4, 5)], lambda x: x + x),  # the same tensor twice
    # float32 add, mul, div, maximum, minimum over contiguous or broadcast-value operands, four at a time on a GPU
    # (shaders/binary_flat.wgsl): a partial last vector, views from aligned and unaligned rows, a 0-d operand.
    case("mul", [(3, 7), (3, 7)], lambda a, b: a * b, domain="wide"),
    case("div", [(1001,), (1001,)], lambda a, b: a / b),
    case("maximum", [(6, 9), (6, 9)], lambda a, b, lib: lib.maximum(a, b), domain="grid"),
    case("minimum", [(6, 9), (6, 9)], lambda a, b, lib: lib.minimum(a[1:], b[2:4].sum(0)), domain="grid"),
    case("add", [(5, 8), (5, 8)], lambda a, b: a[1:] + b[:4]),
    case("add", [(5, 9), (5, 9)], lambda a, b: a[1:] + b[:4]),
    case("mul", [(5, 8), ()], lambda a, b: b * a[2:]),
    case("div", [np.array([1e-40, -0.0, 3e38, np.nan, 1.0, -np.inf, 7.0]), np.array([3.0])], lambda a, b: a / b),
]


test_case = each(CASES)


@pytest.mark.parametrize(
    ("fn", "op", "pipeline"),
    [
        (lambda a, b: a + b, "add", "binary_flat"),
        (lambda a, b: a[1:] * b[0, 0], "mul", "binary_flat"),
        (lambda a, b: a + b[0], "add", "binary"),
        (lambda a, b: a.half() + b.half(), "add", "binary"),
    ],
)
def test_contiguous_float32_operands_take_the_vector_kernel(fn, op, pipeline, device):
    """The cases above reach the kernel they are meant for on a GPU, the floor included; the CPU has one."""
    a, b = (vkml.tensor(np.arange(40, dtype=np.float32).reshape(5, 8) + i, device=device) for i in (1, 2))
    vkml.realize(a, b)
    check_pipeline(device, lambda: fn(a, b).numpy(), op, pipeline)
