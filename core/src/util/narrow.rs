//! f32 → f16 / bf16 narrowing in software, round to nearest even, so every device produces the same bits.
//! `shaders/common.wgsl` implements the same two functions; the tests compare both against the `half` crate.

/// The f16 bit pattern nearest to `x` (ties to even); NaN stays NaN (quiet, sign kept), overflow rounds to ±inf.
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x007f_ffff;
    if exp == 0xff {
        // Inf keeps a zero mantissa; NaN keeps its top payload bits and is forced quiet.
        return if man == 0 { sign | 0x7c00 } else { sign | 0x7e00 | (man >> 13) as u16 };
    }
    // Unbiased exponent; f16 normals cover [-14, 15].
    let e = exp - 127;
    if e > 15 {
        return sign | 0x7c00;
    }
    if e >= -14 {
        // Normal: keep 10 mantissa bits, round the 13 dropped bits to nearest even. A carry may bump the exponent,
        // which is exactly the right result (up to and including overflow to inf).
        let half = (((e + 15) as u32) << 10) | (man >> 13);
        let rest = man & 0x1fff;
        let round_up = rest > 0x1000 || (rest == 0x1000 && (half & 1) == 1);
        return sign | (half + round_up as u32) as u16;
    }
    if e < -25 {
        // Below half the smallest subnormal (2^-25): rounds to zero.
        return sign;
    }
    // Subnormal: the value is m · 2^(e-23) with the implicit bit; the f16 subnormal unit is 2^-24.
    let m = man | 0x0080_0000;
    let shift = (-e - 14 + 13) as u32; // bits dropped: 13 plus how far below 2^-14 we are
    let kept = m >> shift;
    let rest = m & ((1u32 << shift) - 1);
    let halfway = 1u32 << (shift - 1);
    let round_up = rest > halfway || (rest == halfway && (kept & 1) == 1);
    sign | (kept + round_up as u32) as u16
}

/// The bf16 bit pattern nearest to `x` (ties to even); NaN stays a quiet NaN with its sign.
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if (b & 0x7fff_ffff) > 0x7f80_0000 {
        return ((b >> 16) | 0x0040) as u16;
    }
    let lsb = (b >> 16) & 1;
    ((b + 0x7fff + lsb) >> 16) as u16
}

/// Exact widening of f16 bits to f32.
pub fn f16_bits_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// Exact widening of bf16 bits to f32.
pub fn bf16_bits_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}
