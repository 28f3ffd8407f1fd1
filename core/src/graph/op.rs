//! The primitive ops a graph node can hold. Every backend matches on `Op` without a wildcard arm, so adding a
//! variant makes the compiler list each place that must handle it.

use std::sync::Arc;

use crate::base::dtype::DType;
use crate::base::scalar::Scalar;

/// How a unary primitive's output dtype follows from its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryRule {
    /// The input's dtype.
    Same,
    /// The input's dtype; integers are already integral, so an integer input is copied.
    Integral,
    /// Floats keep their dtype; integers and bool compute in float32.
    Float,
}

/// One op family's enum from its rows' variants, names and rules: the enum, `ALL` in op-code order, `name` (the
/// op-table name, torch's), `rule`, `code` (the row's position, which the WGSL constants `OP_<NAME>` carry too) and
/// `from_name`.
macro_rules! op_family {
    ($(#[$family_doc:meta])* $family:ident, $rule_type:ident: $($(#[$doc:meta])* $v:ident $name:ident $rule:ident),*) => {
        $(#[$family_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $family {
            $($(#[$doc])* $v),*
        }

        impl $family {
            /// Every op of the family, in op-code order.
            pub const ALL: [$family; [$(stringify!($v)),*].len()] = [$($family::$v),*];

            /// The op-table name (torch's).
            pub const fn name(self) -> &'static str {
                match self {
                    $($family::$v => stringify!($name)),*
                }
            }

            /// How the output dtype follows from the inputs'.
            pub const fn rule(self) -> $rule_type {
                match self {
                    $($family::$v => $rule_type::$rule),*
                }
            }

            /// The op code kernels switch on.
            pub const fn code(self) -> u32 {
                self as u32
            }

            /// The op with this op-table name.
            pub fn from_name(name: &str) -> Option<$family> {
                $family::ALL.into_iter().find(|op| op.name() == name)
            }
        }
    };
}

/// Expands `vkml_ops::unary_ops!`'s rows into `UnaryOp` and the facts a row states.
macro_rules! unary_enum {
    ($($v:ident $name:ident : $rule:ident, $domain:ident; fwd $tol:expr; grad $grad:expr;)*) => {
        op_family! {
            /// Elementwise ops of one input (one row each in `vkml_ops::unary_ops!`).
            UnaryOp, UnaryRule: $($v $name $rule),*
        }

        impl UnaryOp {
            /// Where ordinary test inputs are drawn: normal, positive, unit, above1 or wide.
            pub const fn domain(self) -> &'static str {
                match self {
                    $(UnaryOp::$v => stringify!($domain)),*
                }
            }
        }
    };
}

vkml_ops::unary_ops!(unary_enum);

/// How a binary primitive's compute and output dtypes follow from its operands' promoted dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryRule {
    /// torch.result_type of the operands, in and out.
    Promote,
    /// As `Promote`, but bool operands are refused (torch's fmod).
    NoBool,
    /// The promoted dtype, float32 for integers and bool.
    Float,
    /// Integers and bool only.
    Bits,
    /// Compared in the promoted dtype; bool out.
    Compare,
}

