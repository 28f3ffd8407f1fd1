// The cooperative-matrix pipeline, for float16 inputs on devices with matrix units (wgpu's cooperative matrices): a
// 64x64 output tile per workgroup of one 32-wide subgroup, as a 4x4 grid of 16x16 blocks accumulated in f32 by
// coopMultiplyAdd, K in steps of 16: each step loads four blocks of a and four of b for sixteen products (a 32x32 tile
// loaded one block per product). Each step's blocks load straight from the input buffers, row- or column-major
// as the view is laid out, and the results store straight into the output: no workgroup memory and no barrier, so
// no value passes between invocations except inside the cooperative operations. (wgpu 30 declares the Vulkan memory
// model for such modules without making workgroup accesses available and visible across a barrier, wgpu issue 8805,
// so a tile staged through workgroup memory would not be guaranteed to arrive.) The hardware's order of the 16
// products inside one step is its own but fixed, and the steps run in K order, so a device gives the same bytes
// for the same inputs. The backend runs it only where the layout fits (`coop_fits` in backend-vulkan matmul.rs):
// m, n and K multiples of 16, each operand with a unit stride on one side and 16-byte aligned rows.
// @features f16 cooperative_matrix
// @uses matmul

@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(9) var<storage, read_write> out: array<f32>;

// The 16x16 slices of a at rows r.., k kk.. and of b at k kk.., columns c..: row-major where the view's inner
// stride is 1, column-major where its outer one is. Cooperative operations must run in uniform control flow, which
// naga judges per function, so `main` picks between these from the uniform layout flags.
fn a_rows(o: Operands, r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    return coopLoadT<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) * o.sam + i32(kk))], u32(o.sam));
}

fn a_cols(o: Operands, r: u32, kk: u32) -> coop_mat16x16<f16, A> {
    return coopLoad<coop_mat16x16<f16, A>>(&a[u32(o.oa + i32(r) + i32(kk) * o.sak)], u32(o.sak));
}

fn b_rows(o: Operands, kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    return coopLoadT<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) * o.sbk + i32(c))], u32(o.sbk));
}

