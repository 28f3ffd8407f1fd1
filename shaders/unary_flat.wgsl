// neg, abs, exp, log, sqrt, rsqrt and tanh of a float32 input contiguous from a multiple of four elements
// (backend-vulkan/src/unary.rs chooses it): four elements at a time as aligned vec4s, each computed by unary.wgsl's
// own unary_f, with only these ops compiled in, so that the kernel stays small (the generic one holds every op and
// every layout behind one switch). offset.x is the input's first element.
// @uses special
// @uses arith
// @uses unary_ops
// @driver vectors

@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;

// unary.wgsl's unary_f for each op given as a constant, which the compiler folds to that op's case.
fn op_f(xb: u32) -> u32 {
    switch info.op {
        case OP_NEG: { return bitcast<u32>(unary_f(OP_NEG, xb)); }
        case OP_ABS: { return bitcast<u32>(unary_f(OP_ABS, xb)); }
        case OP_EXP: { return bitcast<u32>(unary_f(OP_EXP, xb)); }
        case OP_LOG: { return bitcast<u32>(unary_f(OP_LOG, xb)); }
        case OP_SQRT: { return bitcast<u32>(unary_f(OP_SQRT, xb)); }
        case OP_RSQRT: { return bitcast<u32>(unary_f(OP_RSQRT, xb)); }
        case OP_TANH, default: { return bitcast<u32>(unary_f(OP_TANH, xb)); }
    }
}

// Output vector v.
fn vector(v: u32) {
    let x = a[info.offset.x / 4u + v];
    out[v] = vec4<u32>(op_f(x.x), op_f(x.y), op_f(x.z), op_f(x.w));
}
