//! Functions both front ends bind, described once: torch's name and documentation, the tensor
//! arguments, the options with torch's names, kinds and defaults, and the function of this crate that computes it.
//! `py` and `web` each expand one binding a row (`described.rs` in both), so a row added here appears in Python
//! (keyword arguments with these defaults) and JavaScript (an options object with the same names) together.

/// `described_functions!(cb)` expands
/// `cb! { $(#[doc = ..] ns name(tensor, .. <required: Kind, ..> {optional tensor, ..}; [option: kind = default] ..)
/// => f [as returned];)* }`, where `ns` is the namespace torch has the function in (`torch`, `F` for
/// `torch.nn.functional`, or `Tensor` for a function of `torch` that is also a method of `torch.Tensor`, its first
/// tensor the method's tensor): `f` takes the tensors, the required arguments, the optional tensors and the options in
/// that order, torch's order; the brackets keep a default's tokens as written, so that Python's signature shows them.
/// An option's kind is `f64`, `i64`, `count` (an i64 that `nn::args::Count` checks), `bool`, `str`, `maybe_f64`,
/// `maybe_i64`, `maybe_bool` (each of the last three also None), `Reduction` or `KlReduction` (parsed from torch's strings), or a kind of `nn::args` (a capitalised
/// name: `Pair`, `MaybePair`, `Single`, `Count`, `Shape`, `Ints`, `Padding2`, `Padding1`, `PerDim`), which each front end
/// reads into an `Arg` and converts with `described_arg!`; a required argument is always of such a kind. `as
/// indices` marks a function returning values and optional indices (`max_pool2d`'s `return_indices`).
#[macro_export]
macro_rules! described_functions {
    ($callback:ident) => {
        $callback! {
            /// `diagonal(input, offset, dim1, dim2)`: a view of the elements (i, i + offset) of dims dim1 and dim2, as
            /// a new last dim.
            Tensor diagonal(input; [offset: i64 = 0] [dim1: i64 = 0] [dim2: i64 = 1]) => $crate::api::Tensor::diagonal;
            /// `diag(input, diagonal)`: a vector placed on a diagonal of a square matrix of zeros, or a matrix's
            /// diagonal as a new vector.
            Tensor diag(input; [diagonal: i64 = 0]) => $crate::api::Tensor::diag;
            /// `tril(input, diagonal)`: the lower triangle of the last two dims (col − row ≤ diagonal), zeros
            /// elsewhere.
            Tensor tril(input; [diagonal: i64 = 0]) => $crate::api::Tensor::tril;
            /// `triu(input, diagonal)`: the upper triangle of the last two dims (col − row ≥ diagonal), zeros
            /// elsewhere.
            Tensor triu(input; [diagonal: i64 = 0]) => $crate::api::Tensor::triu;
            /// `nan_to_num(input, nan, posinf, neginf)`: NaN and the infinities replaced, the infinities by the
            /// dtype's largest finite values unless given; integer and bool tensors come back as copies.
            Tensor nan_to_num(input; [nan: f64 = 0.0] [posinf: maybe_f64 = None] [neginf: maybe_f64 = None])
                => $crate::api::Tensor::nan_to_num;
            /// `addmm(input, mat1, mat2, beta, alpha)`: beta·input + alpha·(mat1 @ mat2).
            torch addmm(input, mat1, mat2; [beta: f64 = 1.0] [alpha: f64 = 1.0]) => $crate::api::linalg::addmm;
            /// `addcmul(input, tensor1, tensor2, value)`: input + value·tensor1·tensor2.
            torch addcmul(input, tensor1, tensor2; [value: f64 = 1.0]) => $crate::api::pointwise::addcmul;
            /// `addcdiv(input, tensor1, tensor2, value)`: input + value·tensor1/tensor2.
            torch addcdiv(input, tensor1, tensor2; [value: f64 = 1.0]) => $crate::api::pointwise::addcdiv;
            /// `linear(input, weight, bias)`: input @ weightᵀ + bias, weight of shape (out, in).
            F linear(input, weight {bias};) => $crate::nn::functional::linear;
            /// `scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)`:
            /// softmax(query·keyᵀ·scale + attn_mask)·value, scale 1/√E unless given; a bool mask keeps where true.
            F scaled_dot_product_attention(query, key, value {attn_mask};
                [dropout_p: f64 = 0.0] [is_causal: bool = false] [scale: maybe_f64 = None] [enable_gqa: bool = false])
                => $crate::nn::attention::scaled_dot_product_attention;
            /// `hardtanh(input, min_val, max_val)`: the input clamped to [min_val, max_val].
            F hardtanh(input; [min_val: f64 = -1.0] [max_val: f64 = 1.0]) => $crate::nn::activation::hardtanh;
            /// `leaky_relu(input, negative_slope)`: x, or negative_slope·x below 0.
            F leaky_relu(input; [negative_slope: f64 = 0.01]) => $crate::nn::activation::leaky_relu;
            /// `elu(input, alpha)`: x, or alpha·(eˣ − 1) below 0.
            F elu(input; [alpha: f64 = 1.0]) => $crate::nn::activation::elu;
            /// `celu(input, alpha)`: max(0, x) + min(0, alpha·(e^(x/alpha) − 1)).
            F celu(input; [alpha: f64 = 1.0]) => $crate::nn::activation::celu;
            /// `gelu(input, approximate)`: x·Φ(x), or its tanh approximation with approximate = "tanh".
            F gelu(input; [approximate: str = "none"]) => $crate::nn::activation::gelu;
            /// `softplus(input, beta, threshold)`: log(1 + e^(beta·x))/beta, x itself above threshold/beta.
            F softplus(input; [beta: f64 = 1.0] [threshold: f64 = 20.0]) => $crate::nn::activation::softplus;
            /// `mse_loss(input, target, reduction)`: (input − target)², reduced.
            F mse_loss(input, target; [reduction: Reduction = "mean"]) => $crate::nn::functional::mse_loss;
            /// `l1_loss(input, target, reduction)`: |input − target|, reduced.
            F l1_loss(input, target; [reduction: Reduction = "mean"]) => $crate::nn::loss::l1_loss;
            /// `smooth_l1_loss(input, target, reduction, beta)`: quadratic below beta, linear above, reduced.
            F smooth_l1_loss(input, target; [reduction: Reduction = "mean"] [beta: f64 = 1.0])
                => $crate::nn::loss::smooth_l1_loss;
            /// `huber_loss(input, target, reduction, delta)`: quadratic below delta, delta-scaled linear above.
            F huber_loss(input, target; [reduction: Reduction = "mean"] [delta: f64 = 1.0])
                => $crate::nn::loss::huber_loss;
            /// `cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)` on logits: class
            /// indices (int64, the batch shape) or class probabilities (the input's shape) as the target.
            F cross_entropy(input, target {weight};
                [ignore_index: i64 = -100] [reduction: Reduction = "mean"] [label_smoothing: f64 = 0.0])
                => $crate::nn::functional::cross_entropy;
            /// `nll_loss(input, target, weight, ignore_index, reduction)`: −input[n, target[n]], weighted by class,
            /// targets equal to ignore_index left out.
            F nll_loss(input, target {weight}; [ignore_index: i64 = -100] [reduction: Reduction = "mean"])
                => $crate::nn::functional::nll_loss;
            /// `dropout(input, p, training)`: each element zeroed with probability p and the rest scaled by
            /// 1/(1 − p) while training; the input itself otherwise.
            F dropout(input; [p: f64 = 0.5] [training: bool = true]) => $crate::nn::functional::dropout;
            /// `pad(input, pad, mode, value)`: (before, after) amounts from the last dim, negative ones cropping;
            /// modes "constant" (value, else 0), "reflect", "replicate" and "circular".
            F pad(input <pad: Ints>; [mode: str = "constant"] [value: maybe_f64 = None]) => $crate::nn::functional::pad;
            /// `conv1d(input, weight, bias, stride, padding, dilation, groups)` over (N, C, L) or unbatched (C, L)
            /// inputs; padding an int, "same" or "valid".
            F conv1d(input, weight {bias};
                [stride: Single = 1] [padding: Padding1 = 0] [dilation: Single = 1] [groups: count = 1])
                => $crate::nn::conv::conv1d;
            /// `conv2d(input, weight, bias, stride, padding, dilation, groups)` with weight (O, C/groups, KH, KW);
            /// padding an int, a pair, "same" or "valid".
            F conv2d(input, weight {bias};
                [stride: Pair = 1] [padding: Padding2 = 0] [dilation: Pair = 1] [groups: count = 1])
                => $crate::nn::conv::conv2d;
            /// `conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)` with
            /// weight (C, O/groups, KH, KW): conv2d's gradient with respect to its input.
            F conv_transpose2d(input, weight {bias}; [stride: Pair = 1] [padding: Pair = 0] [output_padding: Pair = 0]
                [groups: count = 1] [dilation: Pair = 1]) => $crate::nn::conv_transpose::conv_transpose2d;
            /// `max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)`: each
            /// window's first maximum (stride defaults to the kernel), and with return_indices its flat index h·W + w.
            F max_pool2d(input <kernel_size: Pair>; [stride: MaybePair = None] [padding: Pair = 0]
                [dilation: Pair = 1] [ceil_mode: bool = false] [return_indices: bool = false])
                => $crate::nn::conv::max_pool2d as indices;
            /// `avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)`:
            /// each window's sum over the override, or over its elements inside the padded input or the input.
            F avg_pool2d(input <kernel_size: Pair>; [stride: MaybePair = None] [padding: Pair = 0]
                [ceil_mode: bool = false] [count_include_pad: bool = true] [divisor_override: maybe_i64 = None])
                => $crate::nn::conv::avg_pool2d;
            /// `adaptive_avg_pool2d(input, output_size)`: output sizes that divide the input's.
            F adaptive_avg_pool2d(input <output_size: Pair>;) => $crate::nn::conv::adaptive_avg_pool2d;
            /// `unfold(input, kernel_size, dilation, padding, stride)`: im2col, (N, C, H, W) to (N, C·KH·KW, L).
            F unfold(input <kernel_size: Pair>; [dilation: Pair = 1] [padding: Pair = 0] [stride: Pair = 1])
                => $crate::nn::fold::unfold;
            /// `fold(input, output_size, kernel_size, dilation, padding, stride)`: col2im, overlapping blocks added.
            F fold(input <output_size: Pair, kernel_size: Pair>; [dilation: Pair = 1] [padding: Pair = 0]
                [stride: Pair = 1]) => $crate::nn::fold::fold;
            /// `batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)`: batch
            /// statistics in training (updating the running ones in place), the running ones otherwise.
            F batch_norm(input {running_mean, running_var, weight, bias};
                [training: bool = false] [momentum: f64 = 0.1] [eps: f64 = 1e-5]) => $crate::nn::norm::batch_norm;
            /// `layer_norm(input, normalized_shape, weight, bias, eps)`: statistics over the trailing dims.
            F layer_norm(input <normalized_shape: Shape> {weight, bias}; [eps: f64 = 1e-5])
                => $crate::nn::norm::layer_norm;
            /// `group_norm(input, num_groups, weight, bias, eps)`: statistics per sample and group of channels.
            F group_norm(input <num_groups: Count> {weight, bias}; [eps: f64 = 1e-5]) => $crate::nn::norm::group_norm;
            /// `interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)`:
            /// nearest, linear (3-d) or bilinear (4-d); size and scale_factor a number or one per spatial dim.
            F interpolate(input; [size: PerDim = None] [scale_factor: PerDim = None] [mode: str = "nearest"]
                [align_corners: maybe_bool = None] [recompute_scale_factor: maybe_bool = None]
                [antialias: bool = false]) => $crate::nn::interpolate::interpolate;
            /// `binary_cross_entropy(input, target, weight, reduction)` on probabilities.
            F binary_cross_entropy(input, target {weight}; [reduction: Reduction = "mean"])
                => $crate::nn::loss::binary_cross_entropy;
            /// `binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)` on logits.
            F binary_cross_entropy_with_logits(input, target {weight, pos_weight}; [reduction: Reduction = "mean"])
                => $crate::nn::loss::binary_cross_entropy_with_logits;
            /// `kl_div(input, target, reduction, log_target)`: target·(log target − input); reduction may be
            /// "batchmean".
            F kl_div(input, target; [reduction: KlReduction = "mean"] [log_target: bool = false])
                => $crate::nn::loss::kl_div;
        }
    };
}

