// The staged cooperative-matrix pipeline, for float16 products at least 128 x 128 on devices with matrix units: a
// 128x128 output tile per workgroup of four 32-wide subgroups, each accumulating a 64x64 quarter as a 4x4 grid of
// 16x16 f32 tiles by coopMultiplyAdd. K advances in steps of 32: the workgroup copies both operands' 128x32 slices
// into workgroup memory with aligned 16-byte loads (8 halves each; zeros past K), the next step's slices load into
// registers while this step computes, and each subgroup reads its 16x16 operand tiles from workgroup memory. Each
// 64x64 quarter reads its operands from the shared slices once per step rather than once per 16x16 tile from the
// buffers, which bounds the direct pipeline (matmul_coop.wgsl). A slice is stored row by row in its buffer's
// layout (a row-major a keeps rows of 32 k, a column-major one rows of 128 m), each row padded by 8 halves so that
// the rows a tile load reads start in different banks.
//
// wgpu 30 declares the Vulkan memory model for cooperative-matrix modules without making workgroup accesses
// available and visible across a barrier (wgpu issue 8805); the backend compiles this family itself and declares
// the GLSL450 model, under which workgroup memory is coherent and workgroupBarrier orders it (backend-vulkan
// spirv.rs). Cooperative operations must run in workgroup-uniform control flow: branches depend on the uniform
// layout flags and sizes only, the subgroup's quarter is chosen by addresses, and workgroups along an edge move
// back to end at the output's edge (m and n at least 128, multiples of 16), so every tile a workgroup stores is
// inside; where two workgroups overlap they compute the same products in the same order and store the same
// bytes. The steps run in K order and the hardware's order inside a step is fixed, so a device gives the same
// bytes for the same inputs.
// @features f16 cooperative_matrix subgroups
// @uses matmul

// Eight halves (16 aligned bytes) a load.
@group(0) @binding(1) var<storage, read> a: array<mat2x4<f16>>;
@group(0) @binding(2) var<storage, read> b: array<mat2x4<f16>>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;

// K per step, and the padded row lengths (in halves) of a slice stored with rows of 32 k (SHORT) or of 128 m or n
// (LONG).
const STEP: u32 = 32u;
const SHORT: u32 = 40u;
const LONG: u32 = 136u;

var<workgroup> ta: array<f16, 5120>;
var<workgroup> tb: array<f16, 5120>;

// Where a slice starts in its buffer (in halves), the stride between the rows it stores, and how many rows and
// columns lie inside the operand (the rest are zeros).
struct Slice {
    base: i32,
    stride: i32,
    rows: u32,
    cols: u32,
}

// The row and column (in halves) that vec4 q of a slice holds: 4 vec4s to a row of 32, 16 to a row of 128.
fn place(q: u32, long: bool) -> vec2<u32> {
    if (long) {
        return vec2<u32>(q / 16u, 8u * (q % 16u));
    }
    return vec2<u32>(q / 4u, 8u * (q % 4u));
}

// a's slice at rows r0.., k k0..: rows of k where a is row-major, rows of m where it is column-major (`long`).
fn slice_a(o: Operands, r0: u32, k0: u32, long: bool) -> Slice {
    let m = info.extra.x;
    let k = info.extra.z;
    if (long) {
        return Slice(o.oa + i32(r0) * o.sam + i32(k0) * o.sak, o.sak, k - k0, m - r0);
    }
    return Slice(o.oa + i32(r0) * o.sam + i32(k0) * o.sak, o.sam, m - r0, k - k0);
}

// b's slice at k k0.., columns c0..: rows of n where b is row-major (`long`), rows of k where it is column-major.
fn slice_b(o: Operands, k0: u32, c0: u32, long: bool) -> Slice {
    let n = info.extra.y;
    let k = info.extra.z;
    if (long) {
        return Slice(o.ob + i32(k0) * o.sbk + i32(c0) * o.sbn, o.sbk, k - k0, n - c0);
    }
    return Slice(o.ob + i32(k0) * o.sbk + i32(c0) * o.sbn, o.sbn, n - c0, k - k0);
}

fn fetch_a(s: Slice, long: bool, q: u32) -> mat2x4<f16> {
    let p = place(q, long);
    if (p.x < s.rows && p.y < s.cols) {
        return a[u32(s.base + i32(p.x) * s.stride + i32(p.y)) / 8u];
    }
    return mat2x4<f16>();
}

