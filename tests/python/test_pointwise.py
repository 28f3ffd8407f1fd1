"""Binary and ternary pointwise ops beyond arithmetic (fmod, remainder, floor_divide, atan2, copysign, hypot, lerp,
addcmul, addcdiv) against torch on every device, input class and dtype, forward and backward."""

import numpy as np
import pytest
import vkml
from gradcheck import check_grad, grad_case
from helpers import as_tuple, case, check_op, each, error, matrix

BINARY = {
    "fmod": lambda a, b: a.fmod(b),
    "remainder": lambda a, b: a % b,
    "floor_divide": lambda a, b: a // b,
    "div_trunc": lambda a, b: a.div(b, rounding_mode="trunc"),
    "atan2": lambda a, b, lib: lib.atan2(a, b),
    "copysign": lambda a, b: a.copysign(b),
    "hypot": lambda a, b: a.hypot(b),
}
TERNARY = {
    "lerp": lambda a, b, w: a.lerp(b, w),
    "addcmul": lambda x, a, b: x.addcmul(a, b, value=0.5),
    "addcdiv": lambda x, a, b, lib: lib.addcdiv(x, a, b, value=2.0),
}


DIVISIONS = ("fmod", "remainder", "floor_divide", "div_trunc")


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(BINARY))
def test_binary_matrix(op, cls, dtype, device):
    # Integer division by zero raises (ZeroDivisionError, on both sides): keep integer divisors from zero so that the
    # cell checks values (the signed grid below and test_integer_division_errors cover signs and the error).
    ints = not all(d.startswith("float") for d in as_tuple(dtype))
    domain = "positive" if op in DIVISIONS and ints else "normal"
    check_op(op, [(5, 7), (5, 7)], BINARY[op], device, cls, dtype, domain=domain)


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(TERNARY))
def test_ternary_matrix(op, cls, dtype, device):
    # addcdiv divides by its third input: keep it away from zero (the contract bounds terms of one sign).
    if isinstance(dtype, tuple):
        dtype = (*dtype, dtype[1])
    check_op(op, [(5, 7), (5, 7), (5, 7)], TERNARY[op], device, cls, dtype, domain="positive")


SPECIAL = [0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 2.5, -7.0, 1e30, -3e38, float("inf"), -float("inf"), float("nan")]
A, B = np.meshgrid(np.array(SPECIAL, np.float32), np.array(SPECIAL, np.float32))
GRID_A = np.linspace(-20.0, 20.0, 161, dtype=np.float32)
GRID_B = np.concatenate([np.linspace(-7.0, -0.25, 40), np.linspace(0.25, 7.0, 40)]).astype(np.float32)
GA, GB = (v.ravel() for v in np.meshgrid(GRID_A, GRID_B))

# torch's vectorized CPU fmod and remainder compute a − b·trunc(a/b) (floor), NaN for an infinite divisor (inf·0) and
# for subnormal operands, where C's exact fmod (which vkml computes) is finite; the grid leaves those out for them.
SUBNORMAL = [(v != 0) & (np.abs(v) < 1.2e-38) for v in (A.ravel(), B.ravel())]
ORDINARY = np.isfinite(B.ravel()) & ~SUBNORMAL[0] & ~SUBNORMAL[1]


def TRUNC2(a):
    return a.div(2, rounding_mode="trunc")


# Integers: every sign pair, remainders of 0 and of either sign, a divisor larger than the dividend, the int64 extremes
# (MIN // -1 wraps to MIN, as torch's does; torch's own MIN % -1 traps, so that pair is checked without torch below).
INT_A, INT_B = (v.ravel() for v in np.meshgrid(np.arange(-9, 10), np.array([-7, -4, -3, -2, -1, 1, 2, 3, 5, 11])))
BIG = np.array([2**62 + 7, -(2**62) - 7, 2**63 - 1, -(2**63), -(2**63), 12345678901234], np.int64)
BIG_D = np.array([3, -5, 2**62, -1, 7, -(2**31)], np.int64)


