// The register-blocked tiled pipeline, for large outputs: a 128x64 output tile per workgroup of 8x16 invocations,
// each holding an 8x8 block of accumulators in registers (rows 4ty..4ty+3 and 64+4ty.., columns 4tx..4tx+3 and
// 32+4tx..), with K in steps of 16 through 12 KiB of workgroup memory (the floor guarantees 16 KiB); the next
// step's values load into registers while a step computes. Each step reads
// two vec4 of A's tile and two of B's per 64 multiply-adds: A's tile is stored transposed (k-major, one vec4 of
// padding a row against bank conflicts), so four rows arrive in one read. Every output still adds its K products in
// order, one step per k, so register blocking costs nothing in determinism.
// @inputs a b
// @uses matmul
// @uses matmul_load

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

// ta[kk * 33 + q] holds rows 4q..4q+3 of the tile at k0 + kk; tb[kk * 16 + q] columns 4q..4q+3.
var<workgroup> ta: array<vec4<f32>, 528>;
var<workgroup> tb: array<vec4<f32>, 256>;

@compute @workgroup_size(8, 16)
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
    let row0 = wid.y * 128u;
    let col0 = wid.x * 64u;
    let tx = lid.x;
    let ty = lid.y;
    // The block as sixteen explicit vec4 (c: columns 4tx.., d: 32+4tx..): a private array indexed in a loop can end
    // up in memory rather than registers (docs/matmul.md).
    var c0 = vec4<f32>();
    var d0 = vec4<f32>();
    var c1 = vec4<f32>();
    var d1 = vec4<f32>();
    var c2 = vec4<f32>();
    var d2 = vec4<f32>();
    var c3 = vec4<f32>();
    var d3 = vec4<f32>();
    var c4 = vec4<f32>();
    var d4 = vec4<f32>();
    var c5 = vec4<f32>();
    var d5 = vec4<f32>();
    var c6 = vec4<f32>();
    var d6 = vec4<f32>();
    var c7 = vec4<f32>();
    var d7 = vec4<f32>();
    // The next step's quads wait in registers (explicit variables, as the block) while this step computes, so their
    // loads overlap the arithmetic instead of stalling after each barrier.
    var pa0 = quad_a(o, row0, 0u, li);
    var pa1 = quad_a(o, row0, 0u, li + 128u);
    var pa2 = quad_a(o, row0, 0u, li + 256u);
    var pa3 = quad_a(o, row0, 0u, li + 384u);
    var pb0 = quad_b(o, col0, 0u, li);
    var pb1 = quad_b(o, col0, 0u, li + 128u);
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        ta[(li % 16u) * 33u + li / 16u] = pa0;
        ta[(li % 16u) * 33u + li / 16u + 8u] = pa1;
        ta[(li % 16u) * 33u + li / 16u + 16u] = pa2;
        ta[(li % 16u) * 33u + li / 16u + 24u] = pa3;
        tb[li] = pb0;
        tb[li + 128u] = pb1;
        workgroupBarrier();
        if (k0 + 16u < k) {
            pa0 = quad_a(o, row0, k0 + 16u, li);
            pa1 = quad_a(o, row0, k0 + 16u, li + 128u);
            pa2 = quad_a(o, row0, k0 + 16u, li + 256u);
            pa3 = quad_a(o, row0, k0 + 16u, li + 384u);
            pb0 = quad_b(o, col0, k0 + 16u, li);
            pb1 = quad_b(o, col0, k0 + 16u, li + 128u);
        }
        for (var kk = 0u; kk < 16u; kk = kk + 1u) {
            let a0 = ta[kk * 33u + ty];
            let a1 = ta[kk * 33u + 16u + ty];
            let b0 = tb[kk * 16u + tx];
            let b1 = tb[kk * 16u + 8u + tx];
            c0 = c0 + a0.x * b0;
            d0 = d0 + a0.x * b1;
            c1 = c1 + a0.y * b0;
            d1 = d1 + a0.y * b1;
            c2 = c2 + a0.z * b0;
            d2 = d2 + a0.z * b1;
            c3 = c3 + a0.w * b0;
            d3 = d3 + a0.w * b1;
            c4 = c4 + a1.x * b0;
            d4 = d4 + a1.x * b1;
            c5 = c5 + a1.y * b0;
            d5 = d5 + a1.y * b1;
            c6 = c6 + a1.z * b0;
            d6 = d6 + a1.z * b1;
            c7 = c7 + a1.w * b0;
            d7 = d7 + a1.w * b1;
        }
        workgroupBarrier();
    }
    let base = batch * m * n;
    let c = col0 + 4u * tx;
    store_row(base, row0 + 4u * ty + 0u, m, n, c, c0, d0);
    store_row(base, row0 + 4u * ty + 1u, m, n, c, c1, d1);
    store_row(base, row0 + 4u * ty + 2u, m, n, c, c2, d2);
    store_row(base, row0 + 4u * ty + 3u, m, n, c, c3, d3);
    store_row(base, row0 + 64u + 4u * ty + 0u, m, n, c, c4, d4);
    store_row(base, row0 + 64u + 4u * ty + 1u, m, n, c, c5, d5);
    store_row(base, row0 + 64u + 4u * ty + 2u, m, n, c, c6, d6);
    store_row(base, row0 + 64u + 4u * ty + 3u, m, n, c, c7, d7);
}

// Quad e of A's tile at k0 (e < 512): rows 4(e / 16)..+3 at k0 + e % 16, stored at ta[(e % 16) * 33 + e / 16];
// neighbouring invocations read neighbouring k.
fn quad_a(o: Operands, row0: u32, k0: u32, e: u32) -> vec4<f32> {
    let r = row0 + 4u * (e / 16u);
    let kk = k0 + e % 16u;
    return vec4<f32>(a_or0(o, r, kk), a_or0(o, r + 1u, kk), a_or0(o, r + 2u, kk), a_or0(o, r + 3u, kk));
}

// Quad e of B's tile at k0 (e < 256): columns 4(e % 16)..+3 at k0 + e / 16, stored at tb[e].
fn quad_b(o: Operands, col0: u32, k0: u32, e: u32) -> vec4<f32> {
    let kk = k0 + e / 16u;
    let c = col0 + 4u * (e % 16u);
    return vec4<f32>(b_or0(o, kk, c), b_or0(o, kk, c + 1u), b_or0(o, kk, c + 2u), b_or0(o, kk, c + 3u));
}

// Row r of the block: columns c..c+3 from v and c+32..c+35 from w, those inside the output.
fn store_row(base: u32, r: u32, m: u32, n: u32, c: u32, v: vec4<f32>, w: vec4<f32>) {
    if (r >= m) {
        return;
    }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (c + j < n) {
            out[base + r * n + c + j] = bitcast<u32>(v[j]);
        }
        if (c + 32u + j < n) {
            out[base + r * n + c + 32u + j] = bitcast<u32>(w[j]);
        }
    }
}
