//! The unary primitives: one row each, in op-code order. Adding a float primitive is this row, its CPU arm
//! (`backend-cpu/src/unary.rs`), its WGSL case (`shaders/unary.wgsl`, `case OP_<NAME>`: the build fails without it),
//! its backward arm (`core/src/autograd/rules.rs`) and a test line; names, dtype rule, op table row, gradient
//! contract, op code, Python and JavaScript methods and the tests' input domain all come from the row.
//!
//! A row: `Variant method: rule, domain; fwd <contract>; grad <gradient contract>;` where
//! - rule: `Same` (the input's dtype), `Integral` (the input's dtype; integers are already integral, so a copy) or
//!   `Float` (integers and bool compute in float32);
//! - domain: where ordinary test inputs are drawn (`normal`, `positive`, `unit` for (−1, 1), `above1`, `wide`);
//! - fwd and grad: `vkml_core::graph::contract::Tolerance` expressions, which may name the shared contracts of
//!   `graph::table` (forward) and `graph::grad_contract` (gradients).

/// Calls `$m! { prefix rows }` with every unary primitive's row (see the module doc for the row's form), after any
/// tokens given after `$m` (a callback's own arguments).
#[macro_export]
macro_rules! unary_ops {
    ($m:ident $($prefix:tt)*) => {
        $m! {
            $($prefix)*
        Neg neg: Same, normal;
            fwd EXACT;
            grad GRAD_LINEAR;
        Exp exp: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 2.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "vkml's exp (arith.wgsl.in), not the driver's 3 + 2·|x| ULP builtin: x − k·ln 2 exact to 2⁻²⁶, \
                    e^r by its Taylor polynomial to r⁷ (the next term below 2⁻²⁷), 2^k exact: 1.2 ULP measured",
            };
            grad GRAD_EXP;
        Log log: Float, positive;
            fwd Tolerance::Ulp {
                ulp: 5.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "vkml's log (arith.wgsl.in), relative everywhere where the driver's builtin is 2⁻²¹ absolute near 1: \
                    m·2^e from the bits, 2·atanh(s) with s = (m − 1)/(m + 1) through Vulkan's 2.5 ULP division, its series \
                    and e·ln 2 in two parts: 2 ULP measured with a correctly rounded division",
            };
            grad GRAD_QUOTIENT;
        Sqrt sqrt: Float, positive;
            fwd Tolerance::Ulp {
                ulp: 1.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: false,
                reason: "correctly rounded on every device, as IEEE 754 asks (the oracle's bytes: \
                    tests/tests/mutation_kill_unary.rs): vkml's sqrt (arith.wgsl.in) takes the driver's root (Vulkan: \
                    about 5 ULP) only as a first guess and corrects it by the remainder R − S² in 32-bit integers, \
                    subnormal inputs read from their bits; 1 ULP is the distance from torch's float64 reference, whose \
                    CPU sqrt runs through MKL's vector math (1 ULP, not correctly rounded)",
            };
            grad GRAD_SQRT;
        Abs abs: Same, normal;
            fwd Tolerance::Exact {
                gpu_ftz: false,
                reason: "clears the sign bit; no rounding",
            };
            grad GRAD_LINEAR;
        Sign sign: Same, normal;
            fwd Tolerance::Exact {
                gpu_ftz: false,
                reason: "decided from the bits: (0 < x) − (x < 0), so NaN and ±0 give +0 as in torch",
            };
            grad GRAD_LINEAR;
        Exp2 exp2: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 2.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "vkml's exp2 (arith.wgsl.in), not the driver's 3 + 2·|x| ULP builtin: x − round(x) exact, e^r for \
                    r = (x − k)·ln 2 by exp's polynomial, 2^k exact: 1.2 ULP measured",
            };
            grad GRAD_EXP;
        Log2 log2: Float, positive;
            fwd Tolerance::Ulp {
                ulp: 6.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "vkml's log2 (arith.wgsl.in): e + log(m)·log2(e), log's 5 ULP and the product's rounding: 3 ULP \
                    measured with a correctly rounded division",
            };
            grad GRAD_QUOTIENT;
        Floor floor: Integral, normal;
            fwd ROUNDING;
            grad GRAD_LINEAR;
        Ceil ceil: Integral, normal;
            fwd ROUNDING;
            grad GRAD_LINEAR;
        Trunc trunc: Integral, normal;
            fwd ROUNDING;
            grad GRAD_LINEAR;
        Round round: Integral, normal;
            fwd ROUNDING;
            grad GRAD_LINEAR;
        Rsqrt rsqrt: Float, positive;
            fwd Tolerance::Ulp {
                ulp: 2.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "1 / sqrt(x), both correctly rounded (vkml's sqrt and division): the root's half ulp enters the \
                    quotient at most as 1 ulp, plus the quotient's rounding: 1.5 ULP, the same bytes on every device \
                    (Vulkan's inversesqrt is within 2 ULP and differs between drivers)",
            };
            grad GRAD_SQRT;
        Sin sin: Float, normal;
            fwd TRIG;
            grad GRAD_SIN_COS;
        Cos cos: Float, normal;
            fwd TRIG;
            grad GRAD_SIN_COS;
        Tan tan: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 5.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "sin's reduction and Cephes' tan polynomial (within 2 ulp), then −1/t in odd quadrants: a 2.5 ulp \
                    division",
            };
            grad GRAD_TAN;
        Asin asin: Float, unit;
            fwd Tolerance::Ulp {
                ulp: 6.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "Cephes' polynomial (2 ulp); above 1/2 through π/2 − 2·asin(√((1 − |x|)/2)), where the root's half \
                    ulp (vkml's sqrt, correctly rounded) shrinks by 2p/asin ≤ 1/2, plus two roundings",
            };
            grad GRAD_INVERSE;
        Acos acos: Float, unit;
            fwd Tolerance::Ulp {
                ulp: 8.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "2·asin(√((1 − x)/2)) above 1/2 carries the root's half ulp (vkml's sqrt, correctly rounded) \
                    whole, plus asin's polynomial and a rounding; π/2 − asin(x) and π − 2·asin(…) elsewhere lose less",
            };
            grad GRAD_INVERSE;
        Atan atan: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 5.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "Cephes: the argument folded by −1/x or (x − 1)/(x + 1) (a 2.5 ulp division and a rounding), \
                    whose error shrinks by t/atan ≤ 1 in the sum with π/2 or π/4, the polynomial and the sum",
            };
            grad GRAD_INVERSE;
        Sinh sinh: Float, wide;
            fwd Tolerance::Ulp {
                ulp: 7.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "above 1: (e − 1/e)/2 with e = exp(|x|) within 4 ulp (exp of an argument reduced by k·ln 2, where \
                    Vulkan allows 3.7), grown at most 1.16× by the subtraction, 1/e's division scaled by 0.16, and \
                    roundings; Cephes' polynomial below 1",
            };
            grad GRAD_SINH_COSH;
        Cosh cosh: Float, wide;
            fwd Tolerance::Ulp {
                ulp: 6.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "(e + 1/e)/2 with e = exp(|x|) within 4 ulp (exp of an argument reduced by k·ln 2, where Vulkan \
                    allows 3.7), no cancellation, plus 1/e's division and roundings",
            };
            grad GRAD_SINH_COSH;
        Tanh tanh: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 7.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "above 0.625: 1 − 2/(exp(2|x|) + 1); exp's 4 ulp (reduced argument), a rounding and the division's \
                    2.5 enter scaled by (1 − tanh)/tanh, at most 0.8 at 0.625; Cephes' polynomial below",
            };
            grad GRAD_TANH;
        Asinh asinh: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 10.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "log(|x| + √(x² + 1)) from 1/2 to 1500 with vkml's log and sqrt (relative everywhere, where the \
                    driver's log is only 2⁻²¹ absolute near 1): the argument within 2.4u enters a result of at least 0.48 \
                    as 4.8 ulp, plus log's 5; Cephes' polynomial below 1/2, log(|x|) + ln 2 above",
            };
            grad GRAD_INVERSE;
        Acosh acosh: Float, above1;
            fwd Tolerance::Ulp {
                ulp: 8.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "below 1.5: Cephes' polynomial times √(x − 1) (x − 1 exact, vkml's sqrt correctly rounded); above: \
                    log(x + √((x − 1)(x + 1))) with an argument of at least 2.6 within 2u, so a result of at least 0.96 \
                    within vkml's log's 5 ulp plus 2",
            };
            grad GRAD_INVERSE;
        Atanh atanh: Float, unit;
            fwd Tolerance::Ulp {
                ulp: 7.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "from 1/2: log((1 + |x|)/(1 − |x|))/2 with 1 − |x| exact, the quotient within 3u and at least 3, \
                    so 1.5 ulp of a logarithm of at least 1.1 plus vkml's log's 5, halved with the result; Cephes' \
                    polynomial below 1/2",
            };
            grad GRAD_INVERSE;
        Erf erf: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 4.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "below 1: x·P(x²), a fit within 2.2·2⁻²⁴ in f32 (tools/fit_erfc.py), plus a rounding; above: \
                    1 − erfc(|x|), whose error enters scaled by erfc/erf ≤ 0.19",
            };
            grad GRAD_ERF;
        Erfc erfc: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 14.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "from 1/2: exp(−h²)·exp(−l(x + h))·P with h² exact, both through vkml's exp: 4 ulp for the \
                    first (reduced argument), 1.2 for the second (|y| ≤ 0.1: the polynomial alone), the fit's 1.7, two \
                    roundings and a 2.5 ulp division; 1 − erf(x) below 1/2",
            };
            grad GRAD_ERF;
        Expm1 expm1: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 11.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "from |x| = 1/2: exp(x) − 1, where exp's 4 ulp (reduced argument) grows by e/|e − 1| ≤ 2.54 in the \
                    subtraction; a Taylor polynomial in correctly rounded arithmetic below",
            };
            grad GRAD_EXPM1;
        Log1p log1p: Float, normal;
            fwd Tolerance::Ulp {
                ulp: 6.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
                reason: "on [−1/2, 1]: 2·atanh(s) by its series, s = x/(2 + x) within 3u (a 2.5 ulp division); outside: \
                    log(1 + x) with an argument of at least 2 (one rounding: 1 ulp of the result) or exact, through vkml's \
                    log (5 ulp)",
            };
            grad GRAD_INVERSE;
        Sinc sinc: Float, wide;
            fwd Tolerance::Ulp {
                ulp: 7.0, per_abs_x: 0.0, abs: 4.76837158203125e-7, gpu_ftz: true,
                reason: "sin(πx)/(πx), 1 below |x| = 10⁻⁴ (where the quotient rounds to 1), 0 for the integers from \
                    |x| = 2²³: πx rounded once (π too) moves the result by at most 1.5·2⁻²⁴ absolutely, then sin's 2.5 \
                    ulp and a 2.5 ulp division (Vulkan): 7 ulp, or 2⁻²¹ absolutely where the result is small",
            };
            grad Tolerance::Ulp {
                ulp: 16.0, per_abs_x: 0.0, abs: 1.52587890625e-5, gpu_ftz: true,
                reason: "(cos(πx) − sinc(x))/x from |x| = 5/8, where the difference cancels at most by a few units \
                    of 2⁻²⁴ that the division by x magnifies less than twofold; below, the Taylor series of the same \
                    slope in πx to its seventh term (truncated at 2⁻²⁸) by Horner, a few roundings per step; in \
                    float32 for 16-bit inputs, rounded once, then times g; 2⁻¹⁶ absolutely for |g| ≤ 8",
            };
        }
    };
}
