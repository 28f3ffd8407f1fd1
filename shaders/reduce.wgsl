// Reductions (op 0 sum, 1 max, 2 argmax, 3 min, 4 argmin, 5 prod) over the trailing extra.x dims of a view: one
// workgroup per output, each invocation folding a fixed strided subset in index order and a fixed tree combining
// them; for short rows (extra.z = 1), one invocation per output folding its row in order; for columns (extra.z = 2:
// outputs side by side, each one's elements a stride apart), a workgroup per COLUMNS outputs, SLICES invocations to
// an output, each folding a fixed strided subset, neighbouring invocations reading neighbouring words. Every way the
// result is the same on every run (no atomics). A float product is kept as a mantissa and a power of two (`Scaled`), so
// factors far apart (1e20, 1e20, 1e-20, 1e-20) never overflow or underflow before the end, in any order.
// @inputs a
// @uses order

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

// A partial result: a float (sum, extremum or a product's mantissa), an int64 (or a float product's power of two
// in .x), and the reduced index of an extremum (NONE before the first element).
struct Part {
    f: f32,
    i: vec2<u32>,
    x: u32,
}

const NONE: u32 = 0xffffffffu;

var<workgroup> parts: array<Part, 128>;

// The column path's outputs per workgroup (backend-vulkan/src/reduce.rs's COLUMNS) and invocations per output.
const COLUMNS: u32 = 8u;
const SLICES: u32 = 16u;

