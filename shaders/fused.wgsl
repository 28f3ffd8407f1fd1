// Fused elementwise programs (backend-vulkan/src/fused.rs, core/src/plan/fuse.rs, core/src/api/fused.rs): each
// element runs the program's postfix steps on a stack of 8 values, every step through the function its primitive's
// kernel calls (unary_f, binary_f), so a fused chain gives the bytes of the chain of primitives. The program is in
// the Meta uniform: info.extra.x words of info.prog, one per step (its kind in the low byte: 0 input, 1 constant,
// 2 unary, 3 binary; the input's index or the op code above it) and two for a constant (its f32 bits follow). A
// step cannot contract with the next into a fused multiply-add: they run in different iterations of a loop over a
// program known only at run time.
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
            default: {
                sp = sp - 1u;
                st[sp - 1u] = bitcast<u32>(binary_f(arg, st[sp - 1u], st[sp]));
            }
        }
        i = i + 1u;
    }
    return bitcast<f32>(st[0]);
}

// A step's value as the kernels generated from a program keep it (backend-vulkan/src/straight.rs): its bits,
// xored with info.extra2.w, which is 0 at run time but unknown to the compiler, so no two steps merge.
fn held(v: f32) -> u32 {
    return bitcast<u32>(v) ^ info.extra2.w;
}

// The driver's integer path, never taken: programs are float32.
fn value_i(e: u32) -> vec2<u32> {
    return vec2<u32>(0u, 0u);
}
