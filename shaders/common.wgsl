// Shared by every kernel family (build.rs prepends it): the Meta uniform, dtype codes, software f16/bf16
// narrowing (round to nearest even, bit-exact with util/narrow.rs), and int64 arithmetic on (lo, hi) u32 pairs,
// since WGSL has no 64-bit integers without optional features.

const DT_F32: u32 = 0u;
const DT_F16: u32 = 1u;
const DT_BF16: u32 = 2u;
const DT_I32: u32 = 3u;
const DT_I64: u32 = 4u;
const DT_BOOL: u32 = 5u;

const WG: u32 = 128u;

struct Meta {
    n: u32,
    rank: u32,
    op: u32,
    out_dtype: u32,
    in_dtype: vec4<u32>,
    offset: vec4<u32>,
    shape: array<vec4<u32>, 2>,
    strides: array<array<vec4<i32>, 2>, 3>,
    extra: vec4<u32>,
    extra2: vec4<u32>,
    prog: array<vec4<u32>, 8>,
}

@group(0) @binding(0) var<uniform> info: Meta;

// A quiet NaN. WGSL forbids NaN in constant expressions (Chromium's Tint rejects `bitcast<f32>(0x7fc00000u)`), so
// the bits pass through a uniform value that is always 0.
fn nan_f32() -> f32 {
    return bitcast<f32>(0x7fc00000u | (info.n & 0u));
}

// ±inf by its bits (`sign` 0 or 0x80000000), through the uniform for the same reason.
fn inf_f32(sign: u32) -> f32 {
    return bitcast<f32>(0x7f800000u | sign | (info.n & 0u));
}

fn dim(d: u32) -> u32 {
    return info.shape[d / 4u][d % 4u];
}

fn stride(k: u32, d: u32) -> i32 {
    return info.strides[k][d / 4u][d % 4u];
}

// Buffer element index of input k for the row-major element e of the output shape.
fn src_index(k: u32, e: u32) -> u32 {
    // One dim (what coalescing leaves of contiguous and broadcast inputs): no division.
    if (info.rank == 1u) {
        return u32(i32(info.offset[k]) + i32(e) * stride(k, 0u));
    }
    var rem = e;
    var idx = i32(info.offset[k]);
    for (var d = i32(info.rank) - 1; d >= 0; d = d - 1) {
        let n = dim(u32(d));
        idx = idx + i32(rem % n) * stride(k, u32(d));
        rem = rem / n;
    }
    return u32(idx);
}

// The linear invocation index over a 2-D dispatch (x is limited to 65535 workgroups).
fn linear_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// Where a workgroup sits in a 2-D grid, for kernels whose workgroups each take one item (a row, an output, a run of
// vectors). Only uniform builtins: WGSL's uniformity analysis counts a struct with local_invocation_index in it as
// non-uniform as a whole, so that one stays a parameter of its own.
struct Grid {
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
}

// The workgroup's item: its linear index over the grid.
fn group_index(grid: Grid) -> u32 {
    return grid.wid.x + grid.wid.y * grid.nwg.x;
}

// NaN by its bits: WGSL lets implementations assume floats are never NaN, so `x != x` may fold to false.
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// Order key of a float's bits (-0 and +0 share key 0): comparing keys is exact even on GPUs that flush
// subnormals to zero, so comparisons, max and argmax agree with the CPU oracle bit for bit.
fn bkey(b: u32) -> i32 {
    let m = i32(b & 0x7fffffffu);
    return select(m, -m, (b & 0x80000000u) != 0u);
}

fn bnan(b: u32) -> bool {
    return (b & 0x7fffffffu) > 0x7f800000u;
}

fn fkey(x: f32) -> i32 {
    return bkey(bitcast<u32>(x));
}

// x < y and x == y on raw f32 bits.
fn blt(x: u32, y: u32) -> bool {
    return !bnan(x) && !bnan(y) && bkey(x) < bkey(y);
}

fn beq(x: u32, y: u32) -> bool {
    return !bnan(x) && !bnan(y) && bkey(x) == bkey(y);
}

// Nonzero (NaN included) by bits: a subnormal is nonzero even where arithmetic would flush it.
fn fnonzero(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) != 0u;
}

fn is_half(dt: u32) -> bool {
    return dt == DT_F16 || dt == DT_BF16;
}

fn is_float(dt: u32) -> bool {
    return dt <= DT_BF16;
}

// ---- 16-bit floats

fn half_of(word: u32, i: u32) -> u32 {
    return (word >> ((i & 1u) * 16u)) & 0xffffu;
}

fn f16_to_f32(h: u32) -> f32 {
    let s = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return bitcast<f32>(s | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        // Subnormal f16: m · 2^-24 with its leading one at bit q, exact in f32 (integer ops, so no flushing).
        if (m == 0u) {
            return bitcast<f32>(s);
        }
        let q = 31u - countLeadingZeros(m);
        return bitcast<f32>(s | ((q + 103u) << 23u) | ((m << (23u - q)) & 0x7fffffu));
    }
    return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}

fn bf16_to_f32(h: u32) -> f32 {
    return bitcast<f32>(h << 16u);
}

