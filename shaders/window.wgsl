// Window ops over images (backend-vulkan/src/window.rs), each output element computed alone, with no atomics, in the
// CPU's order: op 0, col2im (`Op::Fold`): each image element (n, c, h, w) adds the block elements that unfold reads it
// into, in tap order (i, then j) from zero; input a's strides view the source as (N, C, KH, KW, OH, OW). Op 1, max
// pooling (`Op::MaxPool`): each window's first maximum (as argmax) of image a, output (N, C, OH, OW). Op 2, its
// gradient (`Op::MaxPoolGrad`): each element of image a adds, in tap order, the gradient b (N, C, OH, OW) of every
// window whose first maximum it is. Op 3, im2col with a pad (`Op::Unfold`): output (N, C·KH·KW, OH·OW), each element
// image a's where its tap lies inside the image, else zero. extra is (KH, KW, OH, OW), extra2 (stride h, stride w,
// dilation h, dilation w), info.prog[0] (pad h, pad w, image h, image w: the pad is the image's zeros before it, which
// unfold reads and fold leaves out; the image's size for op 3 alone); info.shape is the output.
// @inputs a b
// @uses order
// @uses window
// @driver bits

// The block along spatial dim d whose tap t reads image coordinate x, or -1 where none does.
fn block(x: u32, t: u32, d: u32) -> i32 {
    let reach = t * info.extra2[2u + d];
    if (x < reach) {
        return -1;
    }
    let q = x - reach;
    let s = info.extra2[d];
    if (q % s != 0u || q / s >= info.extra[2u + d]) {
        return -1;
    }
    return i32(q / s);
}

// The image element of input a in plane `base` that tap (i, j) of window (r, q) reads.
fn tap_at(base: i32, r: u32, q: u32, i: u32, j: u32) -> u32 {
    let y = r * info.extra2.x + i * info.extra2.z;
    let x = q * info.extra2.y + j * info.extra2.w;
    return u32(base + i32(y) * stride(0u, 2u) + i32(x) * stride(0u, 3u));
}

// The tap (i · KW + j) of window (r, q) that holds its first maximum, the taps visited in that order by row and
// column (no division per tap: integer division costs a GPU tens of instructions, and the gradient runs this for
// every image element).
fn first_max(base: i32, r: u32, q: u32) -> u32 {
    let dt = info.in_dtype.x;
    let float = is_float(dt);
    var best = 0u;
    var bf = a_f32_at(tap_at(base, r, q, 0u, 0u), dt);
    var bi = a_i64_at(tap_at(base, r, q, 0u, 0u), dt);
    for (var i = 0u; i < info.extra.x; i = i + 1u) {
        for (var j = 0u; j < info.extra.y; j = j + 1u) {
            let t = i * info.extra.y + j;
            let at = tap_at(base, r, q, i, j);
            if (float) {
                let v = a_f32_at(at, dt);
                if (beats_f(v, t, bf, best, false)) {
                    best = t;
                    bf = v;
                }
            } else {
                let v = a_i64_at(at, dt);
                if (beats_i(v, t, bi, best, false)) {
                    best = t;
                    bi = v;
                }
            }
        }
    }
    return best;
}

fn pooled(e: u32) -> vec2<u32> {
    let q = e % dim(3u);
    let r = (e / dim(3u)) % dim(2u);
    let base = plane_at(0u, e / (dim(3u) * dim(2u)));
    let t = first_max(base, r, q);
    return a_bits_at(tap_at(base, r, q, t / info.extra.y, t % info.extra.y), info.out_dtype);
}

// Ops 0 and 2: image element e adds, in tap order from zero, a term for every window tap (i, j) that reads it: the
// block element there (fold), or the window's gradient where its first maximum is this element (the pool's gradient).
fn added(e: u32) -> vec2<u32> {
    let x = e % dim(3u) + info.prog[0].y;
    let y = (e / dim(3u)) % dim(2u) + info.prog[0].x;
    let plane = e / (dim(3u) * dim(2u));
    let base = plane_at(0u, plane);
    let gbase = plane_at(1u, plane);
    let pool = info.op == 2u;
    let dt = select(info.out_dtype, info.in_dtype.y, pool);
    var acc = 0.0;
    var count = vec2<u32>(0u, 0u);
    for (var i = 0u; i < info.extra.x; i = i + 1u) {
        let r = block(y, i, 0u);
        if (r < 0) {
            continue;
        }
        for (var j = 0u; j < info.extra.y; j = j + 1u) {
            let q = block(x, j, 1u);
            if (q < 0) {
                continue;
            }
            if (pool) {
                if (first_max(base, u32(r), u32(q)) == i * info.extra.y + j) {
                    acc = acc + b_f32_at(u32(gbase + r * stride(1u, 2u) + q * stride(1u, 3u)), dt);
                }
                continue;
            }
            let at = u32(base + i32(i) * stride(0u, 2u) + i32(j) * stride(0u, 3u) + r * stride(0u, 4u) + q * stride(0u, 5u));
            if (is_float(dt)) {
                acc = acc + a_f32_at(at, dt);
            } else {
                count = add64(count, a_i64_at(at, dt));
            }
        }
    }
    if (!is_float(info.out_dtype)) {
        // Only a bool fold reaches here (torch folds no integers): true where any tap is.
        return vec2<u32>(select(0u, 1u, count.x != 0u || count.y != 0u), 0u);
    }
    if (is_half(info.out_dtype)) {
        return vec2<u32>(narrow(info.out_dtype, acc), 0u);
    }
    return vec2<u32>(bitcast<u32>(acc), 0u);
}

// Op 3: output element e of (N, C·KH·KW, OH·OW), image a's element under its tap, or zero in the pad.
fn unfolded(e: u32) -> vec2<u32> {
    let taps = info.extra.x * info.extra.y;
    let l = e % dim(2u);
    let row = (e / dim(2u)) % dim(1u);
    let n = e / (dim(2u) * dim(1u));
    let t = row % taps;
    let y = i32((l / info.extra.w) * info.extra2.x + (t / info.extra.y) * info.extra2.z) - i32(info.prog[0].x);
    let x = i32((l % info.extra.w) * info.extra2.y + (t % info.extra.y) * info.extra2.w) - i32(info.prog[0].y);
    if (y < 0 || x < 0 || y >= i32(info.prog[0].z) || x >= i32(info.prog[0].w)) {
        return vec2<u32>(0u, 0u);
    }
    let c = row / taps;
    let plane = i32(info.offset[0]) + i32(n) * stride(0u, 0u) + i32(c) * stride(0u, 1u);
    return a_bits_at(u32(plane + y * stride(0u, 2u) + x * stride(0u, 3u)), info.in_dtype.x);
}

fn elem(e: u32) -> vec2<u32> {
    switch info.op {
        case 1u: { return pooled(e); }
        case 3u: { return unfolded(e); }
        default: { return added(e); }
    }
}
