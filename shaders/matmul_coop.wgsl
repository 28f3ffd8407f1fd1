// The cooperative-matrix pipeline, for float16 inputs on devices with matrix units (wgpu's cooperative matrices): a
// 64x64 output tile per workgroup of one 32-wide subgroup, as a 4x4 block of 16x16 tiles accumulated in f32 by
// coopMultiplyAdd, K in steps of 16: each step loads four tiles of a and four of b and makes sixteen products, so a
// loaded tile serves four products (a 32x32 block, two). Tiles load straight from the input buffers, row- or
// column-major as the view is laid out, and the results store straight into the output: no workgroup memory and no
// barrier, so no value passes between invocations except inside the cooperative operations. (wgpu 30 declares the
// Vulkan memory model for such modules without making workgroup accesses available and visible across a barrier,
// wgpu issue 8805, so a tile staged through workgroup memory would not be guaranteed to arrive.) The hardware's
// order of the 16 products inside one step is its own but fixed, and the steps run in K order, so a device gives
// the same bytes for the same inputs. The backend runs it only where the layout fits (`coop` in backend-vulkan
// matmul.rs): m, n and K multiples of 16, each operand with a unit stride on one side and 16-byte aligned rows.
// @features f16 cooperative_matrix
// @uses matmul

// Each operand's stride between the rows (row-major) or columns (column-major) of its tiles, set when the backend
// makes the pipeline (one per pair of strides and layouts): NVIDIA's driver loads a tile half again as fast with its
// stride known than with it read from the uniform (docs/matmul.md).
override SA: u32;
override SB: u32;
// The operands' layouts (matmul.rs `unit_layout`'s flags: bit 0 a column-major, bit 1 b column-major), a constant for
// the same reason: a branch on the uniform's flags before each of a step's eight loads is not free.
override LAYOUT: u32;

@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;

// The 16x16 tile of a at rows r.., k kk.. and of b at k kk.., columns c..: row-major where the view's inner stride
// is 1, column-major where its outer one is (bits 0 and 1 of LAYOUT). Cooperative operations must run in uniform
// control flow; the branch reads a constant, so it is.
fn a_tile(o: Operands, r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    if ((LAYOUT & 1u) != 0u) {
        return coopLoad<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) + i32(kk) * o.sak)], SA);
    }
    return coopLoadT<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) * o.sam + i32(kk))], SA);
}

fn b_tile(o: Operands, kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    if ((LAYOUT & 2u) != 0u) {
        return coopLoad<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) + i32(c) * o.sbn)], SB);
    }
    return coopLoadT<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) * o.sbk + i32(c))], SB);
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    let batch = wid.z;
    let o = operands(batch);
    let r0 = wid.y * 64u;
    let c0 = wid.x * 64u;
    // m and n are multiples of 16, so each 16x16 tile of the block lies wholly inside the output or wholly outside.
    // Tiles outside load the last row or column of tiles inside instead, so every load is in bounds and the loop has
    // no branch; their products are not stored. (Empty outputs are never dispatched, so m and n are at least 16.)
    let r = min(vec4<u32>(r0, r0 + 16u, r0 + 32u, r0 + 48u), vec4<u32>(m - 16u));
    let c = min(vec4<u32>(c0, c0 + 16u, c0 + 32u, c0 + 48u), vec4<u32>(n - 16u));
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
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        let a0 = a_tile(o, r.x, k0);
        let a1 = a_tile(o, r.y, k0);
        let a2 = a_tile(o, r.z, k0);
        let a3 = a_tile(o, r.w, k0);
        let b0 = b_tile(o, k0, c.x);
        let b1 = b_tile(o, k0, c.y);
        let b2 = b_tile(o, k0, c.z);
        let b3 = b_tile(o, k0, c.w);
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
    // naga 30 emits no pending expressions ahead of a cooperative store, so an address computed inside a store's
    // arguments reaches the SPIR-V writer uncached (a panic); the addresses come first, and the stores follow an
    // `if` whose condition flushes them. The block's first tile is always inside the output.
    let at = batch * m * n + r0 * n + c0;
    let rows = vec4<u32>(at, at + 16u * n, at + 32u * n, at + 48u * n);
    // Whether the block's second, third and fourth rows (columns) of tiles are inside the output.
    let low = vec3<bool>(r0 + 16u < m, r0 + 32u < m, r0 + 48u < m);
    let right = vec3<bool>(c0 + 16u < n, c0 + 32u < n, c0 + 48u < n);
    let at00 = rows.x;
    let at01 = rows.x + 16u;
    let at02 = rows.x + 32u;
    let at03 = rows.x + 48u;
    let at10 = rows.y;
    let at11 = rows.y + 16u;
    let at12 = rows.y + 32u;
    let at13 = rows.y + 48u;
    let at20 = rows.z;
    let at21 = rows.z + 16u;
    let at22 = rows.z + 32u;
    let at23 = rows.z + 48u;
    let at30 = rows.w;
    let at31 = rows.w + 16u;
    let at32 = rows.w + 32u;
    let at33 = rows.w + 48u;
    if (right.x) {
        coopStoreT(q01, &out[at01], n);
    }
    if (right.y) {
        coopStoreT(q02, &out[at02], n);
    }
    if (right.z) {
        coopStoreT(q03, &out[at03], n);
    }
    if (low.x) {
        coopStoreT(q10, &out[at10], n);
    }
    if (low.x && right.x) {
        coopStoreT(q11, &out[at11], n);
    }
    if (low.x && right.y) {
        coopStoreT(q12, &out[at12], n);
    }
    if (low.x && right.z) {
        coopStoreT(q13, &out[at13], n);
    }
    if (low.y) {
        coopStoreT(q20, &out[at20], n);
    }
    if (low.y && right.x) {
        coopStoreT(q21, &out[at21], n);
    }
    if (low.y && right.y) {
        coopStoreT(q22, &out[at22], n);
    }
    if (low.y && right.z) {
        coopStoreT(q23, &out[at23], n);
    }
    if (low.z) {
        coopStoreT(q30, &out[at30], n);
    }
    if (low.z && right.x) {
        coopStoreT(q31, &out[at31], n);
    }
    if (low.z && right.y) {
        coopStoreT(q32, &out[at32], n);
    }
    if (low.z && right.z) {
        coopStoreT(q33, &out[at33], n);
    }
    coopStoreT(q00, &out[at00], n);
}
