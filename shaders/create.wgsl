// Creation: op 0 fills words with a repeating pattern (the value pre-encoded on the host), op 1 draws uniform
// floats and op 2 normal floats from Philox-4x32-10 — the same rounds and formulas as util/philox.rs and the CPU,
// with vkml's log, sqrt and cos (arith.wgsl.in, special.wgsl.in) rather than the driver's loosely bounded builtins.
// @uses arith
// @uses special
// @driver items

fn philox(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = ctr;
    var k = key;
    for (var r = 0u; r < 10u; r = r + 1u) {
        let p0 = mul32(0xD2511F53u, c.x);
        let p1 = mul32(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.y ^ c.y ^ k.x, p1.x, p0.y ^ c.w ^ k.y, p0.x);
        k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}

// Word i of the stream (seed in extra.xy, first block in extra.zw).
fn rand_word(i: u32) -> u32 {
    let block = add64(info.extra.zw, vec2<u32>(i / 4u, 0u));
    let r = philox(vec4<u32>(block.x, block.y, 0u, 0u), info.extra.xy);
    return r[i % 4u];
}

fn uniform01(w: u32) -> f32 {
    return f32(w & 0xffffffu) * (1.0 / 16777216.0);
}

fn item(i: u32) {
    switch info.op {
        case 0u: {
            out[i] = select(info.extra2.x, info.extra2.y, (i & 1u) == 1u);
        }
        case 1u: {
            // extra2.x random digits (24 for f32, 11/8 for f16/bf16): exact in f32, as util/philox.rs.
            let d = info.extra2.x;
            let w = rand_word(i) & ((1u << d) - 1u);
            out[i] = bitcast<u32>(f32(w) * bitcast<f32>((127u - d) << 23u));
        }
        default: {
            let base = 4u * (i / 2u) + 2u * (i % 2u);
            let u1 = 1.0 - uniform01(rand_word(base));
            let u2 = uniform01(rand_word(base + 1u));
            let r = sqrt_of(-2.0 * log_of(u1));
            // Rounded twice, as the CPU computes it: a product contracted into the subtraction (one FMA) would move
            // θ, and cos near its zeros with it.
            let theta = opaque(6.2831855 * u2) - 3.1415927;
            out[i] = bitcast<u32>(-r * cos_f(bitcast<u32>(theta)));
        }
    }
}