fn b_cols(o: Operands, kk: u32, c: u32) -> coop_mat16x16<f16, B> {
    return coopLoad<coop_mat16x16<f16, B>>(&b[u32(o.ob + i32(kk) + i32(c) * o.sbn)], u32(o.sbn));
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
    let r0 = wid.y * 64u;
    let c0 = wid.x * 64u;
    // m and n are multiples of 16, so a block is wholly inside the output or wholly outside; how many block rows and
    // columns are inside depends on the workgroup alone (uniform), and those outside are neither loaded nor stored.
    let rows = min((m - r0) / 16u, 4u);
    let cols = min((n - c0) / 16u, 4u);
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
    var a0 = coop_mat16x16<f16, A>();
    var a1 = coop_mat16x16<f16, A>();
    var a2 = coop_mat16x16<f16, A>();
    var a3 = coop_mat16x16<f16, A>();
    var b0 = coop_mat16x16<f16, B>();
    var b1 = coop_mat16x16<f16, B>();
    var b2 = coop_mat16x16<f16, B>();
    var b3 = coop_mat16x16<f16, B>();
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        if (a_cm) {
            a0 = a_cols(o, r0, k0);
        } else {
            a0 = a_rows(o, r0, k0);
        }
        if (rows > 1u) {
            if (a_cm) {
                a1 = a_cols(o, r0 + 16u, k0);
            } else {
                a1 = a_rows(o, r0 + 16u, k0);
            }
        }
        if (rows > 2u) {
            if (a_cm) {
                a2 = a_cols(o, r0 + 32u, k0);
            } else {
                a2 = a_rows(o, r0 + 32u, k0);
            }
        }
        if (rows > 3u) {
            if (a_cm) {
                a3 = a_cols(o, r0 + 48u, k0);
            } else {
                a3 = a_rows(o, r0 + 48u, k0);
            }
        }
        if (b_cm) {
            b0 = b_cols(o, k0, c0);
        } else {
            b0 = b_rows(o, k0, c0);
        }
        if (cols > 1u) {
            if (b_cm) {
                b1 = b_cols(o, k0, c0 + 16u);
            } else {
                b1 = b_rows(o, k0, c0 + 16u);
            }
        }
        if (cols > 2u) {
            if (b_cm) {
                b2 = b_cols(o, k0, c0 + 32u);
            } else {
                b2 = b_rows(o, k0, c0 + 32u);
            }
        }
        if (cols > 3u) {
            if (b_cm) {
                b3 = b_cols(o, k0, c0 + 48u);
            } else {
                b3 = b_rows(o, k0, c0 + 48u);
            }
        }
        q00 = coopMultiplyAdd(a0, b0, q00);
        if (cols > 1u) {
            q01 = coopMultiplyAdd(a0, b1, q01);
        }
        if (cols > 2u) {
            q02 = coopMultiplyAdd(a0, b2, q02);
        }
        if (cols > 3u) {
            q03 = coopMultiplyAdd(a0, b3, q03);
        }
        if (rows > 1u) {
            q10 = coopMultiplyAdd(a1, b0, q10);
        }
        if (rows > 1u) {
            if (cols > 1u) {
                q11 = coopMultiplyAdd(a1, b1, q11);
            }
        }
        if (rows > 1u) {
            if (cols > 2u) {
                q12 = coopMultiplyAdd(a1, b2, q12);
            }
        }
        if (rows > 1u) {
            if (cols > 3u) {
                q13 = coopMultiplyAdd(a1, b3, q13);
            }
        }
        if (rows > 2u) {
            q20 = coopMultiplyAdd(a2, b0, q20);
        }
        if (rows > 2u) {
            if (cols > 1u) {
                q21 = coopMultiplyAdd(a2, b1, q21);
            }
        }
        if (rows > 2u) {
            if (cols > 2u) {
                q22 = coopMultiplyAdd(a2, b2, q22);
            }
        }
        if (rows > 2u) {
            if (cols > 3u) {
                q23 = coopMultiplyAdd(a2, b3, q23);
            }
        }
        if (rows > 3u) {
            q30 = coopMultiplyAdd(a3, b0, q30);
        }
        if (rows > 3u) {
            if (cols > 1u) {
                q31 = coopMultiplyAdd(a3, b1, q31);
            }
        }
        if (rows > 3u) {
            if (cols > 2u) {
                q32 = coopMultiplyAdd(a3, b2, q32);
            }
        }
        if (rows > 3u) {
            if (cols > 3u) {
                q33 = coopMultiplyAdd(a3, b3, q33);
            }
        }
    }
    // naga 30 emits no pending expressions ahead of a cooperative store, so an address computed inside a store's
    // arguments reaches the SPIR-V writer uncached (a panic); the addresses come first, and the `if` below, whose
    // condition flushes them, precedes every store. Nested ifs throughout: naga's uniformity analysis rejects
    // cooperative operations under a short-circuit `&&`.
    let at = batch * m * n + r0 * n + c0;
    let at00 = at + 0u * n + 0u;
    let at01 = at + 0u * n + 16u;
    let at02 = at + 0u * n + 32u;
    let at03 = at + 0u * n + 48u;
    let at10 = at + 16u * n + 0u;
    let at11 = at + 16u * n + 16u;
    let at12 = at + 16u * n + 32u;
    let at13 = at + 16u * n + 48u;
    let at20 = at + 32u * n + 0u;
    let at21 = at + 32u * n + 16u;
    let at22 = at + 32u * n + 32u;
    let at23 = at + 32u * n + 48u;
    let at30 = at + 48u * n + 0u;
    let at31 = at + 48u * n + 16u;
    let at32 = at + 48u * n + 32u;
    let at33 = at + 48u * n + 48u;
    if (rows > 0u) {
        coopStoreT(q00, &out[at00], n);
        if (cols > 1u) {
            coopStoreT(q01, &out[at01], n);
        }
        if (cols > 2u) {
            coopStoreT(q02, &out[at02], n);
        }
        if (cols > 3u) {
            coopStoreT(q03, &out[at03], n);
        }
        if (rows > 1u) {
            coopStoreT(q10, &out[at10], n);
        }
        if (rows > 1u) {
            if (cols > 1u) {
                coopStoreT(q11, &out[at11], n);
            }
        }
        if (rows > 1u) {
            if (cols > 2u) {
                coopStoreT(q12, &out[at12], n);
            }
        }
        if (rows > 1u) {
            if (cols > 3u) {
                coopStoreT(q13, &out[at13], n);
            }
        }
        if (rows > 2u) {
            coopStoreT(q20, &out[at20], n);
        }
        if (rows > 2u) {
            if (cols > 1u) {
                coopStoreT(q21, &out[at21], n);
            }
        }
        if (rows > 2u) {
            if (cols > 2u) {
                coopStoreT(q22, &out[at22], n);
            }
        }
        if (rows > 2u) {
            if (cols > 3u) {
                coopStoreT(q23, &out[at23], n);
            }
        }
        if (rows > 3u) {
            coopStoreT(q30, &out[at30], n);
        }
        if (rows > 3u) {
            if (cols > 1u) {
                coopStoreT(q31, &out[at31], n);
            }
        }
        if (rows > 3u) {
            if (cols > 2u) {
                coopStoreT(q32, &out[at32], n);
            }
        }
        if (rows > 3u) {
            if (cols > 3u) {
                coopStoreT(q33, &out[at33], n);
            }
        }
    }
}
