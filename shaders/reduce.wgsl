// Reductions (op 0 sum, 1 max, 2 argmax, 3 min, 4 argmin, 5 prod) over the trailing extra.x dims of a view: one workgroup per output;
// each invocation folds a fixed strided subset in index order, then a fixed tree combines them, so the result
// is the same on every run (no atomics). A float product is kept as a mantissa and a power of two (`Scaled`), so
// factors far apart (1e20, 1e20, 1e-20, 1e-20) never overflow or underflow before the end, in any order.
// @inputs a

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> sf: array<f32, 128>;
var<workgroup> si: array<vec2<u32>, 128>;
var<workgroup> sx: array<u32, 128>;

// Buffer index of reduced element r of output o.
fn in_index(o: u32, r: u32) -> u32 {
    let axes = info.extra.x;
    var idx = i32(info.offset.x);
    var rem = r;
    for (var d = i32(info.rank) - 1; d >= i32(info.rank - axes); d = d - 1) {
        let n = dim(u32(d));
        idx = idx + i32(rem % n) * stride(0u, u32(d));
        rem = rem / n;
    }
    rem = o;
    for (var d = i32(info.rank - axes) - 1; d >= 0; d = d - 1) {
        let n = dim(u32(d));
        idx = idx + i32(rem % n) * stride(0u, u32(d));
        rem = rem / n;
    }
    return u32(idx);
}

// m · 2^e with |m| in [0.5, 1) for finite nonzero values; 0, ±inf and NaN are kept in m with e = 0.
struct Scaled {
    m: f32,
    e: i32,
}

// A normal float's bits as m · 2^e (0x3f000000 gives m the exponent of 0.5).
fn split_normal(b: u32) -> Scaled {
    return Scaled(bitcast<f32>((b & 0x807fffffu) | 0x3f000000u), i32((b >> 23u) & 0xffu) - 126);
}

// x as m · 2^e, from its bits (a subnormal's significand, converted exactly, carries it, so no flush can lose it).
fn split_f(x: f32) -> Scaled {
    let b = bitcast<u32>(x);
    let biased = (b >> 23u) & 0xffu;
    if (biased == 255u || (b & 0x7fffffffu) == 0u) {
        return Scaled(x, 0);
    }
    if (biased == 0u) {
        let s = split_normal(bitcast<u32>(f32(b & 0x7fffffu)));
        return Scaled(select(s.m, -s.m, (b & 0x80000000u) != 0u), s.e - 149);
    }
    return split_normal(b);
}

// a · b: the mantissas' product lies in [0.25, 1) and rounds once, as a plain product does; the exponents add
// (kept within ±2^29, far past where any f32 product can come back into range).
fn mul_scaled(a: Scaled, b: Scaled) -> Scaled {
    let p = split_f(a.m * b.m);
    return Scaled(p.m, clamp(a.e + b.e + p.e, -536870912, 536870912));
}

// 2^k as a float, for k in [-149, 127].
fn pow2(k: i32) -> f32 {
    if (k < -126) {
        return bitcast<f32>(1u << u32(k + 149));
    }
    return bitcast<f32>(u32(k + 127) << 23u);
}

