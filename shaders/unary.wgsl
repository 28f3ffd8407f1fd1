// Unary elementwise ops, one `case OP_<NAME>` per row of vkml_ops::unary_ops! (build.rs writes the constants and
// fails the build when a row has no case); input and output share a dtype.
// @inputs a
// @uses special
// @uses arith
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

// floor, ceil, trunc or round of a zero or subnormal input, from its bits: a GPU may flush the
// input to zero, but floor(-tiny) is -1 and ceil(tiny) is 1; the rest keep the sign of zero.
fn round_tiny(xb: u32, op: u32) -> f32 {
    let neg = (xb & 0x80000000u) != 0u;
    let nonzero = (xb & 0x7fffffffu) != 0u;
    if (op == OP_FLOOR && neg && nonzero) {
        return -1.0;
    }
    if (op == OP_CEIL && !neg && nonzero) {
        return 1.0;
    }
    return bitcast<f32>(xb & 0x80000000u);
}

// 1/sqrt(x) with the special values spelled out (Vulkan leaves inversesqrt of 0, inf and negatives undefined).
fn rsqrt_bits(xb: u32) -> f32 {
    let ax = xb & 0x7fffffffu;
    if (bnan(xb)) {
        return bitcast<f32>(xb);
    }
    if (ax == 0u) {
        return bitcast<f32>((xb & 0x80000000u) | 0x7f800000u);
    }
    if ((xb & 0x80000000u) != 0u) {
        return nan_f32();
    }
    if (ax == 0x7f800000u) {
        return 0.0;
    }
    if (ax < 0x00800000u) {
        // 1/sqrt(m · 2^-149) = inverseSqrt(2m) · 2^75, as sqrt_bits.
        return ldexp(inverseSqrt(f32(ax) * 2.0), 75);
    }
    return inverseSqrt(bitcast<f32>(xb));
}

// sin(πx)/(πx): 1 for |x| < 1e-4 (where it rounds to 1; a flushed subnormal is 0 anyway), 0 from |x| = 2^23 on
// (every such float is an integer n, and sin(πn) = 0; πx could overflow), NaN for ±inf and NaN.
fn sinc_f(xb: u32) -> f32 {
    let ax = xb & 0x7fffffffu;
    if (ax < 0x38d1b717u) {
        return 1.0;
    }
    if (ax >= 0x7f800000u) {
        return select(nan_f32(), bitcast<f32>(xb), ax > 0x7f800000u);
    }
    if (ax >= 0x4b000000u) {
        return 0.0;
    }
    let px = bitcast<f32>(xb) * 3.14159274;
    return sin_f(bitcast<u32>(px)) / px;
}

fn is_rounding(op: u32) -> bool {
    return op == OP_FLOOR || op == OP_CEIL || op == OP_TRUNC || op == OP_ROUND;
}

fn value_f(e: u32) -> f32 {
    let xb = a_fbits(e);
    let x = bitcast<f32>(xb);
    if (is_rounding(info.op) && (xb & 0x7f800000u) == 0u) {
        return round_tiny(xb, info.op);
    }
    switch info.op {
        // Negation and abs work on the sign bit: exact, and immune to subnormal flushing.
        case OP_NEG: { return bitcast<f32>(xb ^ 0x80000000u); }
        case OP_EXP: { return exp_bits(xb, false); }
        case OP_LOG: { return log_bits(xb, false); }
        case OP_SQRT: { return sqrt_bits(xb); }
        case OP_ABS: { return bitcast<f32>(xb & 0x7fffffffu); }
        case OP_SIGN: {
            if (bnan(xb) || (xb & 0x7fffffffu) == 0u) {
                return 0.0;
            }
            return select(1.0, -1.0, (xb & 0x80000000u) != 0u);
        }
        case OP_EXP2: { return exp_bits(xb, true); }
        case OP_LOG2: { return log_bits(xb, true); }
        case OP_FLOOR: { return floor(x); }
        case OP_CEIL: { return ceil(x); }
        case OP_TRUNC: { return trunc(x); }
        // WGSL's round is half to even, as torch's.
        case OP_ROUND: { return round(x); }
        case OP_RSQRT: { return rsqrt_bits(xb); }
        case OP_SIN: { return sin_f(xb); }
        case OP_COS: { return cos_f(xb); }
        case OP_TAN: { return tan_f(xb); }
        case OP_ASIN: { return asin_f(xb); }
        case OP_ACOS: { return acos_f(xb); }
        case OP_ATAN: { return atan_f(xb); }
        case OP_SINH: { return sinh_f(xb); }
        case OP_COSH: { return cosh_f(xb); }
        case OP_TANH: { return tanh_f(xb); }
        case OP_ASINH: { return asinh_f(xb); }
        case OP_ACOSH: { return acosh_f(xb); }
        case OP_ATANH: { return atanh_f(xb); }
        case OP_ERF: { return erf_f(xb); }
        case OP_ERFC: { return erfc_f(xb); }
        case OP_EXPM1: { return expm1_f(xb); }
        case OP_SINC: { return sinc_f(xb); }
        case OP_LOG1P, default: { return log1p_f(xb); }
    }
}

fn value_i(e: u32) -> vec2<u32> {
    // Integers reach only neg, abs and sign: float-only ops cast first, rounding ops on integers are copies.
    let x = a_i64(e);
    switch info.op {
        case OP_ABS: { return select(x, neg64(x), is_neg64(x)); }
        case OP_SIGN: {
            let c = cmp64(x, vec2<u32>(0u, 0u));
            return i64_from_i32(c);
        }
        case OP_NEG, default: { return neg64(x); }
    }
}
