//! The binary primitives: one row each, in op-code order, read like the unary rows (`unary.rs`): the variant,
//! its name, its dtype rule, its forward contract and unsupported combinations, and its gradient contract (`None`
//! where the output is not differentiable). The Vulkan build script writes `OP_<NAME>` for each and fails when
//! `shaders/binary.wgsl` has no `case` for one.
//!
//! Rules: `Promote` (torch.result_type), `NoBool` (promote, but bool operands are refused, as torch's fmod),
//! `Float` (the promoted dtype, float32 for integers and bool), `Bits` (integers and bool only), `Compare` (compare
//! in the promoted dtype, bool out).

/// Calls `$m! { prefix rows }` with every binary primitive's row, after any tokens given after `$m`.
#[macro_export]
macro_rules! binary_ops {
    ($m:ident $($prefix:tt)*) => {
        $m! {
            $($prefix)*
        Add add: Promote;
            fwd EXACT_ARITH, NO_F64;
            grad Some(GRAD_LINEAR);
        Mul mul: Promote;
            fwd EXACT_ARITH, NO_F64;
            grad Some(GRAD_LINEAR);
        Div div: Float;
            fwd Tolerance::Ulp {
                ulp: 1.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "correctly rounded on every device, as IEEE's x / y (the oracle's bytes: \
                    tests/tests/mutation_kill_binary.rs): long division of the significands in integers (subnormal \
                    operands read from their bits, a subnormal quotient rounded from the remainder), where Vulkan's \
                    own x / y is only within 2.5 ULP for |y| in [2⁻¹²⁶, 2¹²⁶]; 1 ULP is the distance from torch's \
                    float64 reference, whose CPU divides an integer tensor by a scalar through its reciprocal (7 / 3 \
                    is 2.3333335, one ULP off)",
            }, NO_F64;
            grad Some(GRAD_QUOTIENT);
        Maximum maximum: Promote;
            fwd EXACT_CMP, NO_F64;
            grad Some(GRAD_LINEAR);
        Minimum minimum: Promote;
            fwd EXACT_CMP, NO_F64;
            grad Some(GRAD_LINEAR);
        BitAnd bitwise_and: Bits;
            fwd EXACT_BITS, NO_F64;
            grad None;
        BitOr bitwise_or: Bits;
            fwd EXACT_BITS, NO_F64;
            grad None;
        BitXor bitwise_xor: Bits;
            fwd EXACT_BITS, NO_F64;
            grad None;
        Eq eq: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        Ne ne: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        Lt lt: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        Le le: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        Gt gt: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        Ge ge: Compare;
            fwd EXACT_CMP, NO_F64;
            grad None;
        /// C's fmod: the remainder with the dividend's sign, exact.
        Fmod fmod: NoBool;
            fwd Tolerance::Exact {
                gpu_ftz: true,
                reason: "the remainder of a float division is representable: long division on the significands' bits, exact \
                    (subnormals included where the GPU keeps them; a flushing GPU sees them as zeros, consistently); \
                    integers: the truncated remainder, exact",
            }, NO_INT_DIVISION;
            grad Some(GRAD_LINEAR);
        Atan2 atan2: Float;
            fwd Tolerance::Ulp {
                ulp: 6.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "atan of min/max (a 2.5 ulp division, passed on at most 1:1), Cephes' polynomial within 2 ulp, and \
                    the reflections π/2 − r and π − r with their constants' half ulp",
            }, NO_F64;
            grad Some(GRAD_ATAN2);
        CopySign copysign: Float;
            fwd Tolerance::Exact {
                gpu_ftz: false,
                reason: "|a| with b's sign bit: a bit operation",
            }, NO_F64;
            grad Some(GRAD_LINEAR);
        /// pow(a, b): C's powf for floats (IEEE's special values), torch's powi for integers (wrapping; a negative
        /// exponent gives 0 unless the base is ±1).
        Pow pow: Promote;
            fwd Tolerance::Ulp {
                ulp: 2.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "no builtin (Vulkan's pow is exp2(y·log2 x), hundreds of ulp off for large results): log2 x and \
                    y·log2 x carried in two f32 parts (about 2⁻⁴⁴ relative), one rounding into Cephes' 2^f polynomial \
                    (within 1 ulp) and an exact scaling; integers exact (wrapping, as torch)",
            }, NO_BOOL_POW;
            grad Some(GRAD_POW);
        }
    };
}
