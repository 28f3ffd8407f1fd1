// softmax (op 0) and log_softmax (op 1) of contiguous float32 rows whose length n is a multiple of four, from 36 to
// 4,096, starting at a multiple of four elements (backend-vulkan/src/softmax.rs chooses it; extra.x is n, offset.x
// the first row's start): softmax.wgsl's arithmetic but a plain division (see `y4`), one workgroup per row, each
// invocation reading its elements as up to eight aligned vec4s (vectors l, l + WG, …) into eight named registers,
// never a private array, which a compiler may keep in memory. Each invocation's max and sum run over its elements
// in index order and the same fixed trees combine them, so every run gives the same bytes; softmax keeps each
// exp(x − m) for the division rather than computing it again.
// @uses arith
// @uses row_tree

@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(9) var<storage, read_write> out: array<vec4<u32>>;

// −inf in every lane: the value of a vector past the row, which leaves the max unchanged and adds exp(−inf) = 0.
const PAST: vec4<u32> = vec4<u32>(0xff800000u);

// Vector v of the row whose first vector is `base`, or PAST beyond its `vecs` vectors.
fn load(base: u32, v: u32, vecs: u32) -> vec4<u32> {
    if (v < vecs) {
        return a[base + v];
    }
    return PAST;
}

fn max4(m: u32, x: vec4<u32>) -> u32 {
    var r = bitcast<u32>(fmaximum(m, x.x));
    r = bitcast<u32>(fmaximum(r, x.y));
    r = bitcast<u32>(fmaximum(r, x.z));
    return bitcast<u32>(fmaximum(r, x.w));
}

// exp(x − m) of each lane, as bits.
fn exp4(x: vec4<u32>, m: f32) -> vec4<u32> {
    let d = bitcast<vec4<f32>>(x) - vec4<f32>(m);
    return vec4<u32>(
        bitcast<u32>(exp_bits(bitcast<u32>(d.x), false)),
        bitcast<u32>(exp_bits(bitcast<u32>(d.y), false)),
        bitcast<u32>(exp_bits(bitcast<u32>(d.z), false)),
        bitcast<u32>(exp_bits(bitcast<u32>(d.w), false)),
    );
}

// `part` plus the exps of the vector at c, in lane order; softmax keeps the exps in c for its division.
fn add_exps(c: ptr<function, vec4<u32>>, m: f32, soft: bool, part: f32) -> f32 {
    let e = exp4(*c, m);
    if (soft) {
        *c = e;
    }
    return (((part + bitcast<f32>(e.x)) + bitcast<f32>(e.y)) + bitcast<f32>(e.z)) + bitcast<f32>(e.w);
}

// The outputs of a vector: from its exps `e` (softmax: e / s) or from its inputs `e` (log_softmax: x − m − log s).
// The divisor is a sum of exps whose largest is exp(0) = 1, so 1 ≤ s ≤ n (or NaN): inside the range where Vulkan
// bounds a plain division by 2.5 ULP (the contract's), which needs none of fdiv's scaling of huge or subnormal
// divisors (a dividend that is subnormal may flush, as the contract allows). On an H100 fdiv cost a third of the
// kernel's time.
fn y4(e: vec4<u32>, m: f32, s: f32, lse: f32, soft: bool) -> vec4<u32> {
    if (soft) {
        return bitcast<vec4<u32>>(bitcast<vec4<f32>>(e) / vec4<f32>(s));
    }
    return bitcast<vec4<u32>>((bitcast<vec4<f32>>(e) - vec4<f32>(m)) - vec4<f32>(lse));
}

fn store(row: u32, v: u32, vecs: u32, y: vec4<u32>) {
    if (v < vecs) {
        out[row + v] = y;
    }
}

@compute @workgroup_size(128)
fn main(grid: Grid, @builtin(local_invocation_index) lid: u32) {
    let vecs = info.extra.x / 4u;
    let g = group_index(grid);
    if (g >= info.n / info.extra.x) {
        return;
    }
    let base = info.offset.x / 4u + g * vecs;
    var c0 = load(base, lid, vecs);
    var c1 = load(base, lid + WG, vecs);
    var c2 = load(base, lid + 2u * WG, vecs);
    var c3 = load(base, lid + 3u * WG, vecs);
    var c4 = load(base, lid + 4u * WG, vecs);
    var c5 = load(base, lid + 5u * WG, vecs);
    var c6 = load(base, lid + 6u * WG, vecs);
    var c7 = load(base, lid + 7u * WG, vecs);
    var mb = max4(max4(max4(max4(0xff800000u, c0), c1), c2), c3);
    mb = max4(max4(max4(max4(mb, c4), c5), c6), c7);
    let m = bitcast<f32>(tree_combine(lid, mb, false));
    let soft = info.op == 0u;
    var part = 0.0;
    part = add_exps(&c0, m, soft, part);
    part = add_exps(&c1, m, soft, part);
    part = add_exps(&c2, m, soft, part);
    part = add_exps(&c3, m, soft, part);
    part = add_exps(&c4, m, soft, part);
    part = add_exps(&c5, m, soft, part);
    part = add_exps(&c6, m, soft, part);
    part = add_exps(&c7, m, soft, part);
    let s = bitcast<f32>(tree_combine(lid, bitcast<u32>(part), true));
    let lse = log_bits(bitcast<u32>(s), false);
    let row = g * vecs;
    store(row, lid, vecs, y4(c0, m, s, lse, soft));
    store(row, lid + WG, vecs, y4(c1, m, s, lse, soft));
    store(row, lid + 2u * WG, vecs, y4(c2, m, s, lse, soft));
    store(row, lid + 3u * WG, vecs, y4(c3, m, s, lse, soft));
    store(row, lid + 4u * WG, vecs, y4(c4, m, s, lse, soft));
    store(row, lid + 5u * WG, vecs, y4(c5, m, s, lse, soft));
    store(row, lid + 6u * WG, vecs, y4(c6, m, s, lse, soft));
    store(row, lid + 7u * WG, vecs, y4(c7, m, s, lse, soft));
}
