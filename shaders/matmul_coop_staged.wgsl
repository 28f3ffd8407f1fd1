// The staged cooperative-matrix pipeline, for float16 products of at least 128x128 outputs on devices with matrix
// units: a 128x128 output tile per workgroup of four 32-wide subgroups, each a 64x64 quadrant held as a 4x4 grid of
// 16x16 f32 accumulators (coopMultiplyAdd). K goes in steps of 32: each invocation loads four 16-byte pieces (eight
// halves) of each operand's slice into registers one step ahead, and at the step stores them into workgroup memory,
// where every subgroup loads its tiles; so a value loaded from the buffers serves a 128-wide tile's products, twice
// the direct pipeline's 64, and the subgroups' tile loads come from workgroup memory (docs/matmul.md has the
// measurements behind each choice).
// - Compiled here, not by wgpu: naga 30 declares modules with cooperative matrices under the Vulkan memory model but
//   leaves their workgroup accesses private and their barriers without availability and visibility (wgpu issue
//   8805), so a staged tile need not reach the other subgroups. backend-vulkan's spirv.rs writes naga's SPIR-V under
//   the GLSL450 model, where workgroup memory is coherent, and hands it to the driver as it is (`// @passthrough`).
// - The halves are stored one by one (`unpack2x16float` of each word): NVIDIA's driver failed every variant that
//   kept workgroup memory as u32 words ("NVVM compilation failed"), and rows are padded by 8 halves so that the
//   subgroups' tile loads spread over the memory banks.
// - Workgroups past the output's edge move back inside it (m and n at least 128, multiples of 16), so every load is
//   in bounds; overlapping workgroups compute the same outputs in the same order and store the same bytes. Past K
//   (a multiple of 16) the last step's pieces are zeros.
// - Each output sums its K products in K order, sixteen at a time inside the hardware's fixed order, so a device
//   gives the same bytes for the same inputs whatever the grid.
// The operands' layouts are constants (one pipeline per pair), as their loads differ: a row-major a and a
// column-major b are staged k-contiguous (rows of 32 + 8 halves), the other layouts k-major (rows of 128 + 8).
// @features f16 cooperative_matrix subgroups
// @uses matmul
// @passthrough

// matmul.rs `unit_layout`'s flags: bit 0 a column-major, bit 1 b column-major.
override LAYOUT: u32;

@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;

// Halves per staged row: k-contiguous slices are 128 rows of 32, k-major ones 32 rows of 128; each row padded by 8.
const ROW_K: u32 = 40u;
const ROW_MN: u32 = 136u;
// Halves per operand (128 rows of ROW_K, or 32 of ROW_MN): a's slice first, b's from STAGED on.
const STAGED: u32 = 5120u;
var<workgroup> staged: array<f16, 2u * STAGED>;

fn a_col() -> bool {
    return (LAYOUT & 1u) != 0u;
}

// b column-major: its slice is k-contiguous, like a row-major a's.
fn b_col() -> bool {
    return (LAYOUT & 2u) != 0u;
}

// An invocation's pieces p = lid, lid + 128, lid + 256 and lid + 384 of a 128x32 slice (512 pieces of 8 halves).
// Only where each lies in the first K step (`home`, a vec4 index) and in workgroup memory (`spot`) stay in registers
// across the loop; the rest is recomputed where the last step needs it. `contiguous_k` says the operand's k runs
// along memory (a row-major a, a column-major b): its slice is 128 rows of 4 pieces, else 32 k rows of 16; `outer`
// is the stride in halves between those rows, `base` the batch offset, `origin` the tile's first row or column.
fn home(p: u32, base: u32, outer: u32, origin: u32, contiguous_k: bool) -> u32 {
    if (contiguous_k) {
        return (base + (origin + p / 4u) * outer) / 8u + p % 4u;
    }
    return (base + (p / 16u) * outer + origin + (p % 16u) * 8u) / 8u;
}

fn spot(p: u32, contiguous_k: bool) -> u32 {
    if (contiguous_k) {
        return (p / 4u) * ROW_K + (p % 4u) * 8u;
    }
    return (p / 16u) * ROW_MN + (p % 16u) * 8u;
}