fn fetch_b(s: Slice, long: bool, q: u32) -> mat2x4<f16> {
    let p = place(q, long);
    if (p.x < s.rows && p.y < s.cols) {
        return b[u32(s.base + i32(p.x) * s.stride + i32(p.y)) / 8u];
    }
    return mat2x4<f16>();
}

// Where vec4 q of a slice goes in workgroup memory.
fn slot(q: u32, long: bool) -> u32 {
    let p = place(q, long);
    return p.x * select(SHORT, LONG, long) + p.y;
}

fn put_a(q: u32, long: bool, v: mat2x4<f16>) {
    let at = slot(q, long);
    for (var h = 0u; h < 8u; h = h + 1u) {
        ta[at + h] = v[h / 4u][h % 4u];
    }
}

fn put_b(q: u32, long: bool, v: mat2x4<f16>) {
    let at = slot(q, long);
    for (var h = 0u; h < 8u; h = h + 1u) {
        tb[at + h] = v[h / 4u][h % 4u];
    }
}

// The 16x16 tile of a's slice at slice rows rr.., k kk.., and of b's at k kk.., columns cc.. (the layout flags
// are read here, from the uniform, so that the branch is uniform).
fn tile_a(rr: u32, kk: u32) -> coop_mat16x16<f16, A> {
    if ((info.extra.w & 1u) != 0u) {
        return coopLoad<coop_mat16x16<f16, A>>(&ta[kk * LONG + rr], LONG);
    }
    return coopLoadT<coop_mat16x16<f16, A>>(&ta[rr * SHORT + kk], SHORT);
}

