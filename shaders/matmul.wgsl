// The batched/strided matmul pipeline: a 16x16 output tile per workgroup of 16x8 invocations (each computes two
// rows), K in tiles of 16 through workgroup memory, the batch in the grid's z. The general case: medium sizes,
// many small batches, any strides. Every output accumulates its K products in order, so results are deterministic.
// @inputs a b
// @uses matmul
// @uses matmul_load

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    let batch = wid.z;
    let o = operands(batch);
    let row0 = wid.y * 16u;
    let col0 = wid.x * 16u;
    let tx = lid.x;
    let ty = lid.y;
    var acc0 = 0.0;
    var acc1 = 0.0;
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        for (var h = 0u; h < 2u; h = h + 1u) {
            let r = ty + 8u * h;
            ta[r][tx] = a_or0(o, row0 + r, k0 + tx);
            tb[r][tx] = b_or0(o, k0 + r, col0 + tx);
        }
        workgroupBarrier();
        let kmax = min(16u, k - k0);
        for (var kk = 0u; kk < kmax; kk = kk + 1u) {
            acc0 = acc0 + ta[ty][kk] * tb[kk][tx];
            acc1 = acc1 + ta[ty + 8u][kk] * tb[kk][tx];
        }
        workgroupBarrier();
    }
    let col = col0 + tx;
    if (col >= n) {
        return;
    }
    let base = batch * m * n;
    let r0 = row0 + ty;
    if (r0 < m) {
        out[base + r0 * n + col] = bitcast<u32>(acc0);
    }
    let r1 = r0 + 8u;
    if (r1 < m) {
        out[base + r1 * n + col] = bitcast<u32>(acc1);
    }
}
