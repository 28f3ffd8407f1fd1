//! The op table: one row per public op — name, kind, whether it is a primitive, dtype rule and tolerance contract
//! with its reason. Tests, docs and `vkml.op_table()` read these rows; no test carries a tolerance of its own.

use crate::base::dtype::DType;
pub use crate::graph::contract::{Tolerance, Unsupported};
use crate::graph::grad_contract::{
    GRAD_ATAN2, GRAD_ERF, GRAD_EXP, GRAD_EXPM1, GRAD_INVERSE, GRAD_LINEAR, GRAD_POW, GRAD_QUOTIENT, GRAD_SINH_COSH,
    GRAD_SIN_COS, GRAD_SQRT, GRAD_TAN, GRAD_TANH,
};
use crate::graph::op::{BinaryOp, BinaryRule, ReduceOp, ReduceRule, ScanOp, UnaryOp, UnaryRule};
use crate::util::error::{Error, Result};

/// What family an op belongs to (its shape rule follows from the kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Creation,
    Unary,
    Binary,
    Ternary,
    Reduce,
    Matmul,
    Cast,
    Movement,
    /// A loss: scores and targets in, one value per sample or a reduction of them out.
    Loss,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Creation => "creation",
            Kind::Unary => "unary",
            Kind::Binary => "binary",
            Kind::Ternary => "ternary",
            Kind::Reduce => "reduce",
            Kind::Matmul => "matmul",
            Kind::Cast => "cast",
            Kind::Movement => "movement",
            Kind::Loss => "loss",
        }
    }
}

/// How an op's output dtype follows from its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRule {
    /// The input's dtype.
    Same,
    /// torch.result_type of the inputs.
    Promote,
    /// The promoted dtype, or float32 for integer and bool inputs.
    Float,
    /// Always bool.
    ToBool,
    /// Floats keep their dtype, integers and bool accumulate into int64.
    Accumulate,
    /// Always int64 (indices).
    Index,
    /// The requested dtype.
    Target,
}

impl DtypeRule {
    pub fn name(self) -> &'static str {
        match self {
            DtypeRule::Same => "same",
            DtypeRule::Promote => "promote",
            DtypeRule::Float => "float",
            DtypeRule::ToBool => "to_bool",
            DtypeRule::Accumulate => "accumulate",
            DtypeRule::Index => "index",
            DtypeRule::Target => "target",
        }
    }
}

/// One public op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpRow {
    pub name: &'static str,
    pub kind: Kind,
    pub primitive: bool,
    pub dtype_rule: DtypeRule,
    pub tolerance: Tolerance,
    pub unsupported: &'static [Unsupported],
}

const EXACT: Tolerance = Tolerance::Exact { gpu_ftz: false, reason: "moves or selects bits; no rounding" };
const EXACT_ARITH: Tolerance = Tolerance::Exact {
    gpu_ftz: true,
    reason: "IEEE-754 correctly rounded (Vulkan requires +, -, * to be correctly rounded); computed in f32 for \
             16-bit inputs and rounded once, as torch does",
};
const EXACT_CMP: Tolerance =
    Tolerance::Exact { gpu_ftz: true, reason: "comparisons and max/min are exact; NaN handling as torch" };
const EXACT_BITS: Tolerance =
    Tolerance::Exact { gpu_ftz: true, reason: "integer bit operations and truth values: exact" };
const ROUNDING: Tolerance = Tolerance::Exact {
    gpu_ftz: true,
    reason: "integral rounding is exact (round: half to even, as torch); integers pass through unchanged",
};
const TRIG: Tolerance = Tolerance::Ulp {
    ulp: 2.5,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "no builtin: Payne–Hanek reduction by π/2 in integer arithmetic, exact to 2⁻⁷⁰, z rounded once (½ ulp), \
             then Cephes' sin/cos polynomials on [−π/4, π/4] (within 1.5 ulp) in correctly rounded + and ×",
};
const SUM: Tolerance = Tolerance::Backward {
    gpu_ftz: true,
    reason: "f32 (or exact int64) accumulation in a fixed order per device; any order is within γ(n)·Σ|x|",
};
const RECURRENT: Tolerance = Tolerance::Absolute {
    abs: 6.103515625e-5,
    reason: "per step, two f32 products of H + Hin terms and activations within their contracts (tanh 2.5 ulp, \
             sigmoid 6.5 + 2·|x|); the state's gain per step is at most 1 (|tanh′|, |σ′| ≤ 1, gates ≤ 1), so errors add \
             over the steps: within 2⁻¹⁴ for the tests' sizes (L ≤ 8, H ≤ 16, |inputs| ≤ 4)",
};
const PRODUCT: Tolerance = Tolerance::Ulp {
    ulp: 4096.0,
    per_abs_x: 0.0,
    abs: 1.1754943508222875e-38,
    gpu_ftz: true,
    reason: "a product of n ≤ 4096 factors, in any order, is within (n − 1)·u of exact relatively (products do not \
             cancel); below the smallest normal f32 (2⁻¹²⁶) a product underflows where the f64 reference does not; \
             f32 for 16-bit inputs, rounded once; int64 wraps as torch",
};
const VARIANCE: Tolerance = Tolerance::Relative {
    rel: 2.44140625e-4,
    reason: "two passes: the mean's error cancels to first order (Σ(x − m) = 0), each squared deviation is within \
             3u, and a sum of n ≤ 4096 positive terms within γ(n): 2⁻¹² relatively; std halves it and adds sqrt's \
             rounding (vkml's, correctly rounded)",
};
const MATMUL: Tolerance = Tolerance::Backward {
    gpu_ftz: true,
    reason: "f32 accumulation of K products: |error| ≤ γ(K)·Σ|a||b| for any summation order",
};

