// Inclusive scans along the last dim of a view (op 0 cumsum, 1 cumprod). Each output element folds its row's prefix
// in index order — the order of the CPU oracle's running fold — so the two agree bit for bit with no carries between
// invocations and no atomics; a row of n costs n(n + 1)/2 operations (the selector's limit). 16-bit values fold in
// f32 and are rounded once; integers and bool fold in int64.
// @inputs a
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

fn value_f(e: u32) -> f32 {
    let n = dim(info.rank - 1u);
    let i = e % n;
    let row = e - i;
    var acc = select(0.0, 1.0, info.op == OP_CUMPROD);
    for (var j = 0u; j <= i; j = j + 1u) {
        let x = a_f32(row + j);
        if (info.op == OP_CUMSUM) {
            acc = acc + x;
        } else {
            acc = acc * x;
        }
    }
    return acc;
}

fn value_i(e: u32) -> vec2<u32> {
    let n = dim(info.rank - 1u);
    let i = e % n;
    let row = e - i;
    var acc = vec2<u32>(select(0u, 1u, info.op == OP_CUMPROD), 0u);
    for (var j = 0u; j <= i; j = j + 1u) {
        let x = a_i64(row + j);
        if (info.op == OP_CUMSUM) {
            acc = add64(acc, x);
        } else {
            acc = mul64(acc, x);
        }
    }
    return acc;
}
