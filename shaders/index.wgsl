// Gather and scatter along one dim (op codes match backend-vulkan/src/index.rs). Op 0 gathers a[.., b[p], ..] for
// each element p of the index b. Ops 1 (scatter) and 2 (scatter_add) compute each output element from the base a
// and every element of the source c whose index in b points at it, walking the index in order: duplicates resolve
// the same way on every device (the last one wins; sums add in one fixed order) and no atomics are needed.
// info.extra.x is the dim; extra.y the extent of a along it (gather) or of b and c along it (scatter).
// @inputs a b c
// @driver bits

// The coordinate of output element e along dim d.
fn coord(e: u32, d: u32) -> u32 {
    var inner = 1u;
    for (var j = d + 1u; j < info.rank; j = j + 1u) {
        inner = inner * dim(j);
    }
    return (e / inner) % dim(d);
}

// Input k's buffer index for output element e moved to coordinate `at` along the dim.
fn moved(k: u32, e: u32, c: u32, at: u32) -> u32 {
    return u32(i32(src_index(k, e)) + (i32(at) - i32(c)) * stride(k, info.extra.x));
}

// The index value at buffer position i of b, clamped into [0, n): the host checked the values already, and the
// clamp keeps every read inside its buffer whatever they are.
fn index_at(i: u32, n: u32) -> u32 {
    let v = b_i64_at(i, info.in_dtype.y);
    if (is_neg64(v)) {
        return 0u;
    }
    return select(v.x, n - 1u, v.y != 0u || v.x >= n);
}

// The raw bits of output element e (16-bit values in the low half).
fn gathered(e: u32) -> vec2<u32> {
    let c = coord(e, info.extra.x);
    let k = index_at(src_index(1u, e), info.extra.y);
    return a_bits_at(moved(0u, e, c, k), info.out_dtype);
}

fn scattered(e: u32) -> vec2<u32> {
    let c = coord(e, info.extra.x);
    var bits = a_bits_at(src_index(0u, e), info.out_dtype);
    for (var i = 0u; i < info.extra.y; i = i + 1u) {
        if (index_at(moved(1u, e, c, i), 0xffffffffu) == c) {
            bits = c_bits_at(moved(2u, e, c, i), info.out_dtype);
        }
    }
    return bits;
}

fn summed(e: u32) -> vec2<u32> {
    let c = coord(e, info.extra.x);
    let dt = info.out_dtype;
    if (is_float(dt)) {
        var acc = a_f32_at(src_index(0u, e), dt);
        for (var i = 0u; i < info.extra.y; i = i + 1u) {
            if (index_at(moved(1u, e, c, i), 0xffffffffu) == c) {
                acc = acc + c_f32_at(moved(2u, e, c, i), dt);
            }
        }
        if (is_half(dt)) {
            return vec2<u32>(narrow(dt, acc), 0u);
        }
        return vec2<u32>(bitcast<u32>(acc), 0u);
    }
    var acc = a_i64_at(src_index(0u, e), dt);
    for (var i = 0u; i < info.extra.y; i = i + 1u) {
        if (index_at(moved(1u, e, c, i), 0xffffffffu) == c) {
            acc = add64(acc, c_i64_at(moved(2u, e, c, i), dt));
        }
    }
    if (dt == DT_BOOL) {
        return vec2<u32>(select(0u, 1u, acc.x != 0u || acc.y != 0u), 0u);
    }
    return acc;
}

fn elem(e: u32) -> vec2<u32> {
    switch info.op {
        case 0u: { return gathered(e); }
        case 1u: { return scattered(e); }
        default: { return summed(e); }
    }
}
