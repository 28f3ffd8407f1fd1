// Fused elementwise programs (backend-vulkan/src/fused.rs, core/src/api/fused.rs): each element runs the
// program's postfix steps on a stack of 8 values, every step through the function its primitive's kernel uses
// (arith.wgsl.in, `-x` as unary's neg), so a fused chain gives the bytes of the chain of primitives. The program
// is in the Meta uniform: info.extra.x words of info.prog, one per step (code in the low byte, an input's index
// above it) and two for a constant (its f32 bits follow). A step cannot contract with the next into a fused
// multiply-add: they run in different iterations of a loop over a program known only at run time.
// @inputs a b c
// @uses arith
// @driver elementwise

fn float_class() -> bool {
    return true;
}

fn word(i: u32) -> u32 {
    return info.prog[i / 4u][i % 4u];
}

fn input(k: u32, e: u32) -> u32 {
    switch k {
        case 0u: { return a_fbits(e); }
        case 1u: { return b_fbits(e); }
        default: { return c_fbits(e); }
    }
}

fn value_f(e: u32) -> f32 {
    var st: array<u32, 8>;
    var sp = 0u;
    var i = 0u;
    loop {
        if (i >= info.extra.x) {
            break;
        }
        let w = word(i);
        switch w & 0xffu {
            case 0u: {
                st[sp] = input(w >> 8u, e);
                sp = sp + 1u;
            }
            case 1u: {
                i = i + 1u;
                st[sp] = word(i);
                sp = sp + 1u;
            }
            case 2u: { st[sp - 1u] = bitcast<u32>(sqrt_bits(st[sp - 1u])); }
            case 3u: { st[sp - 1u] = st[sp - 1u] ^ 0x80000000u; }
            default: {
                let x = st[sp - 2u];
                let y = st[sp - 1u];
                sp = sp - 1u;
                st[sp - 1u] = bitcast<u32>(step2(w & 0xffu, x, y));
            }
        }
        i = i + 1u;
    }
    return bitcast<f32>(st[0]);
}

// The binary steps: 4 add, 5 mul, 6 div, 7 maximum (binary.wgsl's OP_ADD, OP_MUL, OP_DIV and OP_MAXIMUM).
fn step2(code: u32, xb: u32, yb: u32) -> f32 {
    switch code {
        case 4u: { return bitcast<f32>(xb) + bitcast<f32>(yb); }
        case 5u: { return fmul(xb, yb); }
        case 6u: { return fdiv(xb, yb); }
        default: { return fmaximum(xb, yb); }
    }
}

// The driver's integer path, never taken: programs are float32.
fn value_i(e: u32) -> vec2<u32> {
    return vec2<u32>(0u, 0u);
}