fn tile_b(kk: u32, cc: u32) -> coop_mat16x16<f16, B> {
    if ((info.extra.w & 2u) != 0u) {
        return coopLoad<coop_mat16x16<f16, B>>(&tb[cc * SHORT + kk], SHORT);
    }
    return coopLoadT<coop_mat16x16<f16, B>>(&tb[kk * LONG + cc], LONG);
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg: u32,
) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    // Bit 0: a is column-major (stored in rows of m); bit 1: b is (stored in rows of k).
    let a_long = (info.extra.w & 1u) != 0u;
    let b_long = (info.extra.w & 2u) == 0u;
    let batch = wid.z;
    let o = operands(batch);
    let r0 = min(wid.y * 128u, m - 128u);
    let c0 = min(wid.x * 128u, n - 128u);
    // The subgroup's quarter of the tile.
    let rr = 64u * (sg / 2u);
    let cc = 64u * (sg % 2u);
    var q00 = coop_mat16x16<f32, C>();
    var q01 = coop_mat16x16<f32, C>();
    var q02 = coop_mat16x16<f32, C>();
    var q03 = coop_mat16x16<f32, C>();
    var q10 = coop_mat16x16<f32, C>();
    var q11 = coop_mat16x16<f32, C>();
    var q12 = coop_mat16x16<f32, C>();
    var q13 = coop_mat16x16<f32, C>();
    var q20 = coop_mat16x16<f32, C>();
    var q21 = coop_mat16x16<f32, C>();
    var q22 = coop_mat16x16<f32, C>();
    var q23 = coop_mat16x16<f32, C>();
    var q30 = coop_mat16x16<f32, C>();
    var q31 = coop_mat16x16<f32, C>();
    var q32 = coop_mat16x16<f32, C>();
    var q33 = coop_mat16x16<f32, C>();
    // Each invocation carries vec4s lid, lid + 128, lid + 256 and lid + 384 of each slice (512 in all).
    var sa = slice_a(o, r0, 0u, a_long);
    var sb = slice_b(o, 0u, c0, b_long);
    var pa0 = fetch_a(sa, a_long, lid);
    var pa1 = fetch_a(sa, a_long, lid + 128u);
    var pa2 = fetch_a(sa, a_long, lid + 256u);
    var pa3 = fetch_a(sa, a_long, lid + 384u);
    var pb0 = fetch_b(sb, b_long, lid);
    var pb1 = fetch_b(sb, b_long, lid + 128u);
    var pb2 = fetch_b(sb, b_long, lid + 256u);
    var pb3 = fetch_b(sb, b_long, lid + 384u);
    for (var k0 = 0u; k0 < k; k0 = k0 + STEP) {
        workgroupBarrier();
        put_a(lid, a_long, pa0);
        put_a(lid + 128u, a_long, pa1);
        put_a(lid + 256u, a_long, pa2);
        put_a(lid + 384u, a_long, pa3);
        put_b(lid, b_long, pb0);
        put_b(lid + 128u, b_long, pb1);
        put_b(lid + 256u, b_long, pb2);
        put_b(lid + 384u, b_long, pb3);
        workgroupBarrier();
        if (k0 + STEP < k) {
            sa = slice_a(o, r0, k0 + STEP, a_long);
            sb = slice_b(o, k0 + STEP, c0, b_long);
            pa0 = fetch_a(sa, a_long, lid);
            pa1 = fetch_a(sa, a_long, lid + 128u);
            pa2 = fetch_a(sa, a_long, lid + 256u);
            pa3 = fetch_a(sa, a_long, lid + 384u);
            pb0 = fetch_b(sb, b_long, lid);
            pb1 = fetch_b(sb, b_long, lid + 128u);
            pb2 = fetch_b(sb, b_long, lid + 256u);
            pb3 = fetch_b(sb, b_long, lid + 384u);
        }
        // K is a multiple of 16: the second half of the last step may lie past it (zeros, never multiplied).
        for (var kk = 0u; kk < STEP && k0 + kk < k; kk = kk + 16u) {
            let b0 = tile_b(kk, cc);
            let b1 = tile_b(kk, cc + 16u);
            let b2 = tile_b(kk, cc + 32u);
            let b3 = tile_b(kk, cc + 48u);
            var t = tile_a(rr, kk);
            q00 = coopMultiplyAdd(t, b0, q00);
            q01 = coopMultiplyAdd(t, b1, q01);
            q02 = coopMultiplyAdd(t, b2, q02);
            q03 = coopMultiplyAdd(t, b3, q03);
            t = tile_a(rr + 16u, kk);
            q10 = coopMultiplyAdd(t, b0, q10);
            q11 = coopMultiplyAdd(t, b1, q11);
            q12 = coopMultiplyAdd(t, b2, q12);
            q13 = coopMultiplyAdd(t, b3, q13);
            t = tile_a(rr + 32u, kk);
            q20 = coopMultiplyAdd(t, b0, q20);
            q21 = coopMultiplyAdd(t, b1, q21);
            q22 = coopMultiplyAdd(t, b2, q22);
            q23 = coopMultiplyAdd(t, b3, q23);
            t = tile_a(rr + 48u, kk);
            q30 = coopMultiplyAdd(t, b0, q30);
            q31 = coopMultiplyAdd(t, b1, q31);
            q32 = coopMultiplyAdd(t, b2, q32);
            q33 = coopMultiplyAdd(t, b3, q33);
        }
    }
    // naga 30 emits no pending expressions ahead of a cooperative store (matmul_coop.wgsl): the addresses come
    // first, and the `if` whose condition flushes them precedes the stores.
    let at = batch * m * n + (r0 + rr) * n + c0 + cc;
    let row1 = at + 16u * n;
    let row2 = at + 32u * n;
    let row3 = at + 48u * n;
    let at01 = at + 16u;
    let at02 = at + 32u;
    let at03 = at + 48u;
    let at11 = row1 + 16u;
    let at12 = row1 + 32u;
    let at13 = row1 + 48u;
    let at21 = row2 + 16u;
    let at22 = row2 + 32u;
    let at23 = row2 + 48u;
    let at31 = row3 + 16u;
    let at32 = row3 + 32u;
    let at33 = row3 + 48u;
    if (n >= 128u) {
        coopStoreT(q00, &out[at], n);
        coopStoreT(q01, &out[at01], n);
        coopStoreT(q02, &out[at02], n);
        coopStoreT(q03, &out[at03], n);
        coopStoreT(q10, &out[row1], n);
        coopStoreT(q11, &out[at11], n);
        coopStoreT(q12, &out[at12], n);
        coopStoreT(q13, &out[at13], n);
        coopStoreT(q20, &out[row2], n);
        coopStoreT(q21, &out[at21], n);
        coopStoreT(q22, &out[at22], n);
        coopStoreT(q23, &out[at23], n);
        coopStoreT(q30, &out[row3], n);
        coopStoreT(q31, &out[at31], n);
        coopStoreT(q32, &out[at32], n);
        coopStoreT(q33, &out[at33], n);
    }
}
