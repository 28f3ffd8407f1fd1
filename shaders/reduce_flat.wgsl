// Float32 rows lying contiguous, reduced at memory speed (backend-vulkan/src/reduce.rs chooses it): sum, amax,
// amin, argmax and argmin of each row, one workgroup per row, each invocation reading four elements at a time as
// one aligned vec4 (row g starts at offset.x + (g mod extra2.z) · extra2.y + (g / extra2.z) · extra2.w: the kept
// dims merged into at most two). A row's elements before its first multiple of four and after its last whole
// vector go to invocation 0, which folds them first and last; invocation l folds vectors l, l + WG, … in index
// order (a sum keeps one lane per vector component), then a fixed tree combines the invocations: an order fixed by
// the shape, so every run gives the same bytes. An extremum keeps its first index, as the generic kernel and the
// CPU oracle do: NaN beats everything, and equal keys (±0) keep the earlier element.

@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(9) var<storage, read_write> out: array<u32>;

// A partial result: the sum, or an extremum's order key, bits and index.
struct Best {
    key: i32,
    bits: u32,
    at: u32,
}

var<workgroup> sums: array<f32, 128>;
var<workgroup> bests: array<Best, 128>;

fn is_min() -> bool {
    return info.op == OP_AMIN || info.op == OP_ARGMIN;
}

// The extremum order of f32 bits b: NaN highest, else the float order (−0 = +0), reversed for a minimum.
fn order_key(b: u32) -> i32 {
    if (bnan(b)) {
        return 0x7fffffff;
    }
    return select(bkey(b), -bkey(b), is_min());
}

// p with element bits b at index r folded in, r after every index p has seen.
fn take(p: Best, b: u32, r: u32) -> Best {
    let k = order_key(b);
    if (k > p.key) {
        return Best(k, b, r);
    }
    return p;
}

// The first of two partial extrema: q's elements lie after p's only within one invocation's fold, so the index
// decides a tie between invocations.
fn first(p: Best, q: Best) -> Best {
    if (q.key > p.key || (q.key == p.key && q.at < p.at)) {
        return q;
    }
    return p;
}

// The sum of this invocation's vectors (of those from vector `base`), four at a time, all four loaded before any
// is added (several loads in flight per invocation are what reaches the memory's speed).
fn row_sum(base: u32, vecs: u32, lid: u32) -> f32 {
    var s = vec4<f32>(0.0);
    var v = lid;
    for (; v + 3u * WG < vecs; v = v + 4u * WG) {
        let x0 = bitcast<vec4<f32>>(a[base + v]);
        let x1 = bitcast<vec4<f32>>(a[base + v + WG]);
        let x2 = bitcast<vec4<f32>>(a[base + v + 2u * WG]);
        let x3 = bitcast<vec4<f32>>(a[base + v + 3u * WG]);
        s = s + x0;
        s = s + x1;
        s = s + x2;
        s = s + x3;
    }
    for (; v < vecs; v = v + WG) {
        s = s + bitcast<vec4<f32>>(a[base + v]);
    }
    return (s.x + s.y) + (s.z + s.w);
}

// p with the four elements of x, the first at index r of the row, folded in.
fn fold4(p: Best, x: vec4<u32>, r: u32) -> Best {
    return take(take(take(take(p, x.x, r), x.y, r + 1u), x.z, r + 2u), x.w, r + 3u);
}

// `init` with this invocation's vectors folded in, as `row_sum` reads them; vector 0 holds element r0 of the row.
fn row_best(init: Best, base: u32, vecs: u32, r0: u32, lid: u32) -> Best {
    var p = init;
    var v = lid;
    for (; v + 3u * WG < vecs; v = v + 4u * WG) {
        let x0 = a[base + v];
        let x1 = a[base + v + WG];
        let x2 = a[base + v + 2u * WG];
        let x3 = a[base + v + 3u * WG];
        p = fold4(p, x0, r0 + 4u * v);
        p = fold4(p, x1, r0 + 4u * (v + WG));
        p = fold4(p, x2, r0 + 4u * (v + 2u * WG));
        p = fold4(p, x3, r0 + 4u * (v + 3u * WG));
    }
    for (; v < vecs; v = v + WG) {
        p = fold4(p, a[base + v], r0 + 4u * v);
    }
    return p;
}

// The f32 bits at element index e of the buffer.
fn element(e: u32) -> u32 {
    return a[e / 4u][e % 4u];
}

@compute @workgroup_size(128)
fn main(grid: Grid, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(grid);
    if (g >= info.n) {
        return;
    }
    let len = info.extra.y;
    let start = info.offset.x + (g % info.extra2.z) * info.extra2.y + (g / info.extra2.z) * info.extra2.w;
    let head = min((4u - start % 4u) % 4u, len);
    let vecs = (len - head) / 4u;
    let base = (start + head) / 4u;
    let rest = head + 4u * vecs;
    if (info.op == OP_SUM) {
        var s = row_sum(base, vecs, lid);
        if (lid == 0u) {
            var edge = 0.0;
            for (var r = 0u; r < head; r = r + 1u) {
                edge = edge + bitcast<f32>(element(start + r));
            }
            for (var r = rest; r < len; r = r + 1u) {
                edge = edge + bitcast<f32>(element(start + r));
            }
            s = s + edge;
        }
        sums[lid] = s;
        for (var h = WG / 2u; h > 0u; h = h / 2u) {
            workgroupBarrier();
            if (lid < h) {
                sums[lid] = sums[lid] + sums[lid + h];
            }
        }
        workgroupBarrier();
        if (lid == 0u) {
            out[g] = bitcast<u32>(sums[0]);
        }
        return;
    }
    var p = Best(-0x7fffffff - 1, 0u, 0xffffffffu);
    if (lid == 0u) {
        for (var r = 0u; r < head; r = r + 1u) {
            p = take(p, element(start + r), r);
        }
    }
    p = row_best(p, base, vecs, head, lid);
    if (lid == 0u) {
        for (var r = rest; r < len; r = r + 1u) {
            p = take(p, element(start + r), r);
        }
    }
    bests[lid] = p;
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        workgroupBarrier();
        if (lid < h) {
            bests[lid] = first(bests[lid], bests[lid + h]);
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        let b = bests[0];
        if (info.op == OP_ARGMAX || info.op == OP_ARGMIN) {
            out[2u * g] = b.at;
            out[2u * g + 1u] = 0u;
        } else {
            out[g] = b.bits;
        }
    }
}
