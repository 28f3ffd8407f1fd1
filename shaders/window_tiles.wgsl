// The max pool's gradient (`Op::MaxPoolGrad`) of float32 values where the windows tile the image (stride = kernel,
// no dilation, OH·KH = H and OW·KW = W; backend-vulkan/src/window.rs chooses it): one invocation per window finds
// the window's first maximum as window.wgsl's first_max does and writes all KH·KW of the window's image elements,
// its gradient at that tap and zero elsewhere. Each image element lies in one window, so the oracle's sum from zero
// has one term: the gradient's bits (a -0 as +0), without every element searching its window again. Input a is the
// image, b the pooled gradient (N, C, OH, OW), both read through their views; extra is (KH, KW, OH, OW), info.shape
// the image (the output, contiguous) and info.n the number of windows.
// @inputs a b
// @uses order
// @uses window
// @driver items

fn item(e: u32) {
    let kh = info.extra.x;
    let kw = info.extra.y;
    let oh = info.extra.z;
    let ow = info.extra.w;
    let q = e % ow;
    let r = (e / ow) % oh;
    let plane = e / (ow * oh);
    let sy = stride(0u, 2u);
    let sx = stride(0u, 3u);
    let corner = plane_at(0u, plane) + i32(r * kh) * sy + i32(q * kw) * sx;
    var best = 0u;
    var bf = bitcast<f32>(a[u32(corner)]);
    for (var i = 0u; i < kh; i = i + 1u) {
        for (var j = 0u; j < kw; j = j + 1u) {
            let v = bitcast<f32>(a[u32(corner + i32(i) * sy + i32(j) * sx)]);
            if (beats_f(v, i * kw + j, bf, best, false)) {
                best = i * kw + j;
                bf = v;
            }
        }
    }
    let gb = b[u32(plane_at(1u, plane) + i32(r) * stride(1u, 2u) + i32(q) * stride(1u, 3u))];
    // window.wgsl's sum from zero, in bits: a -0 gradient lands as +0 (a compiler may fold a float 0 + g to g).
    let g = select(gb, 0u, gb == 0x80000000u);
    let width = ow * kw;
    let first = (plane * oh * kh + r * kh) * width + q * kw;
    for (var i = 0u; i < kh; i = i + 1u) {
        for (var j = 0u; j < kw; j = j + 1u) {
            out[first + i * width + j] = select(0u, g, i * kw + j == best);
        }
    }
}
