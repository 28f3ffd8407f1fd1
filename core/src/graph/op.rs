//! The primitive ops a graph node can hold. Every backend matches on `Op` without a wildcard arm, so adding a
//! variant makes the compiler list each place that must handle it.

use std::sync::Arc;

use crate::base::dtype::DType;
use crate::base::scalar::Scalar;

/// Elementwise ops of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Sqrt,
    Abs,
    Sign,
    Exp2,
    Log2,
    Floor,
    Ceil,
    Trunc,
    Round,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Erf,
    Erfc,
    Expm1,
    Log1p,
}

impl UnaryOp {
    /// Every unary op, for lookups by name.
    pub const ALL: [UnaryOp; 29] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Exp2,
        UnaryOp::Log2,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Trunc,
        UnaryOp::Round,
        UnaryOp::Rsqrt,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Tanh,
        UnaryOp::Asinh,
        UnaryOp::Acosh,
        UnaryOp::Atanh,
        UnaryOp::Erf,
        UnaryOp::Erfc,
        UnaryOp::Expm1,
        UnaryOp::Log1p,
    ];

    /// The unary op with this op-table name.
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|u| Op::Unary(*u).name() == name)
    }
}

/// Elementwise ops of two inputs (broadcast by views before they reach a backend).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Mul,
    Div,
    Maximum,
    Minimum,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// C's fmod: the remainder with the dividend's sign, exact.
    Fmod,
    Atan2,
    CopySign,
    /// pow(a, b): C's powf for floats (IEEE's special values), torch's powi for integers (wrapping; a negative
    /// exponent gives 0 unless the base is ±1).
    Pow,
}

/// Reductions over the trailing `axes` dims of the (permuted) input view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
    ArgMax,
    Min,
    ArgMin,
    Prod,
}

/// Inclusive scans along the last dim of the source view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    Sum,
    Prod,
}

/// One step of a fused elementwise program: a stack machine over f32 values, each step computing exactly what its
/// primitive computes (so a fused chain gives the bytes the chain of primitives gives on the same device). Fused
/// programs replace chains of f32 primitives that a caller knows it wants in one dispatch (optimizer updates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Push input k's element.
    Input(u8),
    /// Push a constant.
    Const(f32),
    /// Pop x, push sqrt(x) (Sqrt) or −x (Neg).
    Unary(UnaryOp),
    /// Pop y, then x, push x op y (Add, Mul, Div or Maximum).
    Binary(BinaryOp),
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
            Op::Unary(u) => match u {
                UnaryOp::Neg => "neg",
                UnaryOp::Exp => "exp",
                UnaryOp::Log => "log",
                UnaryOp::Sqrt => "sqrt",
                UnaryOp::Abs => "abs",
                UnaryOp::Sign => "sign",
                UnaryOp::Exp2 => "exp2",
                UnaryOp::Log2 => "log2",
                UnaryOp::Floor => "floor",
                UnaryOp::Ceil => "ceil",
                UnaryOp::Trunc => "trunc",
                UnaryOp::Round => "round",
                UnaryOp::Rsqrt => "rsqrt",
                UnaryOp::Sin => "sin",
                UnaryOp::Cos => "cos",
                UnaryOp::Tan => "tan",
                UnaryOp::Asin => "asin",
                UnaryOp::Acos => "acos",
                UnaryOp::Atan => "atan",
                UnaryOp::Sinh => "sinh",
                UnaryOp::Cosh => "cosh",
                UnaryOp::Tanh => "tanh",
                UnaryOp::Asinh => "asinh",
                UnaryOp::Acosh => "acosh",
                UnaryOp::Atanh => "atanh",
                UnaryOp::Erf => "erf",
                UnaryOp::Erfc => "erfc",
                UnaryOp::Expm1 => "expm1",
                UnaryOp::Log1p => "log1p",
            },
            Op::Binary(b) => match b {
                BinaryOp::Add => "add",
                BinaryOp::Mul => "mul",
                BinaryOp::Div => "div",
                BinaryOp::Maximum => "maximum",
                BinaryOp::Minimum => "minimum",
                BinaryOp::BitAnd => "bitwise_and",
                BinaryOp::BitOr => "bitwise_or",
                BinaryOp::BitXor => "bitwise_xor",
                BinaryOp::Eq => "eq",
                BinaryOp::Ne => "ne",
                BinaryOp::Lt => "lt",
                BinaryOp::Le => "le",
                BinaryOp::Gt => "gt",
                BinaryOp::Ge => "ge",
                BinaryOp::Fmod => "fmod",
                BinaryOp::Atan2 => "atan2",
                BinaryOp::CopySign => "copysign",
                BinaryOp::Pow => "pow",
            },
            Op::Where => "where",
            Op::Fused(_) => "fused",
            Op::Cast => "to",
            Op::Copy => "contiguous",
            Op::Reduce { op, .. } => match op {
                ReduceOp::Sum => "sum",
                ReduceOp::Max => "amax",
                ReduceOp::ArgMax => "argmax",
                ReduceOp::Min => "amin",
                ReduceOp::ArgMin => "argmin",
                ReduceOp::Prod => "prod",
            },
            Op::Matmul => "matmul",
            Op::Assign { .. } => "setitem",
            Op::Gather { .. } => "gather",
            Op::Scatter { add: false, .. } => "scatter",
            Op::Scatter { add: true, .. } => "scatter_add",
            Op::ArgSort { .. } => "argsort",
            Op::Scan(ScanOp::Sum) => "cumsum",
            Op::Scan(ScanOp::Prod) => "cumprod",
        }
    }
}
