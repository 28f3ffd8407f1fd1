#!/usr/bin/env python3
"""Prints the constants of shaders/pow.wgsl.in: for j = 24..48, POW_INVC[j − 24] = 32/j rounded to f32 and
POW_LOG[j − 24] = −log2(POW_INVC) as an f32 pair (hi, lo) with hi + lo within 2⁻⁴⁸ of it (math.log2 in double is
within 2⁻⁵² relative), then 1/ln 2 as such a pair and the series coefficients of log2(1 + r)."""

import math
import struct


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def lit(x: float) -> str:
    """The shortest decimal that reads back as the same f32."""
    for digits in range(6, 12):
        s = f"{x:.{digits}g}"
        if f32(float(s)) == x:
            return s if any(c in s for c in ".e") else s + ".0"
    raise ValueError(x)


def pair(d: float) -> tuple[float, float]:
    hi = f32(d)
    return hi, f32(d - hi)


invc = [f32(32.0 / j) for j in range(24, 49)]
logs = [pair(0.0 - math.log2(v)) for v in invc]


def const(name: str, ty: str, items: list[str]) -> None:
    """A WGSL const array, wrapped between items at 116 columns."""
    lines = [f"const {name} = array<{ty}, {len(items)}>("]
    for i, item in enumerate(items):
        piece = item + (");" if i == len(items) - 1 else ",")
        if len(lines[-1]) + len(piece) + 1 > 116:
            lines.append("    " + piece)
        else:
            lines[-1] += ("" if lines[-1].endswith("(") else " ") + piece
    print("\n".join(lines))


const("POW_INVC", "f32", [lit(v) for v in invc])
const("POW_LOG", "vec2<f32>", [f"vec2({lit(h)}, {lit(lo)})" for h, lo in logs])
ih, il = pair(1.0 / math.log(2.0))
print(f"const INVLN2_HI = {lit(ih)};\nconst INVLN2_LO = {lit(il)};")
print(f"const LOG2_C2 = {lit(f32(-1.0 / (2.0 * math.log(2.0))))};")
coef = [f32((-1) ** (i + 1) / (i * math.log(2.0))) for i in range(3, 8)]
const("LOG2_C", "f32", [lit(c) for c in coef])