const MATMUL_BIAS: Tolerance = Tolerance::Backward {
    gpu_ftz: true,
    reason: "x·Wᵀ + b: f32 accumulation of K products and one addition: within γ(K + 1)·(Σ|x||w| + |b|)",
};

const AVG_POOL: &[Unsupported] =
    &[Unsupported { device: "vulkan", dtype: DType::F64, reason: "float64 is not available in WGSL shaders" }];

const NORM: Tolerance = Tolerance::Ulp {
    ulp: 8.0,
    per_abs_x: 0.0,
    abs: 2.384185791015625e-6,
    gpu_ftz: true,
    reason: "(x − mean)·rsqrt(var + eps)·w + b: mean and biased variance within γ(n) of their terms, rsqrt 2 ULP, \
             three roundings; 2⁻¹⁸·(|x|/σ) absolute for outputs near zero, statistics over n ≤ 512 in tests",
};

/// f64 needs the shaderFloat64 feature, which neither the floor nor WebGPU has.
const NO_F64: &[Unsupported] =
    &[Unsupported { device: "vulkan", dtype: DType::F64, reason: "float64 is not available in WGSL shaders" }];
const NO_F64_NO_INT: &[Unsupported] = &[
    Unsupported { device: "vulkan", dtype: DType::F64, reason: "float64 is not available in WGSL shaders" },
    Unsupported {
        device: "vulkan",
        dtype: DType::I32,
        reason: "integer matmul is not implemented on GPUs (torch's CUDA backend lacks it too)",
    },
    Unsupported {
        device: "vulkan",
        dtype: DType::I64,
        reason: "integer matmul is not implemented on GPUs (torch's CUDA backend lacks it too)",
    },
    Unsupported {
        device: "vulkan",
        dtype: DType::Bool,
        reason: "integer matmul is not implemented on GPUs (torch's CUDA backend lacks it too)",
    },
];

const NO_BOOL_POW: &[Unsupported] = &[
    Unsupported { device: "vulkan", dtype: DType::F64, reason: "float64 is not available in WGSL shaders" },
    Unsupported { device: "cpu", dtype: DType::Bool, reason: "torch raises \"pow\" not implemented for 'Bool'" },
    Unsupported { device: "vulkan", dtype: DType::Bool, reason: "torch raises \"pow\" not implemented for 'Bool'" },
];

const NO_INT_DIVISION: &[Unsupported] = &[
    Unsupported { device: "vulkan", dtype: DType::F64, reason: "float64 is not available in WGSL shaders" },
    Unsupported { device: "cpu", dtype: DType::Bool, reason: BOOL_DIVISION },
    Unsupported { device: "vulkan", dtype: DType::Bool, reason: BOOL_DIVISION },
];
const BOOL_DIVISION: &str =
    "torch defines no division, remainder or fmod of bool tensors (\"fmod_cpu\" not implemented \
                             for 'Bool'); a bool divisor beside a number promotes to it";

macro_rules! rows {
    ($id:ident: $($name:literal : $kind:ident : $prim:literal : $rule:ident : $tol:expr , $uns:expr ;)*) => {
        const $id: &[OpRow] = &[$(OpRow {
            name: $name,
            kind: Kind::$kind,
            primitive: $prim,
            dtype_rule: DtypeRule::$rule,
            tolerance: $tol,
            unsupported: $uns,
        }),*];
    };
}

/// The op table's dtype rule for a unary primitive's rule.
const fn unary_dtype_rule(rule: UnaryRule) -> DtypeRule {
    match rule {
        UnaryRule::Same | UnaryRule::Integral => DtypeRule::Same,
        UnaryRule::Float => DtypeRule::Float,
    }
}

/// One op family's table rows (`$rows`) and gradient-contract lookup (`$grads`) from its rows.
macro_rules! family_rows {
    ($rows:ident, $grads:ident, $family:ident, $kind:ident, $rule_type:ident, $dtype_rule:ident:
     $($v:ident $name:ident $rule:ident, $tol:expr, $uns:expr, $grad:expr;)*) => {
        const $rows: &[OpRow] = &[$(OpRow {
            name: stringify!($name),
            kind: Kind::$kind,
            primitive: true,
            dtype_rule: $dtype_rule($rule_type::$rule),
            tolerance: $tol,
            unsupported: $uns,
        }),*];

        /// The gradient contract of a primitive of the family (None where its output is not differentiable).
        fn $grads(op: $family) -> Option<Tolerance> {
            match op {
                $($family::$v => $grad),*
            }
        }
    };
}

/// Expands `vkml_ops::unary_ops!`'s rows into their table rows and gradient contracts.
macro_rules! unary_rows {
    ($($v:ident $name:ident : $rule:ident, $domain:ident; fwd $tol:expr; grad $grad:expr;)*) => {
        family_rows! {
            UNARY, unary_grad, UnaryOp, Unary, UnaryRule, unary_dtype_rule:
            $($v $name $rule, $tol, NO_F64, Some($grad);)*
        }
    };
}

vkml_ops::unary_ops!(unary_rows);

/// The op table's dtype rule for a binary primitive's rule.
const fn binary_dtype_rule(rule: BinaryRule) -> DtypeRule {
    match rule {
        BinaryRule::Promote | BinaryRule::NoBool | BinaryRule::Bits => DtypeRule::Promote,
        BinaryRule::Float => DtypeRule::Float,
        BinaryRule::Compare => DtypeRule::ToBool,
    }
}

