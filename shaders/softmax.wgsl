// softmax (op 0) and log_softmax (op 1) of each row along the last dim (backend-vulkan/src/softmax.rs), in the
// composite's arithmetic: m = the row's max (NaN if any, fmaximum), d = x − m, e = exp(d) through unary's
// exp_bits, the sum of e in the reduce kernel's order (each invocation strided in index order, then a fixed tree),
// then fdiv(e, Σ) or d − log Σ. One workgroup per row: a row of at most 4,096 is read once, each invocation keeping
// its 32 elements in a private array for the sum and the write (the composite's five kernels read it five times and
// wrote it three); a longer row is read three times (max, sum, write). Rows of at most 32 (extra.y = 1) take one
// invocation each, in index order. extra.x is the row length; the input is float32.
// @inputs a
// @uses arith
// @uses row_tree

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

// The f32 bits of element j of row r.
fn x_bits(r: u32, j: u32) -> u32 {
    return a_fbits(r * info.extra.x + j);
}

// exp(x − m) of the element with bits xb.
fn shifted_exp(xb: u32, m: f32) -> f32 {
    return exp_bits(bitcast<u32>(bitcast<f32>(xb) - m), false);
}

// The output for the element with bits xb: exp(x − m) / s, or x − m − log s (`lse`).
fn y_of(xb: u32, m: f32, s: f32, lse: f32) -> u32 {
    let d = bitcast<f32>(xb) - m;
    if (info.op == 1u) {
        return bitcast<u32>(d - lse);
    }
    return bitcast<u32>(fdiv(bitcast<u32>(exp_bits(bitcast<u32>(d), false)), bitcast<u32>(s)));
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
        s = s + shifted_exp(x_bits(r, j), m);
    }
    return s;
}

fn write_row(r: u32, m: f32, s: f32, start: u32, step: u32) {
    let n = info.extra.x;
    let lse = log_bits(bitcast<u32>(s), false);
    for (var j = start; j < n; j = j + step) {
        out[r * n + j] = y_of(x_bits(r, j), m, s, lse);
    }
}

// Elements a workgroup's invocation keeps of a row it reads once (rows up to CACHED · WG = 4,096).
const CACHED: u32 = 32u;

@compute @workgroup_size(128)
fn main(grid: Grid, @builtin(local_invocation_index) lid: u32) {
    let n = info.extra.x;
    let rows = info.n / n;
    let g = group_index(grid);
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
    if (n > CACHED * WG) {
        let m = bitcast<f32>(tree_combine(lid, row_max(g, lid, WG), false));
        let s = bitcast<f32>(tree_combine(lid, bitcast<u32>(row_sum(g, m, lid, WG)), true));
        write_row(g, m, s, lid, WG);
        return;
    }
    // Elements lid + t·WG, in index order, as the uncached loops take them.
    var c: array<u32, 32>;
    var mb = 0xff800000u;
    for (var t = 0u; t < CACHED; t = t + 1u) {
        if (lid + t * WG < n) {
            c[t] = x_bits(g, lid + t * WG);
            mb = bitcast<u32>(fmaximum(mb, c[t]));
        }
    }
    let m = bitcast<f32>(tree_combine(lid, mb, false));
    var part = 0.0;
    for (var t = 0u; t < CACHED; t = t + 1u) {
        if (lid + t * WG < n) {
            part = part + shifted_exp(c[t], m);
        }
    }
    let s = bitcast<f32>(tree_combine(lid, bitcast<u32>(part), true));
    let lse = log_bits(bitcast<u32>(s), false);
    for (var t = 0u; t < CACHED; t = t + 1u) {
        if (lid + t * WG < n) {
            out[g * n + lid + t * WG] = y_of(c[t], m, s, lse);
        }
    }
}
