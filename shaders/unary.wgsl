// Unary elementwise ops (op codes match backend-vulkan/src/unary.rs); input and output share a dtype.
// @inputs a
// @driver elementwise

const NEG: u32 = 0u;
const EXP: u32 = 1u;
const LOG: u32 = 2u;
const SQRT: u32 = 3u;

fn float_class() -> bool {
    return is_float(info.in_dtype.x);
}

// log with subnormal inputs handled from their bits (m · 2^-149), since GPUs may flush them before log sees them.
fn log_exact_subnormal(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7f800000u) == 0u && (b & 0x007fffffu) != 0u) {
        if ((b & 0x80000000u) != 0u) {
            return bitcast<f32>(0x7fc00000u);
        }
        return log(f32(b & 0x007fffffu)) - 103.27893;
    }
    return log(x);
}

fn value_f(e: u32) -> f32 {
    let x = a_f32(e);
    switch info.op {
        // Negation flips the sign bit: exact, and immune to subnormal flushing.
        case 0u: { return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u); }
        case 1u: { return exp(x); }
        case 2u: { return log_exact_subnormal(x); }
        default: { return sqrt(x); }
    }
}

fn value_i(e: u32) -> vec2<u32> {
    // Only negation reaches integers; exp/log/sqrt are float-only (the graph casts first).
    return neg64(a_i64(e));
}
