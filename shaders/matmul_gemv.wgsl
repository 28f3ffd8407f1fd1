// The gemv pipeline, for a product with one side a vector (m = 1 or n = 1): one workgroup per output. Invocation l
// sums the products at k = l, l + 128, ... in order, then the 128 partial sums meet in a fixed pairwise tree, so
// a long K is spread over the whole workgroup and the result is the same on every run.
// @inputs a b
// @uses matmul
// @uses matmul_load

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> part: array<f32, 128>;

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let e = wid.x + wid.y * nwg.x;
    if (e >= info.n) {
        return;
    }
    let x = element(e);
    var acc = 0.0;
    for (var kk = li; kk < info.extra.z; kk = kk + 128u) {
        acc = acc + a_at(x.o, x.r, kk) * b_at(x.o, kk, x.c);
    }
    part[li] = acc;
    workgroupBarrier();
    for (var s = 64u; s > 0u; s = s >> 1u) {
        if (li < s) {
            part[li] = part[li] + part[li + s];
        }
        workgroupBarrier();
    }
    if (li == 0u) {
        out[e] = bitcast<u32>(part[0]);
    }
}