/// Expands `vkml_ops::binary_ops!`'s rows into their table rows and gradient contracts.
macro_rules! binary_rows {
    ($($(#[$doc:meta])* $v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        family_rows! {
            BINARY, binary_grad, BinaryOp, Binary, BinaryRule, binary_dtype_rule:
            $($v $name $rule, $tol, $uns, $grad;)*
        }
    };
}

vkml_ops::binary_ops!(binary_rows);

/// The op table's dtype rule for a reduction's or scan's rule.
const fn reduce_dtype_rule(rule: ReduceRule) -> DtypeRule {
    match rule {
        ReduceRule::Accumulate => DtypeRule::Accumulate,
        ReduceRule::Same => DtypeRule::Same,
        ReduceRule::Index => DtypeRule::Index,
    }
}

/// Expands the rows of `vkml_ops::reduce_ops!` or `vkml_ops::scan_ops!` (the same form) into their table rows and
/// gradient contracts, under the names given before them.
macro_rules! reduce_rows {
    ($rows:ident, $grads:ident, $family:ident: $($v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        family_rows! {
            $rows, $grads, $family, Reduce, ReduceRule, reduce_dtype_rule:
            $($v $name $rule, $tol, $uns, $grad;)*
        }
    };
}

vkml_ops::reduce_ops!(reduce_rows REDUCE, reduce_grad, ReduceOp:);
vkml_ops::scan_ops!(reduce_rows SCAN, scan_grad, ScanOp:);

/// Every public op, in documentation order: creation, the unary, binary, reduction and scan primitives, then the rest.
pub const OPS: &[OpRow] = &concat::<
    { CREATION.len() + UNARY.len() + BINARY.len() + REDUCE.len() + SCAN.len() + REST.len() },
    6,
>([CREATION, UNARY, BINARY, REDUCE, SCAN, REST]);

/// The rows of `parts` in one array (N is their total length).
const fn concat<const N: usize, const P: usize>(parts: [&[OpRow]; P]) -> [OpRow; N] {
    let mut out = [CREATION[0]; N];
    let (mut p, mut k) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[k] = parts[p][i];
            i += 1;
            k += 1;
        }
        p += 1;
    }
    out
}

rows! { CREATION:
//  name          kind        prim   dtype       tolerance, unsupported
    "tensor"    : Creation  : true  : Target    : EXACT, NO_F64;
    "zeros"     : Creation  : false : Target    : EXACT, NO_F64;
    "ones"      : Creation  : false : Target    : EXACT, NO_F64;
    "full"      : Creation  : true  : Target    : EXACT, NO_F64;
    "arange"    : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "values computed on the host in f64 as torch does, then rounded once and uploaded",
    }, NO_F64;
    "linspace"  : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "values computed on the host as torch's kernel does (in the dtype's precision, each half counted \
                 from its own end), then uploaded",
    }, NO_F64;
    "eye"       : Creation  : false : Target    : EXACT, NO_F64;
    "rand"      : Creation  : true  : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "Philox-4x32-10 bits and 24-bit integer scaling: the same bits on every device",
    }, NO_F64;
    "randn"     : Creation  : true  : Target    : Tolerance::Ulp {
        ulp: 13.0,
        per_abs_x: 0.0,
        abs: 0.0,
        gpu_ftz: false,
        reason: "Box–Muller on identical Philox bits, θ = 2πu₂ − π rounded twice (no FMA) to the same float on every \
                 device, and vkml's own log (5 ulp), correctly rounded sqrt and cos (2.5 ulp) on a GPU: ln u₁ within \
                 10u relatively (u = 2⁻²⁴), its root within 6u, r·cos θ within 6u + 5u + u; no value is subnormal",
    }, NO_F64;
    "randint"   : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "min(floor(u·range), range − 1) + low of the same 24-bit Philox draw u on every device: one correctly \
                 rounded product, exact after that",
    }, NO_F64;
    "normal"    : Creation  : false : Target    : Tolerance::Absolute {
        abs: 6e-5,
        reason: "mean + std·z for randn's z (|z| < 5.8, within 13 ulp ≤ 13·2⁻²¹) with std ≤ 8 and |mean| ≤ 10 in the \
                 tests: 8·13·2⁻²¹ ≈ 5.0e-5, plus the product and the sum rounded below 64 (2⁻¹⁹ each) < 6e-5",
    }, NO_F64;
    "bernoulli" : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "u < p for the same Philox draw u on every device: an exact comparison",
    }, NO_F64;
    "randperm"  : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "the stable argsort of the same n Philox draws on every device",
    }, NO_F64;
    "multinomial": Creation : false : Index     : Tolerance::Exact {
        gpu_ftz: false,
        reason: "inverse of the cumulative weights: a scan in one fixed order, one correctly rounded product u·total, \
                 comparisons and a count — the same samples on every device for a seed",
    }, NO_F64;
    "empty"     : Creation  : false : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "filled with zeros (torch leaves the values undefined; vkml never exposes stale memory)",
    }, NO_F64;
}

