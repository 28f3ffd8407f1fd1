// Unary elementwise ops, one `case OP_<NAME>` per row of vkml_ops::unary_ops! (build.rs writes the constants and
// fails the build when a row has no case); input and output share a dtype.
// @inputs a
// @uses special
// @uses arith
// @uses unary_ops
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

fn value_f(e: u32) -> f32 {
    return unary_f(info.op, a_fbits(e));
}

fn value_i(e: u32) -> vec2<u32> {
    // Integers reach only neg, abs and sign: float-only ops cast first, rounding ops on integers are copies.
    let x = a_i64(e);
    switch info.op {
        case OP_ABS: { return select(x, neg64(x), is_neg64(x)); }
        case OP_SIGN: {
            let c = cmp64(x, vec2<u32>(0u, 0u));
            return i64_from_i32(c);
        }
        case OP_NEG, default: { return neg64(x); }
    }
}
