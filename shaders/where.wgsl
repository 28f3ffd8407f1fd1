// where(cond, a, b): input 0 is the bool condition, inputs 1 and 2 share the compute dtype.
// @inputs a b c
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.y);
}

fn value_f(e: u32) -> f32 {
    if (a_i64(e).x != 0u) {
        return b_f32(e);
    }
    return c_f32(e);
}

fn value_i(e: u32) -> vec2<u32> {
    if (a_i64(e).x != 0u) {
        return b_i64(e);
    }
    return c_i64(e);
}
