// Fused elementwise programs (backend-vulkan/src/fused.rs, core/src/plan/fuse.rs, core/src/api/fused.rs): each
// element runs the program's postfix steps on a stack of 8 values, every step through the function its primitive's
// kernel calls (unary_f, binary_f), so a fused chain gives the bytes of the chain of primitives. The program is in
// the Meta uniform: info.extra.x words of info.prog, one per step (its kind in the low byte: 0 input, 1 constant,
// 2 unary, 3 binary, 4 where, 5 cast; the input's index, the op code or the cast's dtype code above it) and two for
// a constant (its f32 bits follow). Values are f32 bits: a bool as 0 or 1, a 16-bit float widened. A step cannot
// contract with the next into a fused multiply-add: they run in different iterations of a loop over a program known
// only at run time. The output is stored in the output's dtype by the driver.
// @inputs a b c
// @uses special
// @uses arith
// @uses pow
// @uses unary_ops
// @uses binary_ops
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
        let arg = w >> 8u;
        switch w & 0xffu {
            case 0u: {
                st[sp] = input(arg, e);
                sp = sp + 1u;
            }
            case 1u: {
                i = i + 1u;
                st[sp] = word(i);
                sp = sp + 1u;
            }
            case 2u: { st[sp - 1u] = bitcast<u32>(unary_f(arg, st[sp - 1u])); }
            case 4u: {
                sp = sp - 2u;
                st[sp - 1u] = pick(st[sp - 1u], st[sp], st[sp + 1u]);
            }
            case 5u: { st[sp - 1u] = cast_bits(arg, st[sp - 1u]); }
            default: {
                sp = sp - 1u;
                st[sp - 1u] = bitcast<u32>(binary_f(arg, st[sp - 1u], st[sp]));
            }
        }
        i = i + 1u;
    }
    return bitcast<f32>(st[0]);
}

// where(c, a, b) on bits: c is 0 or 1 (a comparison's, a cast's or a bool input's), a and b move unchanged.
fn pick(c: u32, a: u32, b: u32) -> u32 {
    return select(b, a, fnonzero(bitcast<f32>(c)));
}

// x as a cast to dtype dt stores it (the driver's narrow, the loaders' widening, store_f's bool), read back as f32.
fn cast_bits(dt: u32, x: u32) -> u32 {
    switch dt {
        case 1u: { return bitcast<u32>(f16_to_f32(narrow(dt, bitcast<f32>(x)))); }
        case 2u: { return bitcast<u32>(bf16_to_f32(narrow(dt, bitcast<f32>(x)))); }
        case 5u: { return select(0u, 0x3f800000u, fnonzero(bitcast<f32>(x))); }
        default: { return x; }
    }
}

// A step's value as the kernels generated from a program keep it (backend-vulkan/src/straight.rs): its bits,
// xored with info.extra2.w, which is 0 at run time but unknown to the compiler, so no two steps merge.
fn held(v: f32) -> u32 {
    return bitcast<u32>(v) ^ info.extra2.w;
}

// The driver's integer path, never taken: a program's values are f32 (its output float or bool).
fn value_i(e: u32) -> vec2<u32> {
    return vec2<u32>(0u, 0u);
}
