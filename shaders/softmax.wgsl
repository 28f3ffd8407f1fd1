// softmax (op 0) and log_softmax (op 1) of each row along the last dim (backend-vulkan/src/softmax.rs), in the
// composite's arithmetic: m = the row's max (NaN if any, fmaximum), d = x − m, e = exp(d) through unary's
// exp_bits, the sum of e in the reduce kernel's order (each invocation strided in index order, then a fixed tree),
// then fdiv(e, Σ) or d − log Σ. One workgroup per row, which reads its row three times (max, sum, write) where the
// composite's five kernels read it five times and wrote it three; rows of at most 32 (extra.y = 1) take one
// invocation each, in index order. extra.x is the row length; the input is float32.
// @inputs a
// @uses arith

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> tree: array<u32, 128>;

// The f32 bits of element j of row r.
fn x_bits(r: u32, j: u32) -> u32 {
    return a_fbits(r * info.extra.x + j);
}

// The max of elements start, start + step, … of row r, from −inf.
fn row_max(r: u32, start: u32, step: u32) -> u32 {
    var m = 0xff800000u;
    for (var j = start; j < info.extra.x; j = j + step) {
        m = bitcast<u32>(fmaximum(m, x_bits(r, j)));
    }
    return m;
}

// The sum of exp(x − m) over elements start, start + step, … of row r, in index order.
fn row_sum(r: u32, m: f32, start: u32, step: u32) -> f32 {
    var s = 0.0;
    for (var j = start; j < info.extra.x; j = j + step) {
        s = s + exp_bits(bitcast<u32>(bitcast<f32>(x_bits(r, j)) - m), false);
    }
    return s;
}

fn write_row(r: u32, m: f32, s: f32, start: u32, step: u32) {
    let n = info.extra.x;
    let lse = log_bits(bitcast<u32>(s), false);
    for (var j = start; j < n; j = j + step) {
        let d = bitcast<f32>(x_bits(r, j)) - m;
        var y: f32;
        if (info.op == 1u) {
            y = d - lse;
        } else {
            y = fdiv(bitcast<u32>(exp_bits(bitcast<u32>(d), false)), bitcast<u32>(s));
        }
        out[r * n + j] = bitcast<u32>(y);
    }
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let rows = info.n / info.extra.x;
    let g = wid.x + wid.y * nwg.x;
    if (info.extra.y == 1u) {
        let r = g * WG + lid;
        if (r < rows) {
            let m = bitcast<f32>(row_max(r, 0u, 1u));
            write_row(r, m, row_sum(r, m, 0u, 1u), 0u, 1u);
        }
        return;
    }
    if (g >= rows) {
        return;
    }
    tree[lid] = row_max(g, lid, WG);
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        workgroupBarrier();
        if (lid < s) {
            tree[lid] = bitcast<u32>(fmaximum(tree[lid], tree[lid + s]));
        }
    }
    workgroupBarrier();
    let m = bitcast<f32>(tree[0]);
    workgroupBarrier();
    tree[lid] = bitcast<u32>(row_sum(g, m, lid, WG));
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        workgroupBarrier();
        if (lid < s) {
            tree[lid] = bitcast<u32>(bitcast<f32>(tree[lid]) + bitcast<f32>(tree[lid + s]));
        }
    }
    workgroupBarrier();
    write_row(g, m, bitcast<f32>(tree[0]), lid, WG);
}
