//! The kinds of contract an op's results are held to (exact, ulp, absolute, relative, backward), and the
//! combinations an op does not run on; the op table's rows and the gradient contracts are written in them.

use crate::base::dtype::DType;

/// How close a result must be to the exact one. `gpu_ftz`: a GPU may flush subnormal inputs and outputs to zero
/// (Vulkan allows it unless denorm preservation is requested, and wgpu does not request it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Bit-identical to the reference (NaN matches NaN, zeros by sign).
    Exact { gpu_ftz: bool, reason: &'static str },
    /// Within `ulp + per_abs_x·|x|` units in the last place of the result, or within `abs` absolutely.
    Ulp { ulp: f64, per_abs_x: f64, abs: f64, gpu_ftz: bool, reason: &'static str },
    /// Within `abs` absolutely.
    Absolute { abs: f64, reason: &'static str },
    /// Within `rel·|exact|`.
    Relative { rel: f64, reason: &'static str },
    /// Within γ(n)·Σ|terms| of the exact value plus one rounding of the output, γ(n) = n·u/(1−n·u), u the unit
    /// roundoff of the accumulator (2⁻²⁴ for f32): the classic bound for any summation order (Higham, ASNA §4.2).
    Backward { gpu_ftz: bool, reason: &'static str },
}

impl Tolerance {
    pub fn kind(self) -> &'static str {
        match self {
            Tolerance::Exact { .. } => "exact",
            Tolerance::Ulp { .. } => "ulp",
            Tolerance::Absolute { .. } => "absolute",
            Tolerance::Relative { .. } => "relative",
            Tolerance::Backward { .. } => "backward",
        }
    }
}

/// A combination an op does not run on, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unsupported {
    pub device: &'static str,
    pub dtype: DType,
    pub reason: &'static str,
}
