// Unary elementwise ops (op codes match backend-vulkan/src/unary.rs); input and output share a dtype.
// @inputs a
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

// log (or log2 when `base2`), with subnormal inputs taken from their bits (m · 2^-149), since GPUs may flush them
// before log sees them: log(x) = log(m) − 149·ln 2, log2(x) = log2(m) − 149.
fn log_bits(xb: u32, base2: bool) -> f32 {
    var x = bitcast<f32>(xb);
    var shift = 0.0;
    if ((xb & 0x7f800000u) == 0u && (xb & 0x007fffffu) != 0u) {
        if ((xb & 0x80000000u) != 0u) {
            return bitcast<f32>(0x7fc00000u);
        }
        x = f32(xb & 0x007fffffu);
        shift = select(103.27893, 149.0, base2);
    }
    return select(log(x), log2(x), base2) - shift;
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
        return bitcast<f32>(0x7fc00000u);
    }
    if (ax == 0x7f800000u) {
        return 0.0;
    }
    return inverseSqrt(bitcast<f32>(xb));
}

fn value_f(e: u32) -> f32 {
    let xb = a_fbits(e);
    let x = bitcast<f32>(xb);
    switch info.op {
        // Negation and abs work on the sign bit: exact, and immune to subnormal flushing.
        case 0u: { return bitcast<f32>(xb ^ 0x80000000u); }
        case 1u: { return exp(x); }
        case 2u: { return log_bits(xb, false); }
        case 3u: { return sqrt(x); }
        case 4u: { return bitcast<f32>(xb & 0x7fffffffu); }
        case 5u: {
            if (bnan(xb) || (xb & 0x7fffffffu) == 0u) {
                return 0.0;
            }
            return select(1.0, -1.0, (xb & 0x80000000u) != 0u);
        }
        case 6u: { return exp2(x); }
        case 7u: { return log_bits(xb, true); }
        case 8u: { return floor(x); }
        case 9u: { return ceil(x); }
        case 10u: { return trunc(x); }
        // WGSL's round is half to even, as torch's.
        case 11u: { return round(x); }
        default: { return rsqrt_bits(xb); }
    }
}

fn value_i(e: u32) -> vec2<u32> {
    // Integers reach only neg, abs and sign: float-only ops cast first, rounding ops on integers are copies.
    let x = a_i64(e);
    switch info.op {
        case 4u: { return select(x, neg64(x), is_neg64(x)); }
        case 5u: {
            let c = cmp64(x, vec2<u32>(0u, 0u));
            return i64_from_i32(c);
        }
        default: { return neg64(x); }
    }
}