/// The creators of a shape, float32 unless told otherwise: `sized_creators!(cb)` expands
/// `cb! { $(#[doc = ..] name => constructor;)* }`; Python takes `*size, dtype=, device=`, JavaScript
/// `(shape, {dtype, device, requires_grad})`.
#[macro_export]
macro_rules! sized_creators {
    ($callback:ident) => {
        $callback! {
            /// Zeros.
            zeros => $crate::api::Tensor::zeros;
            /// Ones.
            ones => $crate::api::Tensor::ones;
            /// Uniform on [0, 1) (Philox: the same bits on every device and front end for a seed).
            rand => $crate::api::Tensor::rand;
            /// Standard normal (Philox with Box–Muller, as `rand`).
            randn => $crate::api::Tensor::randn;
        }
    };
}

/// The modules whose forward is one function of `torch.nn.functional` applied with the arguments the module was made
/// with: `described_modules!(cb)` expands `cb! { $(#[doc = ..] Name(required: kind, ..; [option: kind = default] ..)
/// => function [shown ..];)* }`. Both front ends make a class a row (Python a `Module` subclass, JavaScript a
/// class of its `Module`) that keeps each argument as an attribute of its name and calls `F.function(input, **them)`;
/// `inplace` writes the result into the input; a default naming an earlier argument (`stride = kernel_size`) is
/// None in the signature and that argument's value once made; `[shown ..]` lists what `extra_repr` shows, all the
/// arguments where absent (`inplace` only when set), as torch. Kinds are the description's, for the declarations.
#[macro_export]
macro_rules! described_modules {
    ($callback:ident) => {
        $callback! {
            /// torch.nn.ReLU: max(x, 0).
            ReLU(; [inplace: bool = false]) => relu;
            /// torch.nn.Sigmoid.
            Sigmoid(;) => sigmoid;
            /// torch.nn.Tanh.
            Tanh(;) => tanh;
            /// torch.nn.GELU: x·Φ(x), or its tanh approximation.
            GELU(; [approximate: str = "none"]) => gelu;
            /// torch.nn.SiLU: x·sigmoid(x).
            SiLU(; [inplace: bool = false]) => silu;
            /// torch.nn.Mish: x·tanh(softplus(x)).
            Mish(; [inplace: bool = false]) => mish;
            /// torch.nn.ELU.
            ELU(; [alpha: f64 = 1.0] [inplace: bool = false]) => elu;
            /// torch.nn.SELU.
            SELU(; [inplace: bool = false]) => selu;
            /// torch.nn.CELU.
            CELU(; [alpha: f64 = 1.0] [inplace: bool = false]) => celu;
            /// torch.nn.LeakyReLU.
            LeakyReLU(; [negative_slope: f64 = 0.01] [inplace: bool = false]) => leaky_relu;
            /// torch.nn.Softplus.
            Softplus(; [beta: f64 = 1.0] [threshold: f64 = 20.0]) => softplus;
            /// torch.nn.LogSigmoid.
            LogSigmoid(;) => logsigmoid;
            /// torch.nn.Softsign.
            Softsign(;) => softsign;
            /// torch.nn.Hardsigmoid.
            Hardsigmoid(; [inplace: bool = false]) => hardsigmoid;
            /// torch.nn.Hardswish.
            Hardswish(; [inplace: bool = false]) => hardswish;
            /// torch.nn.ReLU6: min(max(x, 0), 6).
            ReLU6(; [inplace: bool = false]) => relu6;
            /// torch.nn.MaxPool2d: F.max_pool2d, the stride the kernel size unless given.
            MaxPool2d(kernel_size: Pair; [stride: MaybePair = kernel_size] [padding: Pair = 0] [dilation: Pair = 1]
                [return_indices: bool = false] [ceil_mode: bool = false])
                => max_pool2d [kernel_size stride padding dilation ceil_mode];
            /// torch.nn.AvgPool2d: F.avg_pool2d, the stride the kernel size unless given.
            AvgPool2d(kernel_size: Pair; [stride: MaybePair = kernel_size] [padding: Pair = 0]
                [ceil_mode: bool = false] [count_include_pad: bool = true] [divisor_override: maybe_i64 = None])
                => avg_pool2d [kernel_size stride padding];
            /// torch.nn.AdaptiveAvgPool2d.
            AdaptiveAvgPool2d(output_size: Pair;) => adaptive_avg_pool2d;
            /// torch.nn.Unfold: im2col.
            Unfold(kernel_size: Pair; [dilation: Pair = 1] [padding: Pair = 0] [stride: Pair = 1]) => unfold;
            /// torch.nn.Fold: col2im.
            Fold(output_size: Pair, kernel_size: Pair; [dilation: Pair = 1] [padding: Pair = 0] [stride: Pair = 1])
                => fold;
        }
    };
}

