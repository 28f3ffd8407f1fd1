// The small matmul pipeline: one invocation per output and no workgroup memory or barriers, for products too small
// to fill a tile (where a tile's loads and barriers cost more than the reuse they buy). Each output sums its K
// products in order.
// @inputs a b
// @uses matmul
// @uses matmul_load
// @driver items

fn item(e: u32) {
    let x = element(e);
    var acc = 0.0;
    for (var kk = 0u; kk < info.extra.z; kk = kk + 1u) {
        acc = acc + a_at(x.o, x.r, kk) * b_at(x.o, kk, x.c);
    }
    out[e] = bitcast<u32>(acc);
}
