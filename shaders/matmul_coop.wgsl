// The cooperative-matrix pipeline, for float16 inputs on devices with matrix units (wgpu's cooperative matrices): a
// 32x32 output tile per workgroup of one 32-wide subgroup, as four 16x16 quarters accumulated in f32 by
// coopMultiplyAdd, K in steps of 16. Each step's quarters load straight from the input buffers, row- or column-major
// as the view is laid out, and the results store straight into the output: no workgroup memory and no barrier, so
// no value passes between invocations except inside the cooperative operations. (wgpu 30 declares the Vulkan memory
// model for such modules without making workgroup accesses available and visible across a barrier, wgpu issue 8805,
// so a tile staged through workgroup memory would not be guaranteed to arrive.) The hardware's order of the 16
// products inside one step is its own but fixed, and the steps run in K order, so a device gives the same bytes
// for the same inputs. The backend runs it only where the layout fits (`coop_fits` in backend-vulkan matmul.rs):
// m, n and K multiples of 16, each operand with a unit stride on one side and 16-byte aligned rows.
// @features f16 cooperative_matrix
// @uses matmul

// Each operand's stride between the rows (row-major) or columns (column-major) of its tiles, set when the backend
// makes the pipeline (one per pair of strides): NVIDIA's driver loads a tile half again as fast with its stride
// known than with it read from the uniform (docs/matmul.md).
override SA: u32;
override SB: u32;

@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;

// The 16x16 slices of a at rows r.., k kk.. and of b at k kk.., columns c..: row-major where the view's inner
// stride is 1, column-major where its outer one is. Cooperative operations must run in uniform control flow, which
// naga judges per function, so `main` picks between these from the uniform layout flags.
fn a_rows(o: Operands, r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    return coopLoadT<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) * o.sam + i32(kk))], SA);
}

fn a_cols(o: Operands, r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    return coopLoad<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) + i32(kk) * o.sak)], SA);
}

fn b_rows(o: Operands, kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    return coopLoadT<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) * o.sbk + i32(c))], SB);
}

fn b_cols(o: Operands, kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    return coopLoad<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) + i32(c) * o.sbn)], SB);
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    // Bit 0: a is column-major (its row stride is 1); bit 1: b is.
    let a_cm = (info.extra.w & 1u) != 0u;
    let b_cm = (info.extra.w & 2u) != 0u;
    let batch = wid.z;
    let o = operands(batch);
    let r0 = wid.y * 32u;
    let c0 = wid.x * 32u;
    // m and n are multiples of 16, so a quarter is wholly inside the output or wholly outside; which ones are
    // inside depends on the workgroup alone (uniform), and those outside are neither loaded nor stored.
    let low = r0 + 16u < m;
    let right = c0 + 16u < n;
    var q00 = coop_mat16x16<f32, C>();
    var q01 = coop_mat16x16<f32, C>();
    var q10 = coop_mat16x16<f32, C>();
    var q11 = coop_mat16x16<f32, C>();
    var a0 = coop_mat16x16<f16, A>();
    var a1 = coop_mat16x16<f16, A>();
    var b0 = coop_mat16x16<f16, B>();
    var b1 = coop_mat16x16<f16, B>();
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        if (a_cm) {
            a0 = a_cols(o, r0, k0);
        } else {
            a0 = a_rows(o, r0, k0);
        }
        if (b_cm) {
            b0 = b_cols(o, k0, c0);
        } else {
            b0 = b_rows(o, k0, c0);
        }
        q00 = coopMultiplyAdd(a0, b0, q00);
        if (right) {
            if (b_cm) {
                b1 = b_cols(o, k0, c0 + 16u);
            } else {
                b1 = b_rows(o, k0, c0 + 16u);
            }
            q01 = coopMultiplyAdd(a0, b1, q01);
        }
        if (low) {
            if (a_cm) {
                a1 = a_cols(o, r0 + 16u, k0);
            } else {
                a1 = a_rows(o, r0 + 16u, k0);
            }
            q10 = coopMultiplyAdd(a1, b0, q10);
            if (right) {
                q11 = coopMultiplyAdd(a1, b1, q11);
            }
        }
    }
    // naga 30 emits no pending expressions ahead of a cooperative store, so an address computed inside a store's
    // arguments reaches the SPIR-V writer uncached (a panic); the addresses come first, and the `if` below, whose
    // condition flushes them, precedes every store.
    let at = batch * m * n + r0 * n + c0;
    let at_right = at + 16u;
    let at_low = at + 16u * n;
    let at_both = at_low + 16u;
    if (right) {
        coopStoreT(q01, &out[at_right], n);
    }
    coopStoreT(q00, &out[at], n);
    if (low) {
        coopStoreT(q10, &out[at_low], n);
        if (right) {
            coopStoreT(q11, &out[at_both], n);
        }
    }
}
