"""Casts (`.to(dtype)` and the dtype methods) between every pair of dtypes, and f32 -> f16/bf16 narrowing bit-exact.

torch leaves float -> int casts of nan, ±inf and out-of-range values undefined (C++ UB; results differ by CPU and
device), so those values are never compared: the extreme class skips integer targets, and ordinary float inputs stay
well inside int32. int64 -> int32 of values outside int32 is implementation-defined before C++20: not compared.
"""

import numpy as np
import pytest
from coverage_matrix import DTYPES, FLOATS, INTS
from helpers import case, check_op, each, static_reason

CLASSES = ("contiguous", "strided", "broadcast", "empty", "extreme")
PARAMS = [
    pytest.param(cls, src, dst, id=f"{cls}-{src}-{dst}")
    for cls in CLASSES
    for src in DTYPES
    for dst in DTYPES
    if static_reason("to", "cast", cls, src) is None
    and not (cls == "extreme" and src in FLOATS and dst in INTS)
    and not (cls == "extreme" and src == "int64" and dst == "int32")
]


@pytest.mark.parametrize(("cls", "src", "dst"), PARAMS)
def test_matrix(cls, src, dst, device):
    # "wide" ordinary values (|x| up to ~60) exercise float -> int truncation toward zero on both signs.
    check_op("to", [(5, 7)], _cast(dst), device, cls, src, domain="wide")


def _cast(dst):
    return lambda x, lib: x.to(getattr(lib, dst))


def _patterns(drop: int) -> np.ndarray:
    """float32 bit patterns around every rounding decision of a narrowing that drops `drop` mantissa bits: ties to
    even and odd, just below and above them, carries into the exponent, subnormal results, overflow, inf and nan."""
    half = 1 << (drop - 1)
    low = [0, 1, half - 1, half, half + 1, 3 * half, (1 << drop) - 1, 1 << drop, (1 << drop) + half]
    mantissas = sorted({m & 0x7FFFFF for m in low + [0x7FFFFF, 0x7FFFFF - half, 0x400000, 0x400000 | half, 0x7FE000]})
    if drop == 13:  # f16: exponents around f16's normal and subnormal range, plus the f32 extremes
        exponents = list(range(97, 146)) + [0, 1, 2, 200, 254, 255]
    else:  # bf16 shares f32's exponent range: sample all of it
        exponents = list(range(0, 256, 6)) + [1, 2, 125, 126, 127, 128, 253, 254, 255]
    bits = [(s << 31) | (e << 23) | m for s in (0, 1) for e in sorted(set(exponents)) for m in mantissas]
    return np.array(bits, np.uint32).view(np.float32)


def _widen(dtype: str, chunk: int) -> np.ndarray:
    """Every 16-bit pattern of chunk `chunk` of 16, as float32 values of `dtype` (nan payloads are not compared)."""
    bits = np.arange(chunk * 4096, (chunk + 1) * 4096, dtype=np.uint32)
    if dtype == "bfloat16":
        return (bits << 16).view(np.float32)
    return bits.astype(np.uint16).view(np.float16).astype(np.float32)


CASES = [
    case("to", [_patterns(13)], lambda x, lib: x.to(lib.float16)),
    case("to", [_patterns(16)], lambda x, lib: x.to(lib.bfloat16)),
    case("to", [_patterns(13)], lambda x: x.half()),
    case("to", [_patterns(16)], lambda x: x.bfloat16()),
    case("to", [_patterns(13)], lambda x, lib: x.to(lib.float64), dtype="float32"),
    case("to", [(4, 5)], lambda x: x.float(), dtype="float16"),
    case("to", [(4, 5)], lambda x: x.double(), dtype="bfloat16"),
    case("to", [(4, 5)], lambda x: (x * 10).int()),
    case("to", [(4, 5)], lambda x: (x * 10).long()),
    case("to", [(4, 5)], lambda x: x.bool(), domain="grid"),
    case("to", [(4, 5)], lambda x: x.float(), dtype="int64"),
    case("to", [(4, 5)], lambda x: x.half(), dtype="bool"),
    case("to", [(4, 5)], lambda x, lib: x.to(dtype=lib.int32), dtype="float16"),
    case("to", [(4, 5)], lambda x, dev, lib: x.to(dev, lib.float16)),
    case("to", [(4, 5)], lambda x, dev, lib: x.to(device=dev, dtype=lib.bfloat16)),
    case("to", [(4, 5)], lambda x, lib: x.to(lib.float32)),  # to the same dtype
    case("to", [(6, 5)], lambda x, lib: x.t().to(lib.float16)),
    case("to", [(6, 5)], lambda x, lib: (x[::2] * 3).to(lib.int32) + 1),
    case("to", [np.array([2.0**24 + 1, -(2.0**24) - 3, 65519.0, 65520.0, 1e5, -7.5, 7.5, -0.5])], lambda x: x.half(),
         dtype="float64"),
    case("to", [np.array([2**31 - 1, -(2**31), 2**24 + 1, 65520, 3])], lambda x: x.float(), dtype="int32"),
    case("to", [np.array([2**63 - 1, -(2**63), 2**53 + 1, 2**24 + 1, 3])], lambda x: x.float(), dtype="int64"),
    case("to", [np.array([2**63 - 1, -(2**63), 2**53 + 1, 2**24 + 1, 3])], lambda x: x.bfloat16(), dtype="int64"),
]


test_case = each(CASES)


@pytest.mark.parametrize("chunk", range(16))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_widen_every_pattern(dtype, chunk, device):
    """f16/bf16 -> f32 is exact for all 65,536 patterns of each 16-bit type (in 16 chunks to stay small)."""
    check_op("to", [_widen(dtype, chunk)], lambda x: x.float(), device, dtype=dtype)
