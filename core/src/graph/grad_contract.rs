//! The gradient contracts of the op table's rows that are not unary primitives (those carry theirs in their
//! vkml-ops row): for each differentiable op, how close its inputs' gradients must be to torch's float64
//! gradients of the same lambda (read by `vkml.op_table()` as each row's `grad`).

use crate::graph::contract::Tolerance;

/// The contract of an op's gradients, where it has them: the gradients of its inputs (summed into the leaves),
/// compared with torch's float64 gradients of the same lambda. A unary primitive's is its row's (`table::grad_contract`
/// asks the row first).
pub fn grad_contract(name: &str) -> Option<Tolerance> {
    Some(match name {
        "relu"
        | "sub"
        | "square"
        | "where"
        | "mean"
        | "max"
        | "min"
        | "matmul"
        | "mm"
        | "bmm"
        | "dot"
        | "addmm"
        | "outer"
        | "linear"
        | "to"
        | "contiguous"
        | "setitem"
        | "reshape"
        | "permute"
        | "expand"
        | "getitem"
        | "view"
        | "transpose"
        | "squeeze"
        | "unsqueeze"
        | "flatten"
        | "copy_"
        | "flip"
        | "narrow"
        | "repeat"
        | "tile"
        | "cat"
        | "stack"
        | "split"
        | "chunk"
        | "unbind"
        | "tril"
        | "triu"
        | "masked_fill"
        | "roll"
        | "diagonal"
        | "diag"
        | "nll_loss"
        | "mse_loss"
        | "conv1d"
        | "conv2d"
        | "conv_transpose2d"
        | "interpolate"
        | "max_pool2d"
        | "avg_pool2d"
        | "adaptive_avg_pool2d"
        | "gather"
        | "scatter"
        | "scatter_add"
        | "index_select"
        | "take_along_dim"
        | "embedding"
        | "sort"
        | "pad"
        | "unfold"
        | "fold"
        | "einsum"
        | "div_trunc"
        | "topk"
        | "l1_loss"
        | "smooth_l1_loss"
        | "huber_loss" => GRAD_LINEAR,
        "binary_cross_entropy" | "binary_cross_entropy_with_logits" | "kl_div" => Tolerance::Ulp {
            ulp: 16.0,
            per_abs_x: 0.0,
            abs: 1.52587890625e-5,
            gpu_ftz: true,
            reason: "g·((1 − t)/(1 − x) − t/x) through the two logs, g·(sigmoid(x) − l·…) or g·(log t + 1 − x): \
                     terms within their forward contracts that cancel where the prediction meets the target; \
                     2⁻¹⁶ absolute there",
        },
        "norm" => Tolerance::Ulp {
            ulp: 24.0,
            per_abs_x: 0.0,
            abs: 0.0,
            gpu_ftz: true,
            reason:
                "g·x/‖x‖ through the scaled form (the max's share cancels exactly in theory, to a few roundings in \
                     practice), sign(x)·g, or g shared among the largest: the forward's few ulp and two divisions",
        },
        "var" | "std" => Tolerance::Absolute {
            abs: 3.814697265625e-6,
            reason: "2g·(x − m)/(N − c) (over 2·std for std): x − m carries u·|x| + γ(N)·mean|x| absolutely, which no \
                     relative bound covers where x ≈ m; 2⁻¹⁸ holds for |x|, |g| ≤ 8, N ≤ 4096 and std ≥ 1/8",
        },
        "batch_norm" | "layer_norm" | "group_norm" => Tolerance::Ulp {
            ulp: 16.0,
            per_abs_x: 0.0,
            abs: 1.52587890625e-5,
            gpu_ftz: true,
            reason: "the normalisation's gradient subtracts the mean of g and of g·x̂ from g, scaled by rsqrt(var): \
                     forward-contract values in a few products and two means; 2⁻¹⁶ absolute near zero",
        },
        "log10" => Tolerance::Ulp {
            ulp: 9.0,
            per_abs_x: 0.0,
            abs: 0.0,
            gpu_ftz: true,
            reason: "g / x (log's rule) and the constant's product: log's 8 ulp and a rounding",
        },
        "frac" | "nan_to_num" | "clamp" | "hardtanh" | "relu6" | "leaky_relu" => GRAD_LINEAR,
        "hardsigmoid" | "hardswish" | "softsign" => Tolerance::Ulp {
            ulp: 10.0,
            per_abs_x: 0.0,
            abs: 0.0,
            gpu_ftz: true,
            reason: "g/6, g·(2x + 3)/6 through the product rule, or the quotient rule of x/(1 + |x|): a few roundings \
                     and 2.5 ulp divisions",
        },
        "elu" | "selu" | "celu" | "softplus" | "logsigmoid" => Tolerance::Ulp {
            ulp: 12.0,
            per_abs_x: 2.0,
            abs: 0.0,
            gpu_ftz: true,
            reason: "through exp: g·α·exp(x) (expm1's rule), or log1p's g/(1 + e) times exp's e: vkml's exp within 2 \
                     ulp plus |βx|·u from its rounded argument (βx or x/α, within 2·|x| for β ≤ 2 and α ≥ ½), a \
                     division and a few roundings",
        },
        "silu" | "mish" | "gelu" | "gelu_tanh" => Tolerance::Ulp {
            ulp: 40.0,
            per_abs_x: 40.0,
            abs: 0.0,
            gpu_ftz: true,
            reason:
                "the product rule over sigmoid's, tanh's or erfc's gradient (24 + 4·|a|, 19, 5 + 25·|a| ulp at their \
                     own arguments a, which grow to 9.5·|x| for gelu_tanh) and the forward factor; the sum is bounded \
                     at the size of Σ|terms|",
        },
        "remainder" | "lerp" | "addcmul" => GRAD_LINEAR,
        "hypot" | "addcdiv" => GRAD_ATAN2,
        "reciprocal" => GRAD_QUOTIENT,
        "sigmoid" => Tolerance::Ulp {
            ulp: 24.0,
            per_abs_x: 4.0,
            abs: 5.960464477539063e-8,
            gpu_ftz: true,
            reason: "through 1/(1 + e) and e = exp(−x): the forward's error enters twice, plus the division rules",
        },
        "multi_head_attention" | "transformer_encoder_layer" | "rnn" | "lstm" | "gru" => Tolerance::Ulp {
            ulp: 128.0,
            per_abs_x: 0.0,
            abs: 6.103515625e-5,
            gpu_ftz: true,
            reason: "gradients through projections, softmax-shaped attention, gates and layer norms: products of \
                     forward values within their contracts, summed over keys, hidden units and time steps; within \
                     128 ulp of large entries (seen at 65 on the H200) or 2⁻¹⁴ absolutely for the tests' sizes",
        },
        "softmax" | "log_softmax" | "logsumexp" | "cross_entropy" | "scaled_dot_product_attention" => Tolerance::Ulp {
            ulp: 16.0,
            per_abs_x: 0.0,
            abs: 1.52587890625e-5,
            gpu_ftz: true,
            reason: "softmax-shaped gradients (p − g·Σ…): products of forward values within their contracts, summed \
                     over the dim; 2⁻¹⁶ absolute for entries near zero",
        },
        _ => return None,
    })
}

