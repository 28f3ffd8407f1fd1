// Binary elementwise ops, `case OP_<NAME>` for each row of vkml_ops::binary_ops! (build.rs writes the constants and
// fails the build when a row has no case); both inputs share the compute dtype.
// @inputs a b
// @uses special
// @uses arith
// @uses pow
// @uses binary_ops
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

fn value_f(e: u32) -> f32 {
    return binary_f(info.op, a_fbits(e), b_fbits(e));
}

fn b2i(c: bool) -> vec2<u32> {
    return vec2<u32>(select(0u, 1u, c), 0u);
}

// torch's powi on int64 pairs (see backend-cpu/src/binary.rs): ±1 and 0 for negative exponents, else wrapping
// exponentiation by squaring over the exponent's bits.
fn powi(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    if (is_neg64(y)) {
        let one = vec2<u32>(1u, 0u);
        if (all(x == one)) {
            return one;
        }
        if (all(x == vec2<u32>(0xffffffffu, 0xffffffffu))) {
            return select(one, x, (y.x & 1u) == 1u);
        }
        return vec2<u32>(0u, 0u);
    }
    var r = vec2<u32>(1u, 0u);
    var b = x;
    for (var i = 0u; i < 63u; i = i + 1u) {
        let bit = select(y.x >> i, y.y >> (i - 32u), i >= 32u) & 1u;
        if (bit == 1u) {
            r = mul64(r, b);
        }
        b = mul64(b, b);
    }
    return r;
}

// Truncated int64 division: (quotient, remainder), the remainder with the dividend's sign, wrapping at MIN / -1 as
// two's complement does (the magnitudes' unsigned long division, bit by bit). A zero divisor never arrives (the
// graph raises torch's ZeroDivisionError) and gives zeros.
fn divmod64(x: vec2<u32>, y: vec2<u32>) -> array<vec2<u32>, 2> {
    if ((y.x | y.y) == 0u) {
        return array<vec2<u32>, 2>(vec2<u32>(0u), vec2<u32>(0u));
    }
    let nx = is_neg64(x);
    let ny = is_neg64(y);
    let ux = select(x, neg64(x), nx);
    let uy = select(y, neg64(y), ny);
    var q = vec2<u32>(0u);
    var r = vec2<u32>(0u);
    for (var i = 63i; i >= 0; i = i - 1) {
        let bit = select(ux.x >> u32(i), ux.y >> u32(i - 32), i >= 32) & 1u;
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (r.y > uy.y || (r.y == uy.y && r.x >= uy.x)) {
            r = add64(r, neg64(uy));
            if (i >= 32) {
                q.y = q.y | (1u << u32(i - 32));
            } else {
                q.x = q.x | (1u << u32(i));
            }
        }
    }
    return array<vec2<u32>, 2>(select(q, neg64(q), nx != ny), select(r, neg64(r), nx));
}

fn value_i(e: u32) -> vec2<u32> {
    let x = a_i64(e);
    let y = b_i64(e);
    let c = cmp64(x, y);
    switch info.op {
        case OP_ADD: { return add64(x, y); }
        case OP_MUL: { return mul64(x, y); }
        case OP_DIV: { return divmod64(x, y)[0]; }
        case OP_FMOD: { return divmod64(x, y)[1]; }
        case OP_MAXIMUM: { return select(x, y, c < 0); }
        case OP_EQ: { return b2i(c == 0); }
        case OP_NE: { return b2i(c != 0); }
        case OP_LT: { return b2i(c < 0); }
        case OP_LE: { return b2i(c <= 0); }
        case OP_GT: { return b2i(c > 0); }
        case OP_GE: { return b2i(c >= 0); }
        case OP_BITWISE_AND: { return x & y; }
        case OP_BITWISE_OR: { return x | y; }
        case OP_BITWISE_XOR: { return x ^ y; }
        case OP_POW: { return powi(x, y); }
        case OP_MINIMUM, default: { return select(x, y, c > 0); }
    }
}