// The piece's k inside the slice, and how many vec4s back its row or column starts at k = 0 (inside the operand
// whenever K > 0).
fn kpos(p: u32, contiguous_k: bool) -> u32 {
    if (contiguous_k) {
        return (p % 4u) * 8u;
    }
    return p / 16u;
}

fn back(p: u32, outer: u32, contiguous_k: bool) -> u32 {
    if (contiguous_k) {
        return p % 4u;
    }
    return (p / 16u) * (outer / 8u);
}

// Piece p at K step `kn` (a multiple of 32; `step`: vec4s from one K step to the next), for the step that runs
// past K: zeros there. Steps inside K load without the test, under one branch for all eight pieces: a test per
// piece cost the kernel a quarter of its speed on an H100 (docs/matmul.md).
fn last_a(p: u32, h: u32, kn: u32, k: u32, step: u32, outer: u32) -> vec4<u32> {
    let inside = kn + kpos(p, !a_col()) < k;
    return select(vec4<u32>(0u), a[select(h - back(p, outer, !a_col()), h + (kn / 32u) * step, inside)], inside);
}

fn last_b(p: u32, h: u32, kn: u32, k: u32, step: u32, outer: u32) -> vec4<u32> {
    let inside = kn + kpos(p, b_col()) < k;
    return select(vec4<u32>(0u), b[select(h - back(p, outer, b_col()), h + (kn / 32u) * step, inside)], inside);
}

// Stores a piece's eight halves from `at` on (consecutive in either staged layout).
fn put(at: u32, v: vec4<u32>) {
    let h0 = vec2<f16>(unpack2x16float(v.x));
    let h1 = vec2<f16>(unpack2x16float(v.y));
    let h2 = vec2<f16>(unpack2x16float(v.z));
    let h3 = vec2<f16>(unpack2x16float(v.w));
    staged[at] = h0.x;
    staged[at + 1u] = h0.y;
    staged[at + 2u] = h1.x;
    staged[at + 3u] = h1.y;
    staged[at + 4u] = h2.x;
    staged[at + 5u] = h2.y;
    staged[at + 6u] = h3.x;
    staged[at + 7u] = h3.y;
}

// The staged 16x16 tile of a at the quadrant's row `r`, slice column `kk`; of b at slice row `kk`, column `c`.
fn a_tile(r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    if (a_col()) {
        return coopLoad<coop_mat16x16<f16, A>>(&staged[kk * ROW_MN + r], ROW_MN);
    }
    return coopLoadT<coop_mat16x16<f16, A>>(&staged[r * ROW_K + kk], ROW_K);
}