/// A row of `described_modules!` as data, for the front ends that make its class at run time.
#[derive(Clone, Copy, Debug)]
pub struct ModuleRow {
    pub name: &'static str,
    /// The function of `torch.nn.functional` it applies.
    pub function: &'static str,
    pub doc: &'static str,
    pub required: &'static [&'static str],
    /// (name, default as the row writes it: a Rust literal, `None`, or a required argument's name).
    pub options: &'static [(&'static str, &'static str)],
    /// What its repr shows; None for every argument.
    pub shown: Option<&'static [&'static str]>,
}

/// A row's `[shown ..]`, None where absent.
macro_rules! shown_of {
    () => {
        None
    };
    ([$($shown:ident)*]) => {
        Some(&[$(stringify!($shown)),*])
    };
}

macro_rules! module_rows {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident($($r:ident: $rk:ident),*; $([$o:ident: $kind:ident = $($v:tt)+])*) => $f:ident
            $([$($shown:ident)*])?;
    )*) => {
        /// Every row of `described_modules!`.
        pub const MODULES: &[ModuleRow] = &[$(ModuleRow {
            name: stringify!($name),
            function: stringify!($f),
            doc: concat!($($doc, "\n"),*),
            required: &[$(stringify!($r)),*],
            options: &[$((stringify!($o), stringify!($($v)+))),*],
            shown: shown_of!($([$($shown)*])?),
        }),*];
    };
}
described_modules!(module_rows);