/// Gradients that are linear in the upstream gradient with coefficients read from the inputs.
pub(crate) const GRAD_LINEAR: Tolerance = Tolerance::Backward {
    gpu_ftz: true,
    reason: "linear in the upstream gradient, with coefficients taken from the inputs (moved, selected, masked, \
             multiplied, summed over broadcast dims): within γ(n)·Σ|terms| of exact, as any sum",
};

/// The gradient contract of sin and cos.
pub(crate) const GRAD_SIN_COS: Tolerance = Tolerance::Ulp {
    ulp: 4.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·cos(x) or −g·sin(x): the forward's 2.5 ulp and a rounding",
};

/// The gradient contract of tan.
pub(crate) const GRAD_TAN: Tolerance = Tolerance::Ulp {
    ulp: 12.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·(1 + y²): y within 5 ulp, doubled by the square, and three roundings",
};

/// The gradient contract of asin and acos and atan and asinh and acosh and atanh and log1p.
pub(crate) const GRAD_INVERSE: Tolerance = Tolerance::Ulp {
    ulp: 5.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·rsqrt((1 − x)(1 + x)), g/(1 + x²), g·rsqrt(x² ± 1), g/((1 − x)(1 + x)), g/(1 + x): factors \
                 written without cancellation (1.5u), then rsqrt's 2 ulp or a 2.5 ulp division",
};