fn b_tile(kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    if (b_col()) {
        return coopLoad<coop_mat16x16<f16, B>>(&staged[STAGED + c * ROW_K + kk], ROW_K);
    }
    return coopLoadT<coop_mat16x16<f16, B>>(&staged[STAGED + kk * ROW_MN + c], ROW_MN);
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
    let batch = wid.z;
    let o = operands(batch);
    let r0 = min(wid.y * 128u, m - 128u);
    let c0 = min(wid.x * 128u, n - 128u);
    // The subgroup's 64x64 quadrant of the tile.
    let sr = (sg / 2u) * 64u;
    let sc = (sg % 2u) * 64u;
    // Strides and offsets are non-negative multiples of 8 (matmul.rs `unit_layout`).
    let oa = u32(o.oa);
    let ob = u32(o.ob);
    // a's slice is k-contiguous where a is row-major, b's where b is column-major.
    let ka = !a_col();
    let kb = b_col();
    let outer_a = select(u32(o.sak), u32(o.sam), ka);
    let outer_b = select(u32(o.sbk), u32(o.sbn), kb);
    let step_a = select(4u * outer_a, 4u, ka);
    let step_b = select(4u * outer_b, 4u, kb);
    let ha0 = home(lid, oa, outer_a, r0, ka);
    let ha1 = home(lid + 128u, oa, outer_a, r0, ka);
    let ha2 = home(lid + 256u, oa, outer_a, r0, ka);
    let ha3 = home(lid + 384u, oa, outer_a, r0, ka);
    let hb0 = home(lid, ob, outer_b, c0, kb);
    let hb1 = home(lid + 128u, ob, outer_b, c0, kb);
    let hb2 = home(lid + 256u, ob, outer_b, c0, kb);
    let hb3 = home(lid + 384u, ob, outer_b, c0, kb);
    let wa0 = spot(lid, ka);
    let wa1 = spot(lid + 128u, ka);
    let wa2 = spot(lid + 256u, ka);
    let wa3 = spot(lid + 384u, ka);
    let wb0 = spot(lid, kb);
    let wb1 = spot(lid + 128u, kb);
    let wb2 = spot(lid + 256u, kb);
    let wb3 = spot(lid + 384u, kb);
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
    var va0 = vec4<u32>(0u);
    var va1 = vec4<u32>(0u);
    var va2 = vec4<u32>(0u);
    var va3 = vec4<u32>(0u);
    var vb0 = vec4<u32>(0u);
    var vb1 = vec4<u32>(0u);
    var vb2 = vec4<u32>(0u);
    var vb3 = vec4<u32>(0u);
    if (k >= 32u) {
        va0 = a[ha0];
        va1 = a[ha1];
        va2 = a[ha2];
        va3 = a[ha3];
        vb0 = b[hb0];
        vb1 = b[hb1];
        vb2 = b[hb2];
        vb3 = b[hb3];
    } else if (k > 0u) {
        va0 = last_a(lid, ha0, 0u, k, step_a, outer_a);
        va1 = last_a(lid + 128u, ha1, 0u, k, step_a, outer_a);
        va2 = last_a(lid + 256u, ha2, 0u, k, step_a, outer_a);
        va3 = last_a(lid + 384u, ha3, 0u, k, step_a, outer_a);
        vb0 = last_b(lid, hb0, 0u, k, step_b, outer_b);
        vb1 = last_b(lid + 128u, hb1, 0u, k, step_b, outer_b);
        vb2 = last_b(lid + 256u, hb2, 0u, k, step_b, outer_b);
        vb3 = last_b(lid + 384u, hb3, 0u, k, step_b, outer_b);
    }
    for (var k0 = 0u; k0 < k; k0 = k0 + 32u) {
        // The previous step's tile loads are done before its slices are overwritten.
        workgroupBarrier();
        put(wa0, va0);
        put(wa1, va1);
        put(wa2, va2);
        put(wa3, va3);
        put(STAGED + wb0, vb0);
        put(STAGED + wb1, vb1);
        put(STAGED + wb2, vb2);
        put(STAGED + wb3, vb3);
        workgroupBarrier();
        let kn = k0 + 32u;
        if (kn + 32u <= k) {
            let t = kn / 32u;
            va0 = a[ha0 + t * step_a];
            va1 = a[ha1 + t * step_a];
            va2 = a[ha2 + t * step_a];
            va3 = a[ha3 + t * step_a];
            vb0 = b[hb0 + t * step_b];
            vb1 = b[hb1 + t * step_b];
            vb2 = b[hb2 + t * step_b];
            vb3 = b[hb3 + t * step_b];
        } else if (kn < k) {
            va0 = last_a(lid, ha0, kn, k, step_a, outer_a);
            va1 = last_a(lid + 128u, ha1, kn, k, step_a, outer_a);
            va2 = last_a(lid + 256u, ha2, kn, k, step_a, outer_a);
            va3 = last_a(lid + 384u, ha3, kn, k, step_a, outer_a);
            vb0 = last_b(lid, hb0, kn, k, step_b, outer_b);
            vb1 = last_b(lid + 128u, hb1, kn, k, step_b, outer_b);
            vb2 = last_b(lid + 256u, hb2, kn, k, step_b, outer_b);
            vb3 = last_b(lid + 384u, hb3, kn, k, step_b, outer_b);
        }
        // The slice's two 16-deep halves, written out (a loop of two ran 2 % slower).
        {
            let a0 = a_tile(sr, 0u);
            let a1 = a_tile(sr + 16u, 0u);
            let a2 = a_tile(sr + 32u, 0u);
            let a3 = a_tile(sr + 48u, 0u);
            let b0 = b_tile(0u, sc);
            let b1 = b_tile(0u, sc + 16u);
            let b2 = b_tile(0u, sc + 32u);
            let b3 = b_tile(0u, sc + 48u);
            q00 = coopMultiplyAdd(a0, b0, q00);
            q01 = coopMultiplyAdd(a0, b1, q01);
            q02 = coopMultiplyAdd(a0, b2, q02);
            q03 = coopMultiplyAdd(a0, b3, q03);
            q10 = coopMultiplyAdd(a1, b0, q10);
            q11 = coopMultiplyAdd(a1, b1, q11);
            q12 = coopMultiplyAdd(a1, b2, q12);
            q13 = coopMultiplyAdd(a1, b3, q13);
            q20 = coopMultiplyAdd(a2, b0, q20);
            q21 = coopMultiplyAdd(a2, b1, q21);
            q22 = coopMultiplyAdd(a2, b2, q22);
            q23 = coopMultiplyAdd(a2, b3, q23);
            q30 = coopMultiplyAdd(a3, b0, q30);
            q31 = coopMultiplyAdd(a3, b1, q31);
            q32 = coopMultiplyAdd(a3, b2, q32);
            q33 = coopMultiplyAdd(a3, b3, q33);
        }
        {
            let a0 = a_tile(sr, 16u);
            let a1 = a_tile(sr + 16u, 16u);
            let a2 = a_tile(sr + 32u, 16u);
            let a3 = a_tile(sr + 48u, 16u);
            let b0 = b_tile(16u, sc);
            let b1 = b_tile(16u, sc + 16u);
            let b2 = b_tile(16u, sc + 32u);
            let b3 = b_tile(16u, sc + 48u);
            q00 = coopMultiplyAdd(a0, b0, q00);
            q01 = coopMultiplyAdd(a0, b1, q01);
            q02 = coopMultiplyAdd(a0, b2, q02);
            q03 = coopMultiplyAdd(a0, b3, q03);
            q10 = coopMultiplyAdd(a1, b0, q10);
            q11 = coopMultiplyAdd(a1, b1, q11);
            q12 = coopMultiplyAdd(a1, b2, q12);
            q13 = coopMultiplyAdd(a1, b3, q13);
            q20 = coopMultiplyAdd(a2, b0, q20);
            q21 = coopMultiplyAdd(a2, b1, q21);
            q22 = coopMultiplyAdd(a2, b2, q22);
            q23 = coopMultiplyAdd(a2, b3, q23);
            q30 = coopMultiplyAdd(a3, b0, q30);
            q31 = coopMultiplyAdd(a3, b1, q31);
            q32 = coopMultiplyAdd(a3, b2, q32);
            q33 = coopMultiplyAdd(a3, b3, q33);
        }
    }
    // naga 30 emits no pending expressions ahead of a cooperative store (matmul_coop.wgsl): the addresses come first,
    // and the stores follow an `if` whose condition flushes them (m is at least 128).
    let at = batch * m * n + (r0 + sr) * n + c0 + sc;
    let at00 = at;
    let at01 = at + 16u;
    let at02 = at + 32u;
    let at03 = at + 48u;
    let at10 = at + 16u * n;
    let at11 = at10 + 16u;
    let at12 = at10 + 32u;
    let at13 = at10 + 48u;
    let at20 = at + 32u * n;
    let at21 = at20 + 16u;
    let at22 = at20 + 32u;
    let at23 = at20 + 48u;
    let at30 = at + 48u * n;
    let at31 = at30 + 16u;
    let at32 = at30 + 32u;
    let at33 = at30 + 48u;
    if (m > 0u) {
        coopStoreT(q00, &out[at00], n);
        coopStoreT(q01, &out[at01], n);
        coopStoreT(q02, &out[at02], n);
        coopStoreT(q03, &out[at03], n);
        coopStoreT(q10, &out[at10], n);
        coopStoreT(q11, &out[at11], n);
        coopStoreT(q12, &out[at12], n);
        coopStoreT(q13, &out[at13], n);
        coopStoreT(q20, &out[at20], n);
        coopStoreT(q21, &out[at21], n);
        coopStoreT(q22, &out[at22], n);
        coopStoreT(q23, &out[at23], n);
        coopStoreT(q30, &out[at30], n);
        coopStoreT(q31, &out[at31], n);
        coopStoreT(q32, &out[at32], n);
        coopStoreT(q33, &out[at33], n);
    }
}
