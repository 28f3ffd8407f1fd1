// Casts between dtypes: floats go through f32 (narrowing in software, round to nearest even), integers and bool
// through int64; int64 -> f32 rounds to nearest even, f32 -> int truncates and saturates.
// @inputs a
// @driver elementwise

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

fn value_f(e: u32) -> f32 {
    return a_f32(e);
}

fn value_i(e: u32) -> vec2<u32> {
    return a_i64(e);
}
