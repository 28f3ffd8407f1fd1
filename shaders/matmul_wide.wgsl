// The wide register-blocked pipeline, for large float32 products on devices that run 256 invocations in a workgroup
// (WebGPU's default limit; the floor's is 128): a 128x128 output tile per workgroup of 16x16 invocations, each
// holding an 8x8 block of accumulators (rows 4ty..4ty+3 and 64+4ty.., columns 4tx..4tx+3 and 64+4tx..). K goes in
// steps of 8 through two 8 KiB buffers of workgroup memory (16 KiB in all, WebGPU's default): while a step computes
// from one buffer, the next step's tile arrives from the inputs and is stored into the other, so each step needs one
// barrier. Operands are float32 with m, n and K multiples of 4, each row- or column-major with strides and offsets in
// multiples of 4 (`wide_layout` in backend-vulkan matmul.rs), so every load from an input is one aligned vec4 and
// every store one vec4. Each output adds its K products one step at a time in k order, as every pipeline does.
// @uses matmul

@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> out: array<vec4<f32>>;

// ta[s][kk * 32 + q]: rows 4q..4q+3 of the tile in buffer s at k0 + kk; tb[s][kk * 32 + q]: columns 4q..4q+3.
var<workgroup> ta: array<array<vec4<f32>, 256>, 2>;
var<workgroup> tb: array<array<vec4<f32>, 256>, 2>;

// Invocation li's vec4 of A's tile at k0 (zeros outside the product): column-major, rows 4(li % 32).. at
// k0 + li / 32 (neighbours read neighbouring rows); row-major, k0 + 4(li % 2).. of row li / 2.
fn load_a(o: Operands, row0: u32, k0: u32, li: u32, cm: bool) -> vec4<f32> {
    var r = row0 + li / 2u;
    var kk = k0 + 4u * (li % 2u);
    if (cm) {
        r = row0 + 4u * (li % 32u);
        kk = k0 + li / 32u;
    }
    if (r >= info.extra.x || kk >= info.extra.z) {
        return vec4<f32>();
    }
    return a[u32(o.oa + i32(r) * o.sam + i32(kk) * o.sak) / 4u];
}

// Where load_a's vec4 goes in buffer s: whole, or (row-major) one element into each of four k rows.
fn put_a(s: u32, li: u32, v: vec4<f32>, cm: bool) {
    if (cm) {
        ta[s][li] = v;
        return;
    }
    let r = li / 2u;
    let kk = 4u * (li % 2u);
    for (var j = 0u; j < 4u; j = j + 1u) {
        ta[s][(kk + j) * 32u + r / 4u][r % 4u] = v[j];
    }
}

// Invocation li's vec4 of B's tile at k0: row-major, columns 4(li % 32).. at k0 + li / 32; column-major,
// k0 + 4(li % 2).. of column li / 2.
fn load_b(o: Operands, col0: u32, k0: u32, li: u32, cm: bool) -> vec4<f32> {
    var c = col0 + 4u * (li % 32u);
    var kk = k0 + li / 32u;
    if (cm) {
        c = col0 + li / 2u;
        kk = k0 + 4u * (li % 2u);
    }
    if (c >= info.extra.y || kk >= info.extra.z) {
        return vec4<f32>();
    }
    return b[u32(o.ob + i32(kk) * o.sbk + i32(c) * o.sbn) / 4u];
}

fn put_b(s: u32, li: u32, v: vec4<f32>, cm: bool) {
    if (!cm) {
        tb[s][li] = v;
        return;
    }
    let c = li / 2u;
    let kk = 4u * (li % 2u);
    for (var j = 0u; j < 4u; j = j + 1u) {
        tb[s][(kk + j) * 32u + c / 4u][c % 4u] = v[j];
    }
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    // Bit 0: a is column-major (its row stride is 1); bit 1: b is.
    let a_cm = (info.extra.w & 1u) != 0u;
    let b_cm = (info.extra.w & 2u) != 0u;
    let batch = wid.z;
    let o = operands(batch);
    let row0 = wid.y * 128u;
    let col0 = wid.x * 128u;
    let tx = lid.x;
    let ty = lid.y;
    // The block as sixteen explicit vec4 (c: columns 4tx.., d: 64+4tx..; 0-3 rows 4ty.., 4-7 rows 64+4ty..): a
    // private array indexed in a loop can end up in memory rather than registers (docs/matmul.md).
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
    put_a(0u, li, load_a(o, row0, 0u, li, a_cm), a_cm);
    put_b(0u, li, load_b(o, col0, 0u, li, b_cm), b_cm);
    workgroupBarrier();
    let steps = (k + 7u) / 8u;
    var s = 0u;
    for (var t = 0u; t < steps; t = t + 1u) {
        let more = t + 1u < steps;
        var na = vec4<f32>();
        var nb = vec4<f32>();
        if (more) {
            na = load_a(o, row0, 8u * (t + 1u), li, a_cm);
            nb = load_b(o, col0, 8u * (t + 1u), li, b_cm);
        }
        for (var kk = 0u; kk < 8u; kk = kk + 1u) {
            let a0 = ta[s][kk * 32u + ty];
            let a1 = ta[s][kk * 32u + 16u + ty];
            let b0 = tb[s][kk * 32u + tx];
            let b1 = tb[s][kk * 32u + 16u + tx];
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
        // The other buffer was last read before the previous barrier, so it can take the next tile now.
        if (more) {
            put_a(1u - s, li, na, a_cm);
            put_b(1u - s, li, nb, b_cm);
        }
        workgroupBarrier();
        s = 1u - s;
    }
    let base = batch * m * n;
    let c = col0 + 4u * tx;
    let r = row0 + 4u * ty;
    put_row(base, r, c, c0, d0);
    put_row(base, r + 1u, c, c1, d1);
    put_row(base, r + 2u, c, c2, d2);
    put_row(base, r + 3u, c, c3, d3);
    put_row(base, r + 64u, c, c4, d4);
    put_row(base, r + 65u, c, c5, d5);
    put_row(base, r + 66u, c, c6, d6);
    put_row(base, r + 67u, c, c7, d7);
}

// Row r of the block: columns c..c+3 from v and c+64..c+67 from w, those inside the output (n is a multiple of 4).
fn put_row(base: u32, r: u32, c: u32, v: vec4<f32>, w: vec4<f32>) {
    let m = info.extra.x;
    let n = info.extra.y;
    if (r >= m) {
        return;
    }
    if (c < n) {
        out[(base + r * n + c) / 4u] = v;
    }
    if (c + 64u < n) {
        out[(base + r * n + c + 64u) / 4u] = w;
    }
}
