// col2im, `Op::Fold` (backend-vulkan/src/window.rs): each element (n, c, h, w) of the image adds the block elements
// that unfold reads it into, in tap order (i, then j) from zero, as the CPU does: every device adds the same terms in
// the same order, with no atomics. info.shape is the image (N, C, H, W); input a's strides view the source as
// (N, C, KH, KW, OH, OW); extra is (KH, KW, OH, OW), extra2 (stride h, stride w, dilation h, dilation w).
// @inputs a
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

fn elem(e: u32) -> vec2<u32> {
    let x = e % dim(3u);
    let y = (e / dim(3u)) % dim(2u);
    let plane = e / (dim(3u) * dim(2u));
    let base = i32(info.offset[0]) + i32(plane / dim(1u)) * stride(0u, 0u) + i32(plane % dim(1u)) * stride(0u, 1u);
    let dt = info.out_dtype;
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
            let at = u32(base + i32(i) * stride(0u, 2u) + i32(j) * stride(0u, 3u) + r * stride(0u, 4u) + q * stride(0u, 5u));
            if (is_float(dt)) {
                acc = acc + a_f32_at(at, dt);
            } else {
                count = add64(count, a_i64_at(at, dt));
            }
        }
    }
    if (!is_float(dt)) {
        // Only bool reaches here (torch folds no integers): true where any tap is.
        return vec2<u32>(select(0u, 1u, count.x != 0u || count.y != 0u), 0u);
    }
    if (is_half(dt)) {
        return vec2<u32>(narrow(dt, acc), 0u);
    }
    return vec2<u32>(bitcast<u32>(acc), 0u);
}
