// The register-blocked tiled pipeline, for large outputs: a 64x64 output tile per workgroup of 16x8 invocations,
// each holding an 8x4 block of accumulators in registers (rows ty + 8i, columns tx + 16j), with K in steps of 16
// through 8 KiB of workgroup memory (the floor guarantees 16 KiB). Every output still adds its K products in order,
// one fused step per k, so register blocking costs nothing in determinism.
// @inputs a b
// @uses matmul

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> ta: array<array<f32, 16>, 64>;
var<workgroup> tb: array<array<f32, 64>, 16>;

@compute @workgroup_size(16, 8)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    let batch = wid.z;
    let o = operands(batch);
    let row0 = wid.y * 64u;
    let col0 = wid.x * 64u;
    let tx = lid.x;
    let ty = lid.y;
    var acc: array<vec4<f32>, 8>;
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        // Each invocation stages 8 values of each tile; neighbouring invocations read neighbouring k (of a) and
        // neighbouring columns (of b).
        for (var h = 0u; h < 8u; h = h + 1u) {
            let e = li + 128u * h;
            let ar = e / 16u;
            let ak = e % 16u;
            var va = 0.0;
            if (row0 + ar < m && k0 + ak < k) {
                va = a_at(o, row0 + ar, k0 + ak);
            }
            ta[ar][ak] = va;
            let bk = e / 64u;
            let bc = e % 64u;
            var vb = 0.0;
            if (k0 + bk < k && col0 + bc < n) {
                vb = b_at(o, k0 + bk, col0 + bc);
            }
            tb[bk][bc] = vb;
        }
        workgroupBarrier();
        let kmax = min(16u, k - k0);
        for (var kk = 0u; kk < kmax; kk = kk + 1u) {
            let bv = vec4<f32>(tb[kk][tx], tb[kk][tx + 16u], tb[kk][tx + 32u], tb[kk][tx + 48u]);
            for (var i = 0u; i < 8u; i = i + 1u) {
                acc[i] = acc[i] + ta[ty + 8u * i][kk] * bv;
            }
        }
        workgroupBarrier();
    }
    let base = batch * m * n;
    for (var i = 0u; i < 8u; i = i + 1u) {
        let r = row0 + ty + 8u * i;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let c = col0 + tx + 16u * j;
            if (r < m && c < n) {
                out[base + r * n + c] = bitcast<u32>(acc[i][j]);
            }
        }
    }
}