/// The gradient contract of sinh and cosh.
pub(crate) const GRAD_SINH_COSH: Tolerance = Tolerance::Ulp {
    ulp: 8.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·cosh(x) or g·sinh(x): the other function's forward contract and a rounding",
};

/// The gradient contract of tanh.
pub(crate) const GRAD_TANH: Tolerance = Tolerance::Ulp {
    ulp: 19.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·sech²(x) = g·(1/cosh x)², not 1 − y², which loses every digit as y → ±1: cosh's 6 ulp and a \
                 2.5 ulp division, doubled by the square, and two roundings",
};

/// The gradient contract of erf and erfc.
pub(crate) const GRAD_ERF: Tolerance = Tolerance::Ulp {
    ulp: 5.0,
    per_abs_x: 25.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "±g·(2/√π)·exp(−x²): the rounding of x² moves the exponent by x²/2 ulp and exp adds 3 + 2·x² \
                 (Vulkan); 2.5·x² ≤ 25·|x| below |x| = 10, beyond which the gradient underflows",
};

/// The gradient contract of expm1.
pub(crate) const GRAD_EXPM1: Tolerance = Tolerance::Ulp {
    ulp: 4.0,
    per_abs_x: 2.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·exp(x), not g·(y + 1), which cancels as y → −1: exp's 3 + 2·|x| ulp (Vulkan) and a rounding",
};

/// The gradient contract of exp and exp2.
pub(crate) const GRAD_EXP: Tolerance = Tolerance::Ulp {
    ulp: 5.0,
    per_abs_x: 2.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·exp(x) (·ln 2): the forward's 3 + 2·|x| ULP plus one or two roundings",
};

/// The gradient contract of log and log2 and reciprocal and div.
pub(crate) const GRAD_QUOTIENT: Tolerance = Tolerance::Ulp {
    ulp: 8.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g / x (and −g·a / b², −g / x²): up to three roundings and a 2.5 ULP division each way",
};

/// The gradient contract of sqrt and rsqrt.
pub(crate) const GRAD_SQRT: Tolerance = Tolerance::Ulp {
    ulp: 12.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g / (2·√x) or −g·y³/2: the forward's 5 (2) ULP, three times for y³, plus roundings and division",
};

/// The gradient contract of atan2, hypot and addcdiv.
pub(crate) const GRAD_ATAN2: Tolerance = Tolerance::Ulp {
    ulp: 12.0,
    per_abs_x: 0.0,
    abs: 0.0,
    gpu_ftz: true,
    reason: "g·(b, −a)/(a² + b²), the chain through m·√(1 + r²), or −g·v·t1/t2²: a few roundings and 2.5 ulp \
                 divisions, bounded at the size of Σ|terms|",
};

/// The gradient contract of pow.
pub(crate) const GRAD_POW: Tolerance = Tolerance::Ulp {
    ulp: 16.0,
    per_abs_x: 0.0,
    abs: 3.814697265625e-6,
    gpu_ftz: true,
    reason: "g·b·a^(b − 1) through pow's 2 ulp and two roundings; g·a^b·ln a through log's 3 ulp, or 2⁻²¹ \
                 absolute on [0.5, 2] (Vulkan), which |g·a^b| ≤ 8 in the tests scales to 2⁻¹⁸",
};
