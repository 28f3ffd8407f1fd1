// Raw-bit copies: op 0 materialises a strided view of `a`; op 1 (assign) writes `b` into the elements of the
// contiguous base `a` that lie under a target view. Bits are moved, never converted, so NaN payloads survive.
// @inputs a b
// @driver bits

// For assign: info.shape/strides[0]/offset.x describe the target view with its dims sorted by decreasing
// stride (size-1 dims dropped); strides[1]/offset.y the value's view in the same order. Returns the value's
// buffer index for base element e, or -1 when e is not under the target.
fn value_index(e: u32) -> i32 {
    var r = i32(e) - i32(info.offset.x);
    if (r < 0) {
        return -1;
    }
    var v = i32(info.offset.y);
    for (var d = 0u; d < info.rank; d = d + 1u) {
        let s = stride(0u, d);
        let q = r / s;
        if (q >= i32(dim(d))) {
            return -1;
        }
        r = r - q * s;
        v = v + q * stride(1u, d);
    }
    if (r != 0) {
        return -1;
    }
    return v;
}

fn elem(e: u32) -> vec2<u32> {
    let dt = info.out_dtype;
    if (info.op == 0u) {
        return a_bits_at(src_index(0u, e), dt);
    }
    let vi = value_index(e);
    if (vi < 0) {
        return a_bits_at(e, dt);
    }
    return b_bits_at(u32(vi), dt);
}
