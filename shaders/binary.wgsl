// Binary elementwise ops (op codes match backend-vulkan/src/binary.rs); both inputs share the compute dtype.
// @inputs a b
// @uses special
// @uses pow
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

// x / y on raw bits, within Vulkan's 2.5 ULP everywhere: the spec bounds division only for |y| in
// [2^-126, 2^126], so huge divisors are scaled down by 4 through their exponent bits, and subnormal operands
// (which a GPU may flush, or whose reciprocal underflows) are divided as integers times powers of two.
fn fdiv(xb: u32, yb: u32) -> f32 {
    let ax = xb & 0x7fffffffu;
    let ay = yb & 0x7fffffffu;
    let sign = (xb ^ yb) & 0x80000000u;
    if (bnan(xb) || bnan(yb)) {
        return nan_f32();
    }
    if (ay == 0u) {
        if (ax == 0u) {
            return nan_f32();
        }
        return bitcast<f32>(sign | 0x7f800000u);
    }
    if (ax == 0u) {
        // 0 / y is a signed zero for every nonzero y (lavapipe's 0 / subnormal came out NaN).
        return bitcast<f32>(sign);
    }
    if (ay > 0x7e800000u && ay < 0x7f800000u) {
        if (ax == 0x7f800000u) {
            return bitcast<f32>(sign | 0x7f800000u);
        }
        if (ax < 0x01800000u) {
            // |x| < 2^-124 and |y| > 2^126: the quotient is below half the smallest subnormal.
            return bitcast<f32>(sign);
        }
        return signed(sign, bitcast<f32>(xb - 0x01000000u) / bitcast<f32>(yb - 0x01000000u));
    }
    let xsub = ax != 0u && ax < 0x00800000u;
    let ysub = ay < 0x00800000u;
    if (xsub && ysub) {
        return bitcast<f32>(sign | bitcast<u32>(f32(ax) / f32(ay)));
    }
    if (ysub) {
        // x / (m · 2^-149) = (x / m) · 2^149.
        let q = bitcast<f32>(ax) / f32(ay);
        return bitcast<f32>(sign | bitcast<u32>(ldexp(ldexp(q, 100), 49)));
    }
    if (xsub) {
        // (m · 2^-149) / y = (m / y) · 2^-149, which may be subnormal (a GPU may flush it: the contract allows it).
        // A divisor below 2^-64 is first scaled up by 2^64, so that m / y (m < 2^23) cannot overflow (it did:
        // 1e-40 / 1e-35 gave inf, found by the mutation campaign's tests); the scale comes back in the shift.
        var y = bitcast<f32>(ay);
        var shift = -49;
        if (ay < 0x1f800000u) {
            y = ldexp(y, 64);
            shift = 15;
        }
        let q = f32(ax) / y;
        return bitcast<f32>(sign | bitcast<u32>(ldexp(ldexp(q, -100), shift)));
    }
    return signed(sign, bitcast<f32>(xb) / bitcast<f32>(yb));
}

// `q` with its sign set to `sign`: a GPU that flushes a subnormal result (or a subnormal operand) may drop the sign
// of the zero, which a product or quotient of finite values always knows from its operands.
fn signed(sign: u32, q: f32) -> f32 {
    let b = bitcast<u32>(q);
    if (bnan(b)) {
        return q;
    }
    return bitcast<f32>(sign | (b & 0x7fffffffu));
}

fn b2f(c: bool) -> f32 {
    return select(0.0, 1.0, c);
}

fn value_f(e: u32) -> f32 {
    let xb = a_fbits(e);
    let yb = b_fbits(e);
    let x = bitcast<f32>(xb);
    let y = bitcast<f32>(yb);
    switch info.op {
        case 0u: { return x + y; }
        case 1u: { return signed((xb ^ yb) & 0x80000000u, x * y); }
        case 2u: { return fdiv(xb, yb); }
        case 3u: {
            // torch.maximum: NaN propagates, and `x` wins unless x < y (so max(-0, +0) = -0, relu(-0) = -0).
            if (bnan(xb)) {
                return x;
            }
            if (bnan(yb) || blt(xb, yb)) {
                return y;
            }
            return x;
        }
        case 10u: {
            if (bnan(xb)) {
                return x;
            }
            if (bnan(yb) || blt(yb, xb)) {
                return y;
            }
            return x;
        }
        // Comparisons on bits (see bkey): exact for NaN and subnormal operands on every GPU.
        case 4u: { return b2f(beq(xb, yb)); }
        case 5u: { return b2f(!beq(xb, yb)); }
        case 6u: { return b2f(blt(xb, yb)); }
        case 7u: { return b2f(blt(xb, yb) || beq(xb, yb)); }
        case 8u: { return b2f(blt(yb, xb)); }
        case 14u: { return fmod_f(xb, yb); }
        case 15u: { return atan2_f(xb, yb); }
        // copysign works on the bits: exact, NaN's sign included.
        case 16u: { return bitcast<f32>((xb & 0x7fffffffu) | (yb & 0x80000000u)); }
        case 17u: { return pow_f(xb, yb); }
        default: { return b2f(blt(yb, xb) || beq(xb, yb)); }
    }
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
        case 9u: { return b2i(c >= 0); }
        case 11u: { return x & y; }
        case 12u: { return x | y; }
        case 13u: { return x ^ y; }
        case 17u: { return powi(x, y); }
        // 10: minimum.
        default: { return select(x, y, c > 0); }
    }
}