rows! { REST:
    "relu"      : Unary     : false : Same      : EXACT_CMP, NO_F64;
    "log10"     : Unary     : false : Float     : Tolerance::Ulp {
        ulp: 4.5, per_abs_x: 0.0, abs: 2.384185791015625e-7, gpu_ftz: true,
        reason: "log(x)·log10(e): log's 3 ulp, or 2⁻²¹ absolute on [0.5, 2] (Vulkan), scaled by 0.434 and rounded once with \
                 the constant's own rounding: 4.5 ulp, 2⁻²² absolute",
    }, NO_F64;
    "frac"      : Unary     : false : Same      : Tolerance::Exact {
        gpu_ftz: true,
        reason: "x − trunc(x): trunc is exact and so is the difference of a float and its integer part",
    }, NO_F64;
    "isnan"     : Unary     : false : ToBool    : EXACT_CMP, NO_F64;
    "isinf"     : Unary     : false : ToBool    : EXACT_CMP, NO_F64;
    "isfinite"  : Unary     : false : ToBool    : EXACT_CMP, NO_F64;
    "nan_to_num" : Unary     : false : Same      : EXACT, NO_F64;
    "clamp"     : Binary    : false : Promote   : EXACT_CMP, NO_F64;
    "hardtanh"  : Unary     : false : Same      : EXACT_CMP, NO_F64;
    "relu6"     : Unary     : false : Same      : EXACT_CMP, NO_F64;
    "leaky_relu" : Unary     : false : Same      : EXACT_ARITH, NO_F64;
    "elu"       : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 12.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "α·expm1(x) below 0: expm1's 11 ulp and a rounding",
    }, NO_F64;
    "selu"      : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 13.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "scale·elu(x, α): elu's 12 ulp and a rounding",
    }, NO_F64;
    "celu"      : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 15.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "α·expm1(x/α) below 0: the quotient's 2.5 ulp (Vulkan) reaches expm1's result scaled by \
                 |y|·e^y/(1 − e^y) ≤ 1, expm1's 11 ulp and a rounding",
    }, NO_F64;
    "gelu"      : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 17.0, per_abs_x: 7.0, abs: 8.881784197001252e-16, gpu_ftz: true,
        reason: "x·erfc(−x/√2)/2 (not 1 + erf, which cancels): erfc's 14 ulp; rounding −x/√2 moves erfc by \
                 (x² + 1)/2 ulp, ≤ 7·|x| up to |x| = 14, where gelu underflows; two roundings. 2⁻⁵⁰ absolute: torch \
                 computes 1 + erf even in float64, which is 0 below x ≈ −8.3, where vkml keeps the tail (< 5e-16)",
    }, NO_F64;
    "gelu_tanh" : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 8.0, per_abs_x: 67.0, abs: 8.881784197001252e-16, gpu_ftz: true,
        reason: "gelu(x, approximate='tanh') = x·sigmoid(a) with a = 2·√(2/π)·(x + 0.044715x³) (not 1 + tanh, \
                 which cancels): sigmoid's 6.5 ulp and the product's rounding, plus a's own error: x³ (two \
                 roundings), the constant 0.044715 in float32 and its product (two), the sum of two terms of one sign \
                 (one), 2·√(2/π) in float32 and its product (two): 7u relatively, which sigmoid turns into 7u·|a| \
                 relatively; |a| ≤ 9.5·|x| up to |x| = 10.5, where it underflows: 8 + 67·|x| ulp (at most 8 + 8.2·|x| \
                 measured on an H100 and on lavapipe). 2⁻⁵⁰ absolute: torch's 1 + tanh is 0 in float64 below \
                 x ≈ −6.3, where vkml keeps the tail (< 4e-16)",
    }, NO_F64;
    "silu"      : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 8.0, per_abs_x: 0.0, abs: 1.504632769052528e-36, gpu_ftz: true,
        reason: "x·sigmoid(x): sigmoid's 6.5 ulp and a rounding. 2⁻¹¹⁹ absolute: where sigmoid(x) is below 2⁻¹²⁶ \
                 (x < −87.3; flushed on a GPU, 0 from x = −88.73 as torch's) its 2⁻¹²⁶ times |x| ≤ 128, and below \
                 x = −128 the exact result itself is smaller",
    }, NO_F64;
    "mish"      : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 16.0, per_abs_x: 0.0, abs: 1.504632769052528e-36, gpu_ftz: true,
        reason: "x·tanh(softplus(x)): softplus (β = 1, so βx is exact) within 8 ulp (vkml's exp's 2 through \
                 log1p's 6), which tanh passes on at most 1:1, tanh's 7 and a rounding: 16 ulp (4 measured on an \
                 H100 and on lavapipe over 6·2²¹ values up to |x| = 100). 2⁻¹¹⁹ absolute: a GPU may flush \
                 exp(x) < 2⁻¹²⁶ (x < −87.3) inside, zeroing results below 88·2⁻¹²⁶",
    }, NO_F64;
    "softplus"  : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 11.0, per_abs_x: 2.0, abs: 0.0, gpu_ftz: true,
        reason: "log1p(exp(βx))/β below the threshold: βx within u (exact for β a power of two), which moves \
                 exp(βx) by |βx|·u, and vkml's exp within 2 ulp, passed on at most 1:1 by log1p, log1p's 6 and the \
                 division's 2.5: 10.5 + |βx| ulp, within 11 + 2·|x| for β ≤ 2 (3 measured for β = ½, 1 and 2 on an \
                 H100 and on lavapipe over 6·2²¹ values up to |x| = 100); x itself above",
    }, NO_F64;
    "logsigmoid" : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 9.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "min(x, 0) − log1p(exp(−|x|)): −|x| is exact, vkml's exp within 2 ulp passed on at most 1:1 by \
                 log1p, log1p's 6, and a sum of two terms of one sign: 9 ulp (3 measured on an H100 and on lavapipe \
                 over 6·2²¹ values up to |x| = 100)",
    }, NO_F64;
    "softsign"  : Unary     : false : Float     : Tolerance::Ulp {
        ulp: 4.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "x / (1 + |x|): one rounding and a 2.5 ulp division",
    }, NO_F64;
    "hardsigmoid" : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 3.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "clamp(x + 3, 0, 6) / 6: one rounding and a 2.5 ulp division (Vulkan)",
    }, NO_F64;
    "hardswish" : Unary     : false : Same      : Tolerance::Ulp {
        ulp: 4.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "x·clamp(x + 3, 0, 6) / 6: two roundings and a 2.5 ulp division (Vulkan)",
    }, NO_F64;
    "square"    : Unary     : false : Same      : EXACT_ARITH, NO_F64;
    "reciprocal": Unary     : false : Float     : Tolerance::Ulp {
        ulp: 2.5, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "1 / x is a division: Vulkan's 2.5 ULP",
    }, NO_F64;
    "sub"       : Binary    : false : Promote   : EXACT_ARITH, NO_F64;
    "bitwise_not": Unary    : false : Same      : EXACT_BITS, NO_F64;
    "logical_and": Binary   : false : ToBool    : EXACT_BITS, NO_F64;
    "logical_or": Binary    : false : ToBool    : EXACT_BITS, NO_F64;
    "logical_xor": Binary   : false : ToBool    : EXACT_BITS, NO_F64;
    "logical_not": Unary    : false : ToBool    : EXACT_BITS, NO_F64;
    "remainder" : Binary    : false : Promote   : Tolerance::Exact {
        gpu_ftz: true,
        reason: "fmod, plus the divisor where the signs differ: one correctly rounded addition, as torch computes it \
                 (exact for integers)",
    }, NO_INT_DIVISION;
    "floor_divide": Binary  : false : Promote   : Tolerance::Exact {
        gpu_ftz: true,
        reason: "torch's div_floor: (a − fmod(a, b))/b, corrected by signs, floored and rounded up when more than 1/2 \
                 below: integer results that absorb the division's 2.5 ulp; integers: the truncated quotient less one \
                 where the remainder's sign differs from the divisor's, exact",
    }, NO_INT_DIVISION;
    "div_trunc" : Binary    : false : Promote   : Tolerance::Exact {
        gpu_ftz: true,
        reason: "div(rounding_mode=\"trunc\") is trunc(a / b) as torch computes it: exact where the quotient is \
                 correctly rounded, on every device where both operands are normal (a quotient below the normal range \
                 truncates to 0 either way); with a subnormal operand a GPU's quotient is within Vulkan's 2.5 ulp and \
                 may truncate to the other side of an integer; integers: the truncated quotient, exact",
    }, NO_INT_DIVISION;
    "hypot"     : Binary    : false : Float     : Tolerance::Ulp {
        ulp: 8.0, per_abs_x: 0.0, abs: 0.0, gpu_ftz: true,
        reason: "m·√(1 + (n/m)²): the quotient's 2.5 ulp reaches 1 + r² at most 3.25u, sqrt halves it and adds its \
                 5 ulp (Vulkan), one more rounding; no overflow or underflow in between",
    }, NO_F64;
    "lerp"      : Ternary   : false : Promote   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "a + w·(b − a) or b − (b − a)·(1 − w) as torch: three roundings, within γ(n)·(|a| + |w|·(|a| + |b|))",
    }, NO_F64;
    "addcmul"   : Ternary   : false : Promote   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "x + (v·t1)·t2 as torch: three roundings, within γ(n)·(|x| + |v·t1·t2|)",
    }, NO_F64;
    "addcdiv"   : Ternary   : false : Promote   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "x + (v·t1)/t2 as torch: a 2.5 ulp division (Vulkan) and two roundings, within γ(n)·(|x| + |v·t1/t2|)",
    }, NO_F64;
    "where"     : Ternary   : true  : Promote   : EXACT, NO_F64;
    "mean"      : Reduce    : false : Float     : SUM, NO_F64;
    "max"       : Reduce    : false : Same      : EXACT_CMP, NO_F64;
    "min"       : Reduce    : false : Same      : EXACT_CMP, NO_F64;
    "norm"      : Reduce    : false : Float     : Tolerance::Relative {
        rel: 2.44140625e-4,
        reason: "p = 2: m·√Σ(|x|/m)² with m = max|x| — 2.5 ulp quotients doubled by the squares, the sum's γ(n), halved \
                 by the square root (itself within 4.5 ulp), one more product: within 2⁻¹² for n ≤ 4096; p = 1: a sum \
                 of non-negative terms (γ(n)); p = ±inf and 0: exact; other p: (Σ|x|^p)^(1/p), pow's 2 ulp on each \
                 side of a sum within γ(n), the outer power scaling the sum's relative error by |1/p| ≤ 4 in tests",
    }, NO_F64;
    "var"       : Reduce    : false : Float     : VARIANCE, NO_F64;
    "std"       : Reduce    : false : Float     : VARIANCE, NO_F64;
    "all"       : Reduce    : false : ToBool    : EXACT_CMP, NO_F64;
    "any"       : Reduce    : false : ToBool    : EXACT_CMP, NO_F64;
    "matmul"    : Matmul    : true  : Promote   : MATMUL, NO_F64_NO_INT;
    "mm"        : Matmul    : false : Promote   : MATMUL, NO_F64_NO_INT;
    "bmm"       : Matmul    : false : Promote   : MATMUL, NO_F64_NO_INT;
    "einsum"    : Matmul    : false : Promote   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "sums over letters one operand alone has, then one f32 matmul over the contracted letters: within \
                 γ(n)·Σ|terms| of exact for n the number of terms summed into each output",
    }, NO_F64_NO_INT;
    "dot"       : Matmul    : false : Promote   : MATMUL, NO_F64_NO_INT;
    "addmm"     : Matmul    : false : Promote   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "β·c + α·(a @ b): f32 accumulation of K products, two scalings and one addition, within \
                 γ(K + 3)·(|β|·|c| + |α|·Σ|a||b|)",
    }, NO_F64_NO_INT;
    "outer"     : Binary    : false : Promote   : EXACT_ARITH, NO_F64;
    "to"        : Cast      : true  : Target    : Tolerance::Exact {
        gpu_ftz: false,
        reason: "moves bits between devices; dtype casts narrow in software with round to nearest even, int→float \
                 rounds to nearest even, float→int truncates (saturating where torch is undefined)",
    }, NO_F64;
    "contiguous": Movement  : true  : Same      : EXACT, NO_F64;
    "setitem"   : Movement  : true  : Same      : EXACT, NO_F64;
    "reshape"   : Movement  : false : Same      : EXACT, NO_F64;
    "permute"   : Movement  : false : Same      : EXACT, NO_F64;
    "expand"    : Movement  : false : Same      : EXACT, NO_F64;
    "getitem"   : Movement  : false : Same      : EXACT, NO_F64;
    "view"      : Movement  : false : Same      : EXACT, NO_F64;
    "transpose" : Movement  : false : Same      : EXACT, NO_F64;
    "squeeze"   : Movement  : false : Same      : EXACT, NO_F64;
    "unsqueeze" : Movement  : false : Same      : EXACT, NO_F64;
    "flatten"   : Movement  : false : Same      : EXACT, NO_F64;
    "copy_"     : Movement  : false : Same      : EXACT, NO_F64;
    "flip"      : Movement  : false : Same      : EXACT, NO_F64;
    "narrow"    : Movement  : false : Same      : EXACT, NO_F64;
    "repeat"    : Movement  : false : Same      : EXACT, NO_F64;
    "tile"      : Movement  : false : Same      : EXACT, NO_F64;
    "cat"       : Movement  : false : Promote   : EXACT, NO_F64;
    "stack"     : Movement  : false : Promote   : EXACT, NO_F64;
    "split"     : Movement  : false : Same      : EXACT, NO_F64;
    "chunk"     : Movement  : false : Same      : EXACT, NO_F64;
    "unbind"    : Movement  : false : Same      : EXACT, NO_F64;
    "tril"      : Movement  : false : Same      : EXACT, NO_F64;
    "triu"      : Movement  : false : Same      : EXACT, NO_F64;
    "masked_fill": Movement : false : Same      : EXACT, NO_F64;
    "roll"      : Movement  : false : Same      : EXACT, NO_F64;
    "diagonal"  : Movement  : false : Same      : EXACT, NO_F64;
    "diag"      : Movement  : false : Same      : EXACT, NO_F64;
    "one_hot"   : Movement  : false : Index     : EXACT, NO_F64;
    "gather"    : Movement  : true  : Same      : EXACT, NO_F64;
    "scatter"   : Movement  : true  : Same      : Tolerance::Exact {
        gpu_ftz: false,
        reason: "moves bits; where indices repeat, the last source element in index order wins on every device (torch \
                 leaves that choice undefined)",
    }, NO_F64;
    "scatter_add": Movement : true  : Same      : Tolerance::Backward {
        gpu_ftz: true,
        reason: "each output adds the sources pointing at it in index order, in f32 for floats (16-bit rounded once) \
                 and exactly for integers, the same order on every device; any order is within γ(n)·Σ|x|",
    }, NO_F64;
    "index_select": Movement: false : Same      : EXACT, NO_F64;
    "pad"       : Movement  : false : Same      : EXACT, NO_F64;
    "unfold"    : Movement  : true  : Same      : EXACT, NO_F64;
    "fold"      : Movement  : true  : Same      : Tolerance::Backward {
        gpu_ftz: true,
        reason: "each output adds the at most KH·KW block elements that cover it, in tap order from zero, in f32 for \
                 floats (16-bit rounded once), the same order on every device; any order is within γ(n)·Σ|x|",
    }, NO_F64;
    "argsort"   : Movement  : true  : Index     : Tolerance::Exact {
        gpu_ftz: false,
        reason: "ranks from exact comparisons of the values' bits (NaN last, -0 = +0), ties in index order: a stable \
                 sort on every device, torch's order with stable=True",
    }, NO_F64;
    "sort"      : Movement  : false : Same      : Tolerance::Exact {
        gpu_ftz: false,
        reason: "argsort's stable order, then a gather that moves bits",
    }, NO_F64;
    "topk"      : Movement  : false : Same      : Tolerance::Exact {
        gpu_ftz: false,
        reason: "the first k of a stable descending (ascending for largest=False) sort; torch may order equal values \
                 differently",
    }, NO_F64;
    "take_along_dim": Movement: false : Same    : EXACT, NO_F64;
    "embedding" : Movement  : false : Same      : EXACT, NO_F64;
    "linear"    : Matmul    : false : Promote   : MATMUL_BIAS, NO_F64_NO_INT;
    "sigmoid"   : Unary     : false : Float     : Tolerance::Ulp {
        ulp: 6.5, per_abs_x: 0.0, abs: 1.1754943508222875e-38, gpu_ftz: true,
        reason: "1 / (1 + exp(−x)): vkml's exp within 2 ulp (4u relatively) shrinks through 1 + e, whose rounding \
                 makes 5u, and the quotient, correctly rounded where it is normal, adds u: 6 ulp. Below 2⁻¹²⁶ a GPU \
                 may flush, and from x = −88.73 exp(−x) overflows and the result is 0, as torch's: 2⁻¹²⁶ absolute",
    }, NO_F64;
    "softmax"   : Reduce    : false : Float     : Tolerance::Ulp {
        ulp: 11.0, per_abs_x: 0.0, abs: 2.384185791015625e-7, gpu_ftz: true,
        reason: "exp(x − m) / Σ: x − m rounds once, which moves its exp by |x − m|·u relatively; vkml's exp within \
                 2 ulp (4u), the sum within γ(n) ≤ 4u for the tests' sizes and the correctly rounded division u: \
                 (9 + |x − m|)·u relatively, so 11 ulp where |x − m| ≤ 2, and where it is larger p ≤ e^−|x−m| keeps \
                 the error below 2⁻²² absolutely (at most 7 ulp above 2⁻²² measured on an H100 and on lavapipe)",
    }, NO_F64;
    "log_softmax": Reduce   : false : Float     : Tolerance::Ulp {
        ulp: 2.0, per_abs_x: 0.0, abs: 3.814697265625e-6, gpu_ftz: true,
        reason: "(x − m) − log Σ exp(x − m): the sum of exps (each within vkml's exp's 2 ulp, 4u) is within \
                 4u + γ(n) relatively, which log Σ passes on absolutely, and vkml's log adds 5 ulp of log Σ ≤ ln n: \
                 2⁻¹⁸ absolute covers n ≤ 32 along the dim, plus two roundings (at most 1 ulp beyond 2⁻¹⁸ measured \
                 for rows of 32 and 4,096 on an H100 and on lavapipe)",
    }, NO_F64;
    "logsumexp" : Reduce    : false : Float     : Tolerance::Ulp {
        ulp: 2.0, per_abs_x: 0.0, abs: 3.814697265625e-6, gpu_ftz: true,
        reason: "m + log Σ exp(x − m): as log_softmax, the sum within 4u + γ(n) and vkml's log's 5 ulp of \
                 log Σ ≤ ln n within 2⁻¹⁸ absolutely for n ≤ 32, and two roundings",
    }, NO_F64;
    "cross_entropy": Loss   : false : Float     : Tolerance::Ulp {
        ulp: 4.0, per_abs_x: 0.0, abs: 7.62939453125e-6, gpu_ftz: true,
        reason: "a (weighted) mean of picked log_softmax values: each within log_softmax's 2⁻¹⁸, the mean within \
                 γ(n) of its terms; 2⁻¹⁷ absolute",
    }, NO_F64;
    "nll_loss"  : Loss      : false : Float     : SUM, NO_F64;
    "mse_loss"  : Loss      : false : Float     : Tolerance::Relative {
        rel: 2.44140625e-4,
        reason: "a mean of squares of differences: each square within 3u of exact, so the sum of n ≤ 4096 positive \
                 terms is within 3u + γ(n) ≤ 2⁻¹² relatively",
    }, NO_F64;
    "l1_loss"   : Loss      : false : Float     : Tolerance::Relative {
        rel: 2.44140625e-4,
        reason: "a mean of |a − b|: each term within u of exact, so the sum of n ≤ 4096 non-negative terms is within \
                 u + γ(n) ≤ 2⁻¹² relatively",
    }, NO_F64;
    "smooth_l1_loss": Loss  : false : Float     : Tolerance::Relative {
        rel: 4.8828125e-4,
        reason: "a mean of 0.5·d²/β or d − 0.5·β (≥ d/2: no cancellation): each term within 4u, the sum of n ≤ 4096 \
                 non-negative terms within 4u + γ(n) ≤ 2⁻¹¹ relatively",
    }, NO_F64;
    "huber_loss": Loss      : false : Float     : Tolerance::Relative {
        rel: 4.8828125e-4,
        reason: "a mean of 0.5·d² or δ·(d − 0.5·δ) (no cancellation): each term within 4u, the sum of n ≤ 4096 \
                 non-negative terms within 4u + γ(n) ≤ 2⁻¹¹ relatively",
    }, NO_F64;
    "binary_cross_entropy": Loss : false : Float : Tolerance::Ulp {
        ulp: 16.0, per_abs_x: 0.0, abs: 1.9073486328125e-6, gpu_ftz: true,
        reason: "−(t·log x + (1 − t)·log(1 − x)), two terms of one sign: each log within vkml's 5 ulp and a \
                 product's rounding, so their sum within 11.5 ulp; 1 − x is exact for x ≥ ½ and otherwise within u, \
                 which log passes on as u absolutely; the mean of the tests' n ≤ 64 terms of one sign adds the sum's \
                 γ and the division's rounding: 16 ulp, and 2⁻¹⁹ absolute near zero",
    }, NO_F64;
    "binary_cross_entropy_with_logits": Loss : false : Float : Tolerance::Ulp {
        ulp: 12.0, per_abs_x: 0.0, abs: 7.62939453125e-6, gpu_ftz: true,
        reason: "(1 − t)·x − logsigmoid(x) as torch: logsigmoid's 9 ulp, and the difference cancels for x ≪ 0, \
                 t ≈ 0 to a few u·|x| absolutely: 2⁻¹⁷ for |x| ≤ 16",
    }, NO_F64;
    "kl_div"    : Loss      : false : Float     : Tolerance::Ulp {
        ulp: 8.0, per_abs_x: 0.0, abs: 7.62939453125e-6, gpu_ftz: true,
        reason: "t·log t − t·x (xlogy, 0 at t = 0) or exp(t)·(t − x): vkml's log within 5 ulp and a product's \
                 rounding, or vkml's exp within 2 ulp (t exact) and two roundings (at most 2 ulp measured on an H100 \
                 and on lavapipe); the difference cancels where log t ≈ x, to a few u·|t·x| absolutely: 2⁻¹⁷",
    }, NO_F64;
    "scaled_dot_product_attention": Matmul : false : Same : Tolerance::Backward {
        gpu_ftz: true,
        reason: "softmax(q·kᵀ·scale + mask)·v: the scores' f32 accumulation error γ(E)·Σ|q||k| moves each weight by that \
                 much relatively (through exp), the weighted sum adds γ(S): within γ(n) times the same computation on \
                 |q|, |k|, |v|",
    }, NO_F64_NO_INT;
    "multi_head_attention": Matmul : false : Same : Tolerance::Absolute {
        abs: 1.52587890625e-5,
        reason: "for the tests' sizes (E ≤ 64, |inputs| ≤ 4): each score carries γ(E)·Σ|q||k|/√d ≤ 2⁻¹⁸, which moves \
                 every weight by at most twice that relatively through exp; weights in [0, 1] and outputs (weighted \
                 means of projected values, projected again) stay within 2⁻¹⁶",
    }, NO_F64_NO_INT;
    "transformer_encoder_layer": Matmul : false : Same : Tolerance::Absolute {
        abs: 6.103515625e-5,
        reason: "multi_head_attention's 2⁻¹⁶, two linear layers and two layer_norms, which divide by a standard \
                 deviation ≥ 1/4 in the tests: within 2⁻¹⁴ for d_model ≤ 64 and |inputs| ≤ 4",
    }, NO_F64_NO_INT;
    "conv2d"    : Matmul    : false : Same      : Tolerance::Backward {
        gpu_ftz: true,
        reason: "im2col and one product: f32 accumulation of C/groups·KH·KW products plus the bias, within \
                 γ(K + 1)·(Σ|x||w| + |b|) for any summation order",
    }, NO_F64_NO_INT;
    "conv_transpose2d": Matmul : false : Same   : Tolerance::Backward {
        gpu_ftz: true,
        reason: "conv2d over the input spread out by the stride (the inserted zeros add nothing): f32 accumulation \
                 of C/groups·KH·KW products plus the bias, within γ(K + 1)·(Σ|x||w| + |b|) in any order",
    }, NO_F64_NO_INT;
    "interpolate": Movement : false : Same      : Tolerance::Backward {
        gpu_ftz: true,
        reason: "nearest moves values; (bi)linear blends two (four) of them with weights computed on the host as \
                 torch does: a few roundings of a convex combination, within γ(n)·Σ|terms|",
    }, NO_F64;
    "rnn"       : Matmul    : false : Same      : RECURRENT, NO_F64_NO_INT;
    "lstm"      : Matmul    : false : Same      : RECURRENT, NO_F64_NO_INT;
    "gru"       : Matmul    : false : Same      : RECURRENT, NO_F64_NO_INT;
    "conv1d"    : Matmul    : false : Same      : Tolerance::Backward {
        gpu_ftz: true,
        reason: "conv2d over a height of 1: f32 accumulation of C/groups·K products plus the bias, within \
                 γ(K + 1)·(Σ|x||w| + |b|) for any summation order",
    }, NO_F64_NO_INT;
    "max_pool2d": Reduce    : true  : Same      : EXACT_CMP, NO_F64;
    "avg_pool2d": Reduce    : false : Same      : SUM, AVG_POOL;
    "adaptive_avg_pool2d": Reduce : false : Same : SUM, NO_F64;
    "dropout"   : Unary     : false : Same      : Tolerance::Exact {
        gpu_ftz: true,
        reason: "a kept element is x·(1/(1−p)) rounded once, a dropped one 0; which are kept comes from Philox bits, \
                 so the check is statistical",
    }, NO_F64;
    "batch_norm": Reduce    : false : Same      : NORM, NO_F64;
    "layer_norm": Reduce    : false : Same      : NORM, NO_F64;
    "group_norm": Reduce    : false : Same      : NORM, NO_F64;
}

