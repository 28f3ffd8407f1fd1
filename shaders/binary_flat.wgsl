// add, mul, div, maximum and minimum of float32 operands into a float32 output, where each operand is contiguous
// from a multiple of four elements or one value broadcast (backend-vulkan/src/binary.rs chooses it): four elements
// at a time as aligned vec4s, each computed exactly as binary.wgsl's `binary_f` computes it (the same arith
// functions), with only these ops compiled in, so that the kernel stays small. extra.x and extra.y say whether a
// and b are a broadcast value (1) or contiguous (0); offset.x and offset.y are their first elements.
// @uses arith
// @driver vectors

@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;

fn op_f(xb: u32, yb: u32) -> u32 {
    switch info.op {
        case OP_ADD: { return bitcast<u32>(bitcast<f32>(xb) + bitcast<f32>(yb)); }
        case OP_MUL: { return bitcast<u32>(fmul(xb, yb)); }
        case OP_DIV: { return bitcast<u32>(fdiv(xb, yb)); }
        case OP_MAXIMUM: { return bitcast<u32>(fmaximum(xb, yb)); }
        case OP_MINIMUM, default: { return bitcast<u32>(fminimum(xb, yb)); }
    }
}

// Vector v of an operand: its elements 4v.. from its first, or its one value in every lane.
fn a_vec(v: u32) -> vec4<u32> {
    if (info.extra.x == 1u) {
        return vec4<u32>(a[info.offset.x / 4u][info.offset.x % 4u]);
    }
    return a[info.offset.x / 4u + v];
}

fn b_vec(v: u32) -> vec4<u32> {
    if (info.extra.y == 1u) {
        return vec4<u32>(b[info.offset.y / 4u][info.offset.y % 4u]);
    }
    return b[info.offset.y / 4u + v];
}

// Output vector v.
fn vector(v: u32) {
    let x = a_vec(v);
    let y = b_vec(v);
    out[v] = vec4<u32>(op_f(x.x, y.x), op_f(x.y, y.y), op_f(x.z, y.z), op_f(x.w, y.w));
}
