// Binary elementwise ops (op codes match backend-vulkan/src/binary.rs); both inputs share the compute dtype.
// @inputs a b
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

fn b2f(c: bool) -> f32 {
    return select(0.0, 1.0, c);
}

fn value_f(e: u32) -> f32 {
    let x = a_f32(e);
    let y = b_f32(e);
    let any_nan = is_nan(x) || is_nan(y);
    switch info.op {
        case 0u: { return x + y; }
        case 1u: { return x * y; }
        case 2u: { return x / y; }
        case 3u: {
            // torch.maximum: NaN propagates, and `x` wins unless x < y (so max(-0, +0) = -0, relu(-0) = -0).
            if (is_nan(x)) {
                return x;
            }
            if (is_nan(y) || x < y) {
                return y;
            }
            return x;
        }
        // Comparisons with a NaN operand are decided by its bits (only != holds), not left to the compiler.
        case 4u: { return b2f(!any_nan && x == y); }
        case 5u: { return b2f(any_nan || x != y); }
        case 6u: { return b2f(!any_nan && x < y); }
        case 7u: { return b2f(!any_nan && x <= y); }
        case 8u: { return b2f(!any_nan && x > y); }
        default: { return b2f(!any_nan && x >= y); }
    }
}

fn b2i(c: bool) -> vec2<u32> {
    return vec2<u32>(select(0u, 1u, c), 0u);
}

fn value_i(e: u32) -> vec2<u32> {
    let x = a_i64(e);
    let y = b_i64(e);
    let c = cmp64(x, y);
    switch info.op {
        case 0u: { return add64(x, y); }
        case 1u: { return mul64(x, y); }
        // 2 (true division) always computes in float.
        case 3u: { return select(x, y, c < 0); }
        case 4u: { return b2i(c == 0); }
        case 5u: { return b2i(c != 0); }
        case 6u: { return b2i(c < 0); }
        case 7u: { return b2i(c <= 0); }
        case 8u: { return b2i(c > 0); }
        default: { return b2i(c >= 0); }
    }
}