/// Expands `vkml_ops::binary_ops!`'s rows into `BinaryOp`.
macro_rules! binary_enum {
    ($($(#[$doc:meta])* $v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        op_family! {
            /// Elementwise ops of two inputs, broadcast by views before they reach a backend (one row each in
            /// `vkml_ops::binary_ops!`).
            BinaryOp, BinaryRule: $($(#[$doc])* $v $name $rule),*
        }
    };
}

vkml_ops::binary_ops!(binary_enum);

/// How a reduction's or scan's output dtype follows from its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceRule {
    /// Floats keep their dtype; integers and bool accumulate in int64.
    Accumulate,
    /// The input's dtype.
    Same,
    /// int64 positions.
    Index,
}

/// Expands a reduction or scan family's rows (`vkml_ops::reduce_ops!`, `vkml_ops::scan_ops!`, the same form) into
/// its enum, named (and documented) by the tokens given before them.
macro_rules! reduce_enum {
    ($(#[$family_doc:meta])* $family:ident: $($v:ident $name:ident : $rule:ident; fwd $tol:expr, $uns:expr; grad $grad:expr;)*) => {
        op_family! {
            $(#[$family_doc])*
            $family, ReduceRule: $($v $name $rule),*
        }
    };
}

vkml_ops::reduce_ops!(reduce_enum
    /// Reductions over the trailing `axes` dims of the (permuted) input view (one row each in
    /// `vkml_ops::reduce_ops!`).
    ReduceOp:
);
vkml_ops::scan_ops!(reduce_enum
    /// Inclusive scans along the last dim of the source view (one row each in `vkml_ops::scan_ops!`).
    ScanOp:
);

/// One step of a fused elementwise program: a stack machine over f32 values, each step computing exactly what its
/// primitive computes (so a fused chain gives the bytes the chain of primitives gives on the same device). A bool
/// is held as 0 or 1, a float16 or bfloat16 value as its exact f32. Fused programs replace chains of primitives:
/// those the planner finds (plan/fuse.rs) and those a caller writes as one (the optimizers' updates, api/fused.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Push input k's element (a float16 or bfloat16 widened, a bool as 0 or 1).
    Input(u8),
    /// Push a constant.
    Const(f32),
    /// Pop x, push op(x) as the unary kernel computes it in f32.
    Unary(UnaryOp),
    /// Pop y, then x, push x op y as the binary kernel computes it in f32 (a comparison as 0 or 1).
    Binary(BinaryOp),
    /// Pop b, a, then the condition c (0 or 1), push a where c is 1, else b: `where`, moving bits, computing none.
    Where,
    /// Pop x, push x as a cast to the dtype stores it, read back: rounded to float16 or bfloat16 (nearest even), 1
    /// where x is not ±0 for bool (NaN included), x itself for float32. No other dtype is a step.
    Cast(DType),
}

/// The fused kernel's limits (shaders/fused.wgsl): program words in its uniform (one per step, two for a constant),
/// the depth of its value stack, and the inputs it binds (the floor's 4 storage buffers, one of them the output).
pub const FUSED_WORDS: usize = 32;
pub const FUSED_DEPTH: usize = 8;
pub const FUSED_INPUTS: usize = 3;

/// Whether a program's f32 values hold every value of dtype `d` exactly (so a cast to it can be a step).
pub fn held(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F16 | DType::BF16 | DType::Bool)
}

/// Whether a postfix program fits the fused kernel and leaves exactly one value.
pub fn fits(steps: &[Step]) -> bool {
    let (mut words, mut depth, mut most) = (0usize, 0usize, 0usize);
    for step in steps {
        words += if matches!(step, Step::Const(_)) { 2 } else { 1 };
        depth = match step {
            Step::Input(k) if usize::from(*k) >= FUSED_INPUTS => return false,
            Step::Cast(d) if !held(*d) => return false,
            Step::Input(_) | Step::Const(_) => depth + 1,
            Step::Unary(_) | Step::Cast(_) if depth >= 1 => depth,
            Step::Binary(_) if depth >= 2 => depth - 1,
            Step::Where if depth >= 3 => depth - 2,
            Step::Unary(_) | Step::Binary(_) | Step::Where | Step::Cast(_) => return false,
        };
        most = most.max(depth);
    }
    depth == 1 && most <= FUSED_DEPTH && words <= FUSED_WORDS
}

/// The windows of the window ops: kernel, stride and dilation per spatial dim, the number of window positions along
/// each (OH, OW), and `pad`, the zeros before the image along each dim that `Op::Unfold` reads (and any past its end
/// that the windows reach) and `Op::Fold` leaves out of its image. The pools take images already padded with their
/// own value, and a pad of zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub out: [usize; 2],
    pub pad: [usize; 2],
}

impl Window {
    /// The span of image the windows need along spatial dim d, (out − 1)·stride + dilation·(kernel − 1) + 1; None
    /// where it overflows.
    pub fn span(&self, d: usize) -> Option<usize> {
        let steps = self.out[d].saturating_sub(1).checked_mul(self.stride[d])?;
        let reach = self.kernel[d].saturating_sub(1).checked_mul(self.dilation[d])?;
        steps.checked_add(reach)?.checked_add(1)
    }

    /// Whether every tap of every window lies inside an image of `size` (H, W), reading none of the pad.
    pub fn inside(&self, size: [usize; 2]) -> bool {
        self.pad == [0, 0] && (0..2).all(|d| self.out[d] == 0 || self.span(d).is_some_and(|s| s <= size[d]))
    }

    /// The image view (N, C, H, W) read as (N, C, KH, KW, OH, OW): tap (i, j) of block (oh, ow), for a pad of zero.
    /// Unfold copies it.
    pub fn blocks(&self, image: &crate::base::view::View) -> crate::base::view::View {
        let s = &image.strides;
        let step = |d: usize, by: usize| s[d] * by as isize;
        let (k, o) = (self.kernel, self.out);
        crate::base::view::View {
            shape: vec![image.shape[0], image.shape[1], k[0], k[1], o[0], o[1]],
            strides: vec![
                s[0],
                s[1],
                step(2, self.dilation[0]),
                step(3, self.dilation[1]),
                step(2, self.stride[0]),
                step(3, self.stride[1]),
            ],
            offset: image.offset,
        }
    }
}

/// Host bytes in NumPy's layout (little-endian, `itemsize` per element; bool one byte).
#[derive(Debug)]
pub struct HostData {
    pub dtype: DType,
    pub bytes: Vec<u8>,
}

/// What a node computes. Inputs are the node's sources, each read through its own view; the output is a fresh
/// contiguous buffer of the node's shape and dtype.
#[derive(Clone, Debug)]
pub enum Op {
    /// Bytes from the host, uploaded when realized.
    Data(Arc<HostData>),
    /// A copy of the single source from another device.
    Transfer,
    /// Every element equal to the scalar.
    Full(Scalar),
    /// A fused elementwise program over up to three f32 inputs (broadcast by their views), f32 out.
    Fused(Arc<[Step]>),
    /// Uniform [0, 1) floats from Philox(seed) starting at block `offset`, with `digits` random bits (24 for
    /// f32; 11 and 8 for f16 and bf16, as torch, so that rounding to the narrow type never reaches 1).
    Rand {
        seed: u64,
        offset: u64,
        digits: u32,
    },
    /// Standard normal floats from Philox(seed) by Box–Muller, starting at block `offset`.
    Randn {
        seed: u64,
        offset: u64,
    },
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// `where(cond, a, b)`: sources cond (bool), a, b.
    Where,
    /// Convert the source to the node's dtype.
    Cast,
    /// Materialise the source view contiguously (same dtype).
    Copy,
    /// Reduce the last `axes` dims of the source view (the planner permutes reduced dims last).
    Reduce {
        op: ReduceOp,
        axes: usize,
    },
    /// Batched matrix product of sources [.., m, k] and [.., k, n], batch dims already broadcast.
    Matmul,
    /// A copy of source 0 (the base buffer, contiguous) with the elements under `view` replaced by source 1.
    Assign {
        view: crate::base::view::View,
    },
    /// `out[p] = src[p with p[dim] = index[p]]`: sources src and index (int32/int64, checked to lie in range by the
    /// caller), both read through views of the output's shape except src along `dim`.
    Gather {
        dim: usize,
    },
    /// Sources base, index and src: each output element is the base's, then, for every index element along `dim`
    /// (in order) that points at it, src's element there replaces it (`add`: is added to it). The index and src
    /// views have the output's shape except along `dim`.
    Scatter {
        dim: usize,
        add: bool,
    },
    /// The positions (int64) that sort each row along the source view's last dim, stably: equal values keep their
    /// order, NaN sorts after every number (before, descending), -0 equals +0.
    ArgSort {
        descending: bool,
    },
    /// Inclusive scan along the last dim of the source view, each prefix folded in index order.
    Scan(ScanOp),
    /// softmax (log_softmax when `log`) of each row along the source view's last dim, in the composite's
    /// arithmetic: m = the row's max (NaN if any), d = x − m, then exp(d) / Σ exp(d) or d − log Σ exp(d). Float32
    /// (float64 on the CPU); one kernel reads each row where the composite ran five.
    Softmax {
        log: bool,
    },
    /// im2col: source (N, C, H, W) to (N, C·KH·KW, OH·OW), element (n, (c, i, j), (oh, ow)) being
    /// x[n, c, oh·sh + i·dh − ph, ow·sw + j·dw − pw], zero where that is outside the image (the window's pad).
    Unfold(Window),
    /// col2im, Unfold's adjoint: source (N, C·KH·KW, OH·OW) to (N, C, H, W) of the node's shape (the pad left out),
    /// each element the sum of the source elements Unfold would read it into, added in tap order (i, then j) from
    /// zero, in f32 for 16-bit floats and exactly for integers, so every device gives the same bytes.
    Fold(Window),
    /// Max pooling of the padded image source (N, C, H, W) to (N, C, OH, OW): each window's first maximum, as
    /// argmax picks it (the first NaN, else the first of the largest), its bits moved.
    MaxPool(Window),
    /// MaxPool's input gradient: sources the padded image and the gradient (N, C, OH, OW) of the pooled output; each
    /// image element adds, in tap order from zero, the gradient of every window whose first maximum it is (in f32 for
    /// 16-bit floats, rounded once).
    MaxPoolGrad(Window),
}

impl Op {
    /// The op's public name, as in the op table.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Data(_) => "tensor",
            Op::Transfer => "to",
            Op::Full(_) => "full",
            Op::Rand { .. } => "rand",
            Op::Randn { .. } => "randn",
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Where => "where",
            Op::Fused(_) => "fused",
            Op::Cast => "to",
            Op::Copy => "contiguous",
            Op::Reduce { op, .. } => op.name(),
            Op::Matmul => "matmul",
            Op::Assign { .. } => "setitem",
            Op::Gather { .. } => "gather",
            Op::Scatter { add: false, .. } => "scatter",
            Op::Scatter { add: true, .. } => "scatter_add",
            Op::ArgSort { .. } => "argsort",
            Op::Scan(op) => op.name(),
            Op::Softmax { log: false } => "softmax",
            Op::Softmax { log: true } => "log_softmax",
            Op::Unfold(_) => "unfold",
            Op::Fold(_) => "fold",
            Op::MaxPool(_) => "max_pool2d",
            Op::MaxPoolGrad(_) => "max_pool2d_backward",
        }
    }
}