fn f32_to_f16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let exp = i32((b >> 23u) & 0xffu);
    let man = b & 0x7fffffu;
    if (exp == 0xff) {
        if (man == 0u) {
            return sign | 0x7c00u;
        }
        return sign | 0x7e00u | (man >> 13u);
    }
    let e = exp - 127;
    if (e > 15) {
        return sign | 0x7c00u;
    }
    if (e >= -14) {
        let h = (u32(e + 15) << 10u) | (man >> 13u);
        let rest = man & 0x1fffu;
        let up = rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u);
        return sign | (h + select(0u, 1u, up));
    }
    if (e < -25) {
        return sign;
    }
    let m = man | 0x800000u;
    let shift = u32(-e - 14 + 13);
    let kept = m >> shift;
    let rest = m & ((1u << shift) - 1u);
    let halfway = 1u << (shift - 1u);
    let up = rest > halfway || (rest == halfway && (kept & 1u) == 1u);
    return sign | (kept + select(0u, 1u, up));
}

fn f32_to_bf16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return ((b >> 16u) | 0x40u) & 0xffffu;
    }
    let lsb = (b >> 16u) & 1u;
    return ((b + 0x7fffu + lsb) >> 16u) & 0xffffu;
}

fn narrow(dt: u32, x: f32) -> u32 {
    if (dt == DT_F16) {
        return f32_to_f16(x);
    }
    return f32_to_bf16(x);
}

// ---- int64 as vec2<u32>(lo, hi), two's complement

fn i64_from_i32(v: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0));
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    let carry = select(0u, 1u, lo < a.x);
    return vec2<u32>(lo, a.y + b.y + carry);
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return add64(vec2<u32>(~a.x, ~a.y), vec2<u32>(1u, 0u));
}

// Full 32x32 -> 64-bit unsigned product from 16-bit halves.
fn mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(lo, hi);
}

fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

// Signed comparison: -1, 0, 1.
fn cmp64(a: vec2<u32>, b: vec2<u32>) -> i32 {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    if (ah != bh) {
        return select(1, -1, ah < bh);
    }
    if (a.x != b.x) {
        return select(1, -1, a.x < b.x);
    }
    return 0;
}

fn is_neg64(a: vec2<u32>) -> bool {
    return (a.y & 0x80000000u) != 0u;
}

// int64 -> f32, round to nearest even (WGSL's own conversions do not promise the rounding).
fn i64_to_f32(v: vec2<u32>) -> f32 {
    let neg = is_neg64(v);
    var m = v;
    if (neg) {
        m = neg64(v);
    }
    var sign = 0u;
    if (neg) {
        sign = 0x80000000u;
    }
    if (m.x == 0u && m.y == 0u) {
        return 0.0;
    }
    // Position of the leading one (0..63).
    var p: u32;
    if (m.y != 0u) {
        p = 63u - countLeadingZeros(m.y);
    } else {
        p = 31u - countLeadingZeros(m.x);
    }
    if (p < 24u) {
        // Exact: fits in the 24-bit significand.
        return bitcast<f32>(sign | bitcast<u32>(f32(m.x)));
    }
    let s = p - 23u; // bits to drop, 1..40
    var kept: u32;
    var rest_hi: bool; // rest > half
    var rest_eq: bool; // rest == half
    if (s < 32u) {
        kept = (m.x >> s) | (m.y << (32u - s));
        let rest = m.x & ((1u << s) - 1u);
        let halfv = 1u << (s - 1u);
        rest_hi = rest > halfv;
        rest_eq = rest == halfv;
    } else {
        let t = s - 32u;
        kept = m.y >> t;
        var rest_y = 0u;
        if (t > 0u) {
            rest_y = m.y & ((1u << t) - 1u);
        }
        // half = 2^(s-1): in the high word when s-1 >= 32, else the top bit of the low word.
        if (t == 0u) {
            rest_hi = m.x > 0x80000000u;
            rest_eq = m.x == 0x80000000u;
        } else {
            let halfy = 1u << (t - 1u);
            rest_hi = rest_y > halfy || (rest_y == halfy && m.x != 0u);
            rest_eq = rest_y == halfy && m.x == 0u;
        }
    }
    let up = rest_hi || (rest_eq && (kept & 1u) == 1u);
    let bits = ((p + 127u) << 23u) + (kept & 0x7fffffu) + select(0u, 1u, up);
    return bitcast<f32>(sign | bits);
}

// f32 -> int64: truncate toward zero, saturate, NaN -> 0 (the CPU oracle's rule).
fn f32_to_i64(x: f32) -> vec2<u32> {
    if (is_nan(x)) {
        return vec2<u32>(0u, 0u);
    }
    if (x >= 9.223372e18) {
        return vec2<u32>(0xffffffffu, 0x7fffffffu);
    }
    if (x <= -9.223372e18) {
        return vec2<u32>(0u, 0x80000000u);
    }
    let a = trunc(abs(x));
    let hi = floor(a / 4294967296.0);
    let lo = a - hi * 4294967296.0;
    var r = vec2<u32>(u32(lo), u32(hi));
    if (x < 0.0) {
        r = neg64(r);
    }
    return r;
}

// f32 -> int32 with the same rule.
fn f32_to_i32(x: f32) -> u32 {
    if (is_nan(x)) {
        return 0u;
    }
    if (x >= 2147483647.0) {
        return 0x7fffffffu;
    }
    if (x <= -2147483648.0) {
        return 0x80000000u;
    }
    return bitcast<u32>(i32(trunc(x)));
}

// How many output elements one invocation writes: two for packed 16-bit outputs, else one.
fn per_slot(dt: u32) -> u32 {
    return select(1u, 2u, is_half(dt));
}