CASES = [
    *[case(op, [A.ravel(), B.ravel()], BINARY[op]) for op in BINARY if op not in ("fmod", "remainder")],
    *[case(op, [A.ravel()[ORDINARY], B.ravel()[ORDINARY]], BINARY[op]) for op in ("fmod", "remainder")],
    *[case(op, [GA, GB], BINARY[op]) for op in BINARY],
    # exact fmod of huge by tiny (long division over 250 exponents), subnormal divisors
    case(
        "fmod", [np.array([3e38, -3e38, 1e30, 7.0, 1e-38]), np.array([1e-45, 3e-39, 0.1, 1e-40, 3e-39])], BINARY["fmod"]
    ),
    case("remainder", [(4, 5)], lambda a: a % 1.5),
    case("remainder", [(4, 5)], lambda a: 2.5 % a, domain="positive"),
    case("floor_divide", [(4, 5)], lambda a: a // 0.3),
    case("floor_divide", [(4, 5), (4, 5)], lambda a, b: a.div(b, rounding_mode="floor")),
    case("div_trunc", [(4, 5)], lambda a, lib: lib.div(a, -0.3, rounding_mode="trunc")),
    case("div_trunc", [np.array([7.0, -7.0, 0.5, -0.5, -0.0, 6.0, np.inf, 1.0])], TRUNC2),
    case("floor_divide", [(4, 5)], lambda a, lib: lib.floor_divide(a, -2.0)),
    *[case(op, [INT_A.astype(dt), INT_B.astype(dt)], BINARY[op]) for op in DIVISIONS for dt in ("int64", "int32")],
    *[case(op, [BIG, BIG_D], BINARY[op]) for op in ("floor_divide", "div_trunc")],
    *[case(op, [BIG[:4], BIG_D[:4]], BINARY[op]) for op in ("fmod", "remainder")],
    case("remainder", [INT_A], lambda a: a % -3),
    case("floor_divide", [INT_A.astype("int32")], lambda a: a // 4),
    case("remainder", [INT_B], lambda b: 7 % b),
    case("atan2", [(4, 5)], lambda a: a.arctan2(a.flip(0))),
    case("copysign", [(4, 5)], lambda a: a.copysign(-1.0)),
    case("hypot", [np.array([3e38, 1e-40, 0.0, 3.0]), np.array([3e38, 1e-40, 0.0, 4.0])], BINARY["hypot"]),
    case("lerp", [(4, 5), (4, 5)], lambda a, b: a.lerp(b, 0.75)),
    case("lerp", [(4, 5), (4, 5)], lambda a, b, lib: lib.lerp(a, b, 0.25)),
    case("lerp", [np.array([1.0, -3.0, 1e30]), np.array([2.0, 5.0, -1e30])], lambda a, b: a.lerp(b, 1.0)),
    case("addcmul", [(4, 5), (4, 1), (5,)], lambda x, a, b: x.addcmul(a, b)),  # broadcast, value 1
    case("addcdiv", [(4, 5), (4, 5), (4, 5)], lambda x, a, b: x.addcdiv(a, b, value=0.1), domain="positive"),
]


test_case = each(CASES)


ERRORS = [
    error(
        "floor_divide",
        [(3, 4), (3, 4)],
        lambda a, b: a.div(b, rounding_mode="round"),
        ValueError,
        match="rounding_mode",
    ),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("op", DIVISIONS)
def test_integer_division_errors(op, device):
    """torch's CPU raises for an integer zero divisor, a tensor's or a scalar's, and refuses bool operands."""
    a = vkml.tensor(np.array([5, -3, 7]), device=device)
    for b in (vkml.tensor(np.array([1, 0, 2]), device=device), 0):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            BINARY[op](a, b)
    t = vkml.tensor(np.array([True, False]), device=device)
    with pytest.raises(NotImplementedError, match="bool"):
        BINARY[op](t, t)


def test_int64_min_by_minus_one(device):
    """MIN // -1 and MIN % -1 wrap as two's complement (torch's floor_divide gives MIN; its CPU remainder traps)."""
    a = vkml.tensor(np.array([-(2**63)]), device=device)
    assert (a // -1).numpy().tolist() == [-(2**63)]
    assert (a % -1).numpy().tolist() == [0]
    assert vkml.fmod(a, -1).numpy().tolist() == [0]


GRADS = {
    "fmod": ([(5, 7), (5, 7)], BINARY["fmod"]),
    "remainder": ([(5, 7), (5, 7)], BINARY["remainder"]),
    "atan2": ([(5, 7), (5, 7)], BINARY["atan2"]),
    "copysign": ([(5, 7), (5, 7)], BINARY["copysign"]),
    "hypot": ([(5, 7), (5, 7)], BINARY["hypot"]),
    # A scalar weight: a weight tensor's gradient Σ g·(b − a) cancels between terms, beyond what the contract's
    # magnitude (taken from |inputs|) can bound.
    "lerp": ([(5, 7), (5, 7)], lambda a, b: a.lerp(b, 0.3)),
    "addcmul": ([(5, 7), (5, 7), (5, 7)], TERNARY["addcmul"]),
    "addcdiv": ([(5, 7), (5, 7), (5, 7)], TERNARY["addcdiv"]),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f = GRADS[op]
    if isinstance(dtype, tuple):
        dtype = (*dtype, dtype[1])
    check_grad(op, shapes, f, device, cls, dtype, domain="positive" if op in ("addcdiv", "lerp") else "normal")


GRAD_CASES = [
    grad_case("atan2", [GA[:400], GB[:400]], BINARY["atan2"]),
]


test_grad_case = each(GRAD_CASES)