/// The row of a public op.
pub fn row(name: &str) -> Option<&'static OpRow> {
    // Every recorded op asks (a backend's check): hashed once rather than a scan of ~190 names each time.
    static BY_NAME: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static OpRow>> =
        std::sync::OnceLock::new();
    BY_NAME.get_or_init(|| OPS.iter().map(|r| (r.name, r)).collect()).get(name).copied()
}

/// The declared reason `op` cannot run on `device` (a device kind such as "vulkan") for `dtype`, if any.
pub fn unsupported(op: &str, device: &str, dtype: DType) -> Option<&'static str> {
    row(op)?.unsupported.iter().find(|u| u.device == device && u.dtype == dtype).map(|u| u.reason)
}

/// A backend's check of `op` for `dtype` on the device labelled `label` (of kind `device`): the table's declared
/// reason, else the backend's own (`also`), as an error that names all four.
pub fn check_supported(op: &str, device: &str, dtype: DType, label: &str, also: Option<&'static str>) -> Result<()> {
    match unsupported(op, device, dtype).or(also) {
        Some(reason) => Err(Error::Unsupported(format!(
            "{op} is not supported for dtype {} on device '{label}' ({reason})",
            dtype.name()
        ))),
        None => Ok(()),
    }
}

/// The gradient contract of a public op, where it has gradients: a primitive's from its family's row, the others'
/// from `grad_contract`.
pub fn grad_contract(name: &str) -> Option<Tolerance> {
    if let Some(op) = UnaryOp::from_name(name) {
        return unary_grad(op);
    }
    if let Some(op) = BinaryOp::from_name(name) {
        return binary_grad(op);
    }
    if let Some(op) = ReduceOp::from_name(name) {
        return reduce_grad(op);
    }
    match ScanOp::from_name(name) {
        Some(op) => scan_grad(op),
        None => crate::graph::grad_contract::grad_contract(name),
    }
}
