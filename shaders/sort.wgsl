// argsort along the last dim of a view (op 0 ascending, 1 descending), stable: one invocation per element finds its
// rank — how many elements of its row come before it (smaller, or equal with a lower index; NaN after everything,
// -0 equal to +0) — and writes its own index there. Ranks form a permutation, so no two invocations write one place
// and every device gives the same bytes; a row of n costs n comparisons per element (the selector's limit).
// @inputs a
// @driver items

// An order key for floats: bkey's order with every NaN above +inf.
fn fsort_key(e: u32, dt: u32) -> i32 {
    var b: u32;
    if (dt == DT_F32) {
        b = a_fbits(e);
    } else {
        b = bitcast<u32>(a_f32(e));
    }
    if (bnan(b)) {
        return 0x7fffffff;
    }
    return bkey(b);
}

// Does element j of the row come before element i? (`ki`, `vi`: element i's float key or integer value.)
fn before(j: u32, i: u32, kj: i32, ki: i32, vj: vec2<u32>, vi: vec2<u32>, fc: bool, desc: bool) -> bool {
    var c: i32;
    if (fc) {
        c = select(select(0, 1, kj > ki), -1, kj < ki);
    } else {
        c = cmp64(vj, vi);
    }
    if (desc) {
        c = -c;
    }
    return c < 0 || (c == 0 && j < i);
}

fn item(e: u32) {
    let n = dim(info.rank - 1u);
    let row = e - e % n;
    let i = e % n;
    let dt = info.in_dtype.x;
    let fc = is_float(dt);
    let desc = info.op == 1u;
    var ki = 0;
    var vi = vec2<u32>(0u, 0u);
    if (fc) {
        ki = fsort_key(e, dt);
    } else {
        vi = a_i64(e);
    }
    var rank = 0u;
    for (var j = 0u; j < n; j = j + 1u) {
        var kj = 0;
        var vj = vec2<u32>(0u, 0u);
        if (fc) {
            kj = fsort_key(row + j, dt);
        } else {
            vj = a_i64(row + j);
        }
        if (before(j, i, kj, ki, vj, vi, fc, desc)) {
            rank = rank + 1u;
        }
    }
    out[2u * (row + rank)] = i;
    out[2u * (row + rank) + 1u] = 0u;
}
