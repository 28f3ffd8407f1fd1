//! Unfold and fold (im2col and col2im) on the fast CPU and Vulkan (full and floor) against the CPU oracle: every
//! dtype, strided sources, stride, dilation, overlapping and uncovered image elements — bit for bit, since fold adds
//! each element's taps in one order on every device.

use vkml_core::api::window::{fold_windows, unfold_windows};
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::Window;
use vkml_core::Result;
use vkml_tests::{random_f32, same};

/// (kernel, stride, dilation, out) beside the image (H, W) they fit.
const CASES: [([usize; 2], [usize; 2], [usize; 2], [usize; 2], [usize; 2]); 4] = [
    ([3, 3], [1, 1], [1, 1], [5, 6], [7, 8]),
    ([2, 3], [2, 1], [1, 2], [3, 4], [7, 8]),
    ([1, 1], [2, 3], [1, 1], [4, 3], [8, 9]),
    ([3, 2], [1, 2], [2, 1], [2, 3], [6, 7]),
];

#[test]
fn unfold_and_fold_match_the_oracle() -> Result<()> {
    for (c, (kernel, stride, dilation, out, size)) in CASES.into_iter().enumerate() {
        let w = Window { kernel, stride, dilation, out };
        for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
            // A transposed image: the unfold reads through strides.
            same(c as u64, |g, dev| {
                let x = random_f32(g, &[2, 3, size[1], size[0]], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                unfold_windows(&x.transpose(2, 3)?, w)
            })?;
            if dtype == DType::I32 || dtype == DType::I64 {
                continue; // torch folds floats and bool only
            }
            // A transposed source (blocks by rows), values with rounding in every sum.
            same(10 + c as u64, |g, dev| {
                let rows = 3 * kernel[0] * kernel[1];
                let cols = random_f32(g, &[2, out[0] * out[1], rows], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                fold_windows(&cols.transpose(1, 2)?, w, size)
            })?;
        }
    }
    Ok(())
}