// Buffer index of reduced element r of output o.
fn in_index(o: u32, r: u32) -> u32 {
    // extra2.x = 1: output o's reduced elements lie extra2.z apart from offset + o * extra2.y (no division).
    if (info.extra2.x == 1u) {
        return info.offset.x + o * info.extra2.y + r * info.extra2.z;
    }
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

fn is_lo() -> bool {
    return info.op == OP_AMIN || info.op == OP_ARGMIN;
}

// p with element x (float inputs) or xi (int64 inputs) at reduced index r folded in.
fn fold(p: Part, x: f32, xi: vec2<u32>, r: u32, fc: bool) -> Part {
    let op = info.op;
    if (op == OP_SUM) {
        if (fc) {
            return Part(p.f + x, p.i, p.x);
        }
        return Part(p.f, add64(p.i, xi), p.x);
    }
    if (op == OP_PROD) {
        if (fc) {
            let m = mul_scaled(Scaled(p.f, bitcast<i32>(p.i.x)), split_f(x));
            return Part(m.m, vec2<u32>(bitcast<u32>(m.e), 0u), p.x);
        }
        return Part(p.f, mul64(p.i, xi), p.x);
    }
    // OP_AMAX, OP_ARGMAX, OP_AMIN, OP_ARGMIN: the first extremum (NaN beats everything).
    let lo = is_lo();
    let extremum = lo || op == OP_AMAX || op == OP_ARGMAX;
    let take = p.x == NONE || (fc && beats_f(x, r, p.f, p.x, lo)) || (!fc && beats_i(xi, r, p.i, p.x, lo));
    if (extremum && take) {
        return Part(x, xi, r);
    }
    return p;
}

// The elements r = start, start + step, … of output o folded in order into the empty result (0 for a sum, 1 for a
// product with exponent 0, nothing for an extremum).
fn fold_range(o: u32, start: u32, step: u32, fc: bool) -> Part {
    let prod = info.op == OP_PROD;
    var p = Part(select(0.0, 1.0, prod), vec2<u32>(select(0u, 1u, prod && !fc), 0u), NONE);
    let end = info.extra.y;
    var r = start;
    // Four elements at a time, all loaded before any is folded, so that four loads are in flight rather than one
    // (a long reduction is otherwise bound by the latency of each load); the fold order is unchanged.
    for (; r + 3u * step < end; r = r + 4u * step) {
        let x0 = element(o, r, fc);
        let x1 = element(o, r + step, fc);
        let x2 = element(o, r + 2u * step, fc);
        let x3 = element(o, r + 3u * step, fc);
        p = fold(p, x0.f, x0.i, r, fc);
        p = fold(p, x1.f, x1.i, r + step, fc);
        p = fold(p, x2.f, x2.i, r + 2u * step, fc);
        p = fold(p, x3.f, x3.i, r + 3u * step, fc);
    }
    for (; r < end; r = r + step) {
        let x = element(o, r, fc);
        p = fold(p, x.f, x.i, r, fc);
    }
    return p;
}

// Reduced element r of output o: as f32 (float inputs) or int64 (the rest), in a Part whose index is unused.
fn element(o: u32, r: u32, fc: bool) -> Part {
    let at = in_index(o, r);
    let dt = info.in_dtype.x;
    if (fc) {
        return Part(a_f32_at(at, dt), vec2<u32>(0u), 0u);
    }
    return Part(0.0, a_i64_at(at, dt), 0u);
}

// Two partial results combined; p's elements precede q's.
fn merge(p: Part, q: Part, fc: bool) -> Part {
    let op = info.op;
    if (op == OP_PROD && fc) {
        let m = mul_scaled(Scaled(p.f, bitcast<i32>(p.i.x)), Scaled(q.f, bitcast<i32>(q.i.x)));
        return Part(m.m, vec2<u32>(bitcast<u32>(m.e), 0u), NONE);
    }
    if (op == OP_SUM || op == OP_PROD) {
        return fold(p, q.f, q.i, NONE, fc);
    }
    if (q.x == NONE) {
        return p;
    }
    return fold(p, q.f, q.i, q.x, fc);
}

// Output o from its whole result, in the output dtype.
fn finish(o: u32, p: Part, fc: bool) {
    let op = info.op;
    if (op == OP_ARGMAX || op == OP_ARGMIN) {
        out[2u * o] = p.x;
        out[2u * o + 1u] = 0u;
        return;
    }
    var f = p.f;
    if (op == OP_PROD && fc) {
        f = scaled_value(Scaled(p.f, bitcast<i32>(p.i.x)));
    }
    switch info.out_dtype {
        case 0u: { out[o] = bitcast<u32>(f); }
        case 4u: {
            out[2u * o] = p.i.x;
            out[2u * o + 1u] = p.i.y;
        }
        case 3u: { out[o] = p.i.x; }
        default: { out[o] = select(0u, 1u, p.i.x != 0u); }
    }
}

// The workgroup's partials combined in a fixed tree: `count` partials `unit` apart for each of the `unit` outputs
// (partial j of output i at parts[j * unit + i]), each output's whole result left in parts[i]. Called by every
// invocation of the workgroup: it meets a barrier at each level and after the last.
fn tree(lid: u32, unit: u32, count: u32, fc: bool) {
    for (var h = count / 2u; h > 0u; h = h / 2u) {
        workgroupBarrier();
        if (lid < h * unit) {
            parts[lid] = merge(parts[lid], parts[lid + h * unit], fc);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(128)
fn main(grid: Grid, @builtin(local_invocation_index) lid: u32) {
    let fc = is_float(info.in_dtype.x);
    let g = group_index(grid);
    if (info.extra.z == 1u) {
        let o = g * WG + lid;
        if (o < info.n) {
            finish(o, fold_range(o, 0u, 1u, fc), fc);
        }
        return;
    }
    if (info.extra.z == 2u) {
        // Invocation lid folds elements s, s + SLICES, … of output o; past the last output it folds none (start at
        // the end), but still meets every barrier.
        let o = g * COLUMNS + lid % COLUMNS;
        let s = lid / COLUMNS;
        parts[lid] = fold_range(o, select(info.extra.y, s, o < info.n), SLICES, fc);
        tree(lid, COLUMNS, SLICES, fc);
        if (s == 0u && o < info.n) {
            finish(o, parts[lid], fc);
        }
        return;
    }
    if (g >= info.n) {
        return;
    }
    parts[lid] = fold_range(g, lid, WG, fc);
    tree(lid, 1u, WG, fc);
    if (lid == 0u) {
        finish(g, parts[0], fc);
    }
}