// The float s stands for, rounded once: ±inf past the range, a signed zero below half the smallest subnormal.
fn scaled_value(s: Scaled) -> f32 {
    let b = bitcast<u32>(s.m);
    if ((b & 0x7fffffffu) == 0u || (b & 0x7fffffffu) >= 0x7f800000u || s.e == 0) {
        return s.m;
    }
    let sign = b & 0x80000000u;
    if (s.e > 128) {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    if (s.e < -149) {
        return bitcast<f32>(sign);
    }
    if (s.e >= -125) {
        return (s.m * 2.0) * pow2(s.e - 1); // exact: a normal result
    }
    return s.m * pow2(s.e); // a subnormal result, rounded once (GPUs may flush it)
}

// Does (v, i) beat (w, j) for max/argmax (min/argmin when `lo`)? NaN wins; ties go to the lower index.
fn beats_f(v: f32, i: u32, w: f32, j: u32, lo: bool) -> bool {
    let vn = is_nan(v);
    let wn = is_nan(w);
    if (vn || wn) {
        return vn && (!wn || i < j);
    }
    let better = select(fkey(v) > fkey(w), fkey(v) < fkey(w), lo);
    return better || (fkey(v) == fkey(w) && i < j);
}

fn beats_i(v: vec2<u32>, i: u32, w: vec2<u32>, j: u32, lo: bool) -> bool {
    let c = cmp64(v, w);
    let better = select(c > 0, c < 0, lo);
    return better || (c == 0 && i < j);
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let o = wid.x + wid.y * nwg.x;
    if (o >= info.n) {
        return;
    }
    let inner = info.extra.y;
    let dt = info.in_dtype.x;
    let fc = is_float(dt);
    let op = info.op;
    let lo = op == OP_AMIN || op == OP_ARGMIN;
    let extremum = lo || op == OP_AMAX || op == OP_ARGMAX;
    // Each invocation's partial result; index 0xffffffff marks "no element yet".
    let prod = op == OP_PROD;
    var f = select(0.0, 1.0, prod);
    var iv = vec2<u32>(select(0u, 1u, prod), 0u);
    var ix = 0xffffffffu;
    // A float product's power of two (f holds its mantissa); kept in si's first word for the tree.
    var pe = 0;
    for (var r = lid; r < inner; r = r + WG) {
        let at = in_index(o, r);
        if (fc) {
            let x = a_f32_at(at, dt);
            if (op == OP_SUM) {
                f = f + x;
            } else if (prod) {
                let p = mul_scaled(Scaled(f, pe), split_f(x));
                f = p.m;
                pe = p.e;
            } else if (extremum && (ix == 0xffffffffu || beats_f(x, r, f, ix, lo))) {
                f = x;
                ix = r;
            }
        } else {
            let x = a_i64_at(at, dt);
            if (op == OP_SUM) {
                iv = add64(iv, x);
            } else if (prod) {
                iv = mul64(iv, x);
            } else if (extremum && (ix == 0xffffffffu || beats_i(x, r, iv, ix, lo))) {
                iv = x;
                ix = r;
            }
        }
    }
    sf[lid] = f;
    si[lid] = select(iv, vec2<u32>(bitcast<u32>(pe), 0u), prod && fc);
    sx[lid] = ix;
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        workgroupBarrier();
        if (lid < s) {
            let j = lid + s;
            if (op == OP_SUM) {
                sf[lid] = sf[lid] + sf[j];
                si[lid] = add64(si[lid], si[j]);
            } else if (prod && fc) {
                let p = mul_scaled(Scaled(sf[lid], bitcast<i32>(si[lid].x)), Scaled(sf[j], bitcast<i32>(si[j].x)));
                sf[lid] = p.m;
                si[lid] = vec2<u32>(bitcast<u32>(p.e), 0u);
            } else if (prod) {
                si[lid] = mul64(si[lid], si[j]);
            } else if (sx[j] != 0xffffffffu) {
                let take = sx[lid] == 0xffffffffu
                    || (fc && beats_f(sf[j], sx[j], sf[lid], sx[lid], lo))
                    || (!fc && beats_i(si[j], sx[j], si[lid], sx[lid], lo));
                if (take) {
                    sf[lid] = sf[j];
                    si[lid] = si[j];
                    sx[lid] = sx[j];
                }
            }
        }
    }
    workgroupBarrier();
    if (lid != 0u) {
        return;
    }
    if (op == OP_ARGMAX || op == OP_ARGMIN) {
        out[2u * o] = sx[0];
        out[2u * o + 1u] = 0u;
        return;
    }
    if (prod && fc) {
        sf[0] = scaled_value(Scaled(sf[0], bitcast<i32>(si[0].x)));
    }
    switch info.out_dtype {
        case 0u: { out[o] = bitcast<u32>(sf[0]); }
        case 4u: {
            out[2u * o] = si[0].x;
            out[2u * o + 1u] = si[0].y;
        }
        case 3u: { out[o] = si[0].x; }
        default: { out[o] = select(0u, 1u, si[0].x != 0u); }
    }
}
