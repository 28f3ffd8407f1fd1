//! Creation kernels: fill with a scalar, and Philox uniform/normal draws (the same formulas as create.wgsl).

use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::base::view::numel;
use vkml_core::util::philox::{uniform, uniform_digits, word};

use crate::values::{encode, Values};

pub fn full(s: Scalar, dtype: DType, shape: &[usize]) -> Vec<u8> {
    let n = numel(shape);
    let v = match s {
        Scalar::Float(f) => Values::F64(vec![f; n]),
        Scalar::Int(i) => Values::I64(vec![i; n]),
        Scalar::Bool(b) => Values::I64(vec![b as i64; n]),
    };
    // An integer scalar into a float dtype rounds once, straight from i64.
    let v = match (v, dtype) {
        (Values::I64(xs), DType::F32 | DType::F16 | DType::BF16) => Values::F32(xs.iter().map(|&x| x as f32).collect()),
        (v, _) => v,
    };
    encode(&v, dtype)
}

pub fn rand(seed: u64, offset: u64, digits: u32, dtype: DType, shape: &[usize]) -> Vec<u8> {
    let n = numel(shape) as u64;
    let xs: Vec<f32> = (0..n).map(|i| uniform_digits(word(seed, offset, i), digits)).collect();
    encode(&Values::F32(xs), dtype)
}

/// Box–Muller on words 2·(i mod 2) and 2·(i mod 2)+1 of block i/2; θ is shifted into [−π, π), hence the minus sign
/// (create.wgsl computes the same θ).
pub fn randn(seed: u64, offset: u64, dtype: DType, shape: &[usize]) -> Vec<u8> {
    let n = numel(shape) as u64;
    let xs: Vec<f32> = (0..n)
        .map(|i| {
            let base = 4 * (i / 2) + 2 * (i % 2);
            let u1 = 1.0 - uniform(word(seed, offset, base));
            let u2 = uniform(word(seed, offset, base + 1));
            let r = (-2.0 * u1.ln()).sqrt();
            let theta = std::f32::consts::TAU * u2 - std::f32::consts::PI;
            -r * theta.cos()
        })
        .collect();
    encode(&Values::F32(xs), dtype)
}
