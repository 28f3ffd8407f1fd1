//! Unfold, fold (im2col and col2im), max pooling and its gradient on the fast CPU and Vulkan (full and floor) against
//! the CPU oracle: every dtype, strided sources, stride, dilation, pads, overlapping and uncovered image elements,
//! ties and NaN in windows — bit for bit, since each output adds its terms in one order on every device.

use vkml_core::api::window::{fold_windows, max_pool_grad, max_pool_windows, unfold_windows};
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::UnaryOp;
use vkml_core::graph::op::Window;
use vkml_core::Result;
use vkml_tests::{random_f32, same};

/// Windows beside the image (H, W) they fit.
const CASES: [(Window, [usize; 2]); 4] = [
    (Window { kernel: [3, 3], stride: [1, 1], dilation: [1, 1], out: [5, 6], pad: [0, 0] }, [7, 8]),
    (Window { kernel: [2, 3], stride: [2, 1], dilation: [1, 2], out: [3, 4], pad: [0, 0] }, [7, 8]),
    (Window { kernel: [1, 1], stride: [2, 3], dilation: [1, 1], out: [4, 3], pad: [0, 0] }, [8, 9]),
    (Window { kernel: [3, 2], stride: [1, 2], dilation: [2, 1], out: [2, 3], pad: [0, 0] }, [6, 7]),
];

/// Windows reaching into a pad of zeros before the image and past its end: a convolution's padding=1, uneven pads
/// with dilation and a window past the end's pad by one, padding='same' of an even kernel (no pad before, one after),
/// and pads wider than the kernel, whose outer windows lie wholly in the pad.
const PADDED: [(Window, [usize; 2]); 4] = [
    (Window { kernel: [2, 2], stride: [1, 1], dilation: [1, 1], out: [6, 8], pad: [0, 0] }, [6, 8]),
    (Window { kernel: [3, 3], stride: [1, 1], dilation: [1, 1], out: [7, 8], pad: [1, 1] }, [7, 8]),
    (Window { kernel: [2, 3], stride: [2, 1], dilation: [2, 1], out: [4, 9], pad: [2, 1] }, [5, 8]),
    (Window { kernel: [1, 1], stride: [1, 1], dilation: [1, 1], out: [6, 7], pad: [2, 1] }, [2, 5]),
];

#[test]
fn unfold_and_fold_match_the_oracle() -> Result<()> {
    for (c, (w, size)) in CASES.into_iter().chain(PADDED).enumerate() {
        let (kernel, out) = (w.kernel, w.out);
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

#[test]
fn max_pool_and_its_gradient_match_the_oracle() -> Result<()> {
    for (c, (w, size)) in CASES.into_iter().enumerate() {
        let out = w.out;
        for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64] {
            // Rounded values tie often; a transposed image.
            same(20 + c as u64, |g, dev| {
                let x = random_f32(g, &[2, 3, size[1], size[0]], -3.0, 3.0, dev)?.unary(UnaryOp::Round)?;
                max_pool_windows(&x.to_dtype(dtype)?.transpose(2, 3)?, w)
            })?;
        }
        for dtype in [DType::F32, DType::F16, DType::BF16] {
            same(30 + c as u64, |g, dev| {
                let x = random_f32(g, &[2, 3, size[0], size[1]], -3.0, 3.0, dev)?.unary(UnaryOp::Round)?;
                let grad = random_f32(g, &[2, 3, out[0], out[1]], -9.0, 9.0, dev)?.to_dtype(dtype)?;
                max_pool_grad(&x.to_dtype(dtype)?, &grad, w)
            })?;
        }
    }
    // A NaN wins its window (the first one where two are), and a window of one value.
    same(40, |_, dev| {
        let v = [1.0, f32::NAN, 2.0, f32::NAN, -0.0, 0.0, 5.0, 5.0, 3.0];
        let x = vkml_tests::from_f32(&v, &[1, 1, 3, 3], dev)?;
        let w = Window { kernel: [2, 2], stride: [1, 1], dilation: [1, 1], out: [2, 2], pad: [0, 0] };
        let g = vkml_tests::from_f32(&[1.0, 2.0, 4.0, 8.0], &[1, 1, 2, 2], dev)?;
        vkml_core::api::join::cat(
            &[max_pool_windows(&x, w)?.reshape(&[4])?, max_pool_grad(&x, &g, w)?.reshape(&[9])?],
            0,
        )
    })
}

/// Windows that tile the image (stride = kernel, no dilation): a float32 pool's gradient takes the per-window kernel
/// on Vulkan (shaders/window_tiles.wgsl), here over a transposed image and gradient, rounded values that tie, a
/// window of one element and one window over the whole image.
#[test]
fn tiling_windows_gradient_matches_the_oracle() -> Result<()> {
    let cases = [([2, 2], [3, 4]), ([3, 2], [2, 3]), ([1, 1], [2, 5]), ([2, 3], [1, 1])];
    for (c, (kernel, out)) in cases.into_iter().enumerate() {
        let w = Window { kernel, stride: kernel, dilation: [1, 1], out, pad: [0, 0] };
        let size = [kernel[0] * out[0], kernel[1] * out[1]];
        same(50 + c as u64, |g, dev| {
            let x = random_f32(g, &[2, 3, size[1], size[0]], -3.0, 3.0, dev)?.unary(UnaryOp::Round)?;
            let grad = random_f32(g, &[2, 3, out[1], out[0]], -9.0, 9.0, dev)?;
            max_pool_grad(&x.transpose(2, 3)?, &grad.transpose(2, 3)?, w)
        })?;
        // Contiguous, as a network's activations arrive (the fast CPU's one-pass path).
        same(70 + c as u64, |g, dev| {
            let x = random_f32(g, &[2, 3, size[0], size[1]], -3.0, 3.0, dev)?.unary(UnaryOp::Round)?;
            max_pool_grad(&x, &random_f32(g, &[2, 3, out[0], out[1]], -9.0, 9.0, dev)?, w)
        })?;
    }
    // The first NaN wins; +0 beats -0 and a tie keeps the first; all -inf picks the first tap; a -0 gradient lands as
    // +0 (the sum from zero).
    same(60, |_, dev| {
        let inf = f32::INFINITY;
        #[rustfmt::skip]
        let v = [
            1.0, f32::NAN, -0.0, 0.0,
            f32::NAN, 2.0, 0.0, -0.0,
            5.0, 5.0, -inf, -inf,
            5.0, 7.0, -inf, -inf,
        ];
        let x = vkml_tests::from_f32(&v, &[1, 1, 4, 4], dev)?;
        let w = Window { kernel: [2, 2], stride: [2, 2], dilation: [1, 1], out: [2, 2], pad: [0, 0] };
        let g = vkml_tests::from_f32(&[-0.0, 1.5e-38, 3.0, -2.5], &[1, 1, 2, 2], dev)?;
        max_pool_grad(&x, &g, w)
    })
}
