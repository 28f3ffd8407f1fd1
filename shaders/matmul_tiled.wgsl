// The register-blocked tiled pipeline, for large outputs: a 64x64 output tile per workgroup of 16x8 invocations,
// each holding an 8x4 block of accumulators in registers (rows ty + 8i, columns tx + 16j), with K in steps of 16
// through 8 KiB of workgroup memory (the floor guarantees 16 KiB). Every output still adds its K products in order,
// one fused step per k, so register blocking costs nothing in determinism.
// @inputs a b
// @uses matmul
// @uses matmul_load

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
    // The 8x4 block as eight explicit vec4 rows: a private array indexed in a loop can end up in memory rather
    // than registers (docs/matmul.md).
    var c0 = vec4<f32>();
    var c1 = vec4<f32>();
    var c2 = vec4<f32>();
    var c3 = vec4<f32>();
    var c4 = vec4<f32>();
    var c5 = vec4<f32>();
    var c6 = vec4<f32>();
    var c7 = vec4<f32>();
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        // Each invocation stages 8 values of each tile; neighbouring invocations read neighbouring k (of a) and
        // neighbouring columns (of b). Past K both tiles hold zeros, so the full 16 steps below add +0 there.
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
        for (var kk = 0u; kk < 16u; kk = kk + 1u) {
            let bv = vec4<f32>(tb[kk][tx], tb[kk][tx + 16u], tb[kk][tx + 32u], tb[kk][tx + 48u]);
            c0 = c0 + ta[ty][kk] * bv;
            c1 = c1 + ta[ty + 8u][kk] * bv;
            c2 = c2 + ta[ty + 16u][kk] * bv;
            c3 = c3 + ta[ty + 24u][kk] * bv;
            c4 = c4 + ta[ty + 32u][kk] * bv;
            c5 = c5 + ta[ty + 40u][kk] * bv;
            c6 = c6 + ta[ty + 48u][kk] * bv;
            c7 = c7 + ta[ty + 56u][kk] * bv;
        }
        workgroupBarrier();
    }
    let base = batch * m * n;
    let c = col0 + tx;
    store_row(base, row0 + ty, m, n, c, c0);
    store_row(base, row0 + ty + 8u, m, n, c, c1);
    store_row(base, row0 + ty + 16u, m, n, c, c2);
    store_row(base, row0 + ty + 24u, m, n, c, c3);
    store_row(base, row0 + ty + 32u, m, n, c, c4);
    store_row(base, row0 + ty + 40u, m, n, c, c5);
    store_row(base, row0 + ty + 48u, m, n, c, c6);
    store_row(base, row0 + ty + 56u, m, n, c, c7);
}

// Row r of the block: columns c, c + 16, c + 32, c + 48, those inside the output.
fn store_row(base: u32, r: u32, m: u32, n: u32, c: u32, v: vec4<f32>) {
    if (r >= m) {
        return;
    }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (c + 16u * j < n) {
            out[base + r * n + c + 16u * j] = bitcast<u32>(v[j]);
        }
    }
}
