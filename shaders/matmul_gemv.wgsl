// The gemv pipeline, for a product with one side a vector (m = 1 or n = 1): one workgroup per output. Invocation l
// sums the products at k = l, l + 128, ... in order, then the 128 partial sums meet in a fixed pairwise tree, so
// a long K is spread over the whole workgroup and the result is the same on every run.
// @inputs a b
// @uses matmul
// @uses matmul_load
// @uses arith
// @uses row_tree

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(128)
fn main(grid: Grid, @builtin(local_invocation_index) lid: u32) {
    let e = group_index(grid);
    if (e >= info.n) {
        return;
    }
    let x = element(e);
    var acc = 0.0;
    for (var kk = lid; kk < info.extra.z; kk = kk + 128u) {
        acc = acc + a_at(x.o, x.r, kk) * b_at(x.o, kk, x.c);
    }
    let total = tree_combine(lid, bitcast<u32>(acc), true);
    if (lid == 0u) {
        out[e] = total;
    }
}
