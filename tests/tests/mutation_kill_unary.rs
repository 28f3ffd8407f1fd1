//! Mutation-kill tests for the unary family (shaders/unary.wgsl, special.wgsl.in, elementwise.wgsl.in and
//! backend-cpu/src/unary.rs): every UnaryOp over edge values and dense grids that reach each branch of its kernel,
//! in f32, the 16-bit types and the integers, compared with the oracle under the op's declared tolerance.

use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::{Op, UnaryOp};
use vkml_core::Result;
use vkml_tests::{check, edge_f32, from_f32, from_i64, oracle_in, same, Gen};

/// Edge values, a dense grid over [−12, 12] (every polynomial's branch points lie inside), and log-spaced magnitudes
/// of both signs from 2⁻³⁰ to 2¹²⁷ (the large-argument paths, Payne–Hanek reduction among them).
fn grid() -> Vec<f32> {
    let mut v = edge_f32();
    v.extend((0..=2400).map(|i| -12.0 + i as f32 * 0.01));
    for e in -30..128 {
        for m in [1.0f32, 1.37, 1.999] {
            let x = m * 2f32.powi(e);
            v.extend([x, -x]);
        }
    }
    v
}

fn grid_tensor(_: &mut Gen, dev: DeviceId) -> Result<Vec<vkml_core::api::Tensor>> {
    let v = grid();
    Ok(vec![from_f32(&v, &[v.len()], dev)?])
}

#[test]
fn unary_every_op_on_edges_and_grids() -> Result<()> {
    every_op(1, grid_tensor)
}

/// Every unary op on the inputs `mk` draws (seeded by `seed`), against the oracle.
fn every_op(seed: u64, mk: impl Fn(&mut Gen, DeviceId) -> Result<Vec<vkml_core::api::Tensor>> + Copy) -> Result<()> {
    for op in UnaryOp::ALL {
        check(Op::Unary(op).name(), seed, mk, |t| t[0].unary(op))?;
    }
    Ok(())
}

#[test]
fn unary_random_bit_patterns() -> Result<()> {
    // Every exponent, NaN payloads and subnormals alike, uniformly over the bit patterns.
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
        let v: Vec<f32> = (0..3000).map(|_| f32::from_bits(g.next_u64() as u32)).collect();
        Ok(vec![from_f32(&v, &[v.len()], dev)?])
    };
    every_op(2, mk)
}

#[test]
fn unary_sqrt_is_correctly_rounded() -> Result<()> {
    // vkml's sqrt (arith.wgsl.in's sqrt_bits) gives the oracle's bytes: random significands in every binade of both
    // exponent parities, subnormals of every width, the largest float and exact squares; its guess is one off on
    // every device (the flipped bit), so both final steps run here. rsqrt, a correctly rounded division of 1 by
    // that root, is held to its contract.
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
        // 1 + 2⁻²³ and the largest float below 4: their remainders are −S and S exactly, the final steps' bounds.
        let mut v = vec![f32::MAX, f32::MIN_POSITIVE, f32::from_bits(1), f32::from_bits(0x7fffff), 4.0, 0.25];
        v.extend([f32::from_bits(0x3f80_0001), f32::from_bits(0x407f_ffff), f32::from_bits(0x0080_0001)]);
        for _ in 0..20000 {
            let e = g.below(255) as u32;
            v.push(f32::from_bits((g.next_u64() as u32 & 0x7fffff) | (e << 23)));
        }
        for _ in 0..2000 {
            let s = 1 + g.below(4095) as i32;
            v.push((s * s) as f32 * 2f32.powi(2 * (g.below(120) as i32) - 120));
        }
        Ok(vec![from_f32(&v, &[v.len()], dev)?])
    };
    same(80, |g, dev| mk(g, dev)?[0].unary(UnaryOp::Sqrt))?;
    check("rsqrt", 81, mk, |t| t[0].unary(UnaryOp::Rsqrt))
}

#[test]
fn unary_flat_views_from_aligned_and_unaligned_elements() -> Result<()> {
    // The vector kernel (shaders/unary_flat.wgsl) takes a float32 input read whole from a multiple of four elements,
    // a partial last vector included; from an odd element the generic kernel runs. Both against the oracle.
    let mk = |_: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
        let v = grid();
        Ok(vec![from_f32(&v, &[v.len()], dev)?])
    };
    for op in [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sqrt, UnaryOp::Rsqrt, UnaryOp::Tanh] {
        for start in [4, 3] {
            let len = grid().len() as i64 - start - 2;
            check(Op::Unary(op).name(), 5, mk, |t| t[0].narrow(0, start, len)?.unary(op))?;
        }
    }
    Ok(())
}

#[test]
fn unary_16bit_odd_lengths() -> Result<()> {
    // Exact ops only: the packed two-per-word store, and the lone last element of an odd length.
    let exact =
        [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Floor, UnaryOp::Ceil, UnaryOp::Trunc, UnaryOp::Round];
    for dtype in [DType::F16, DType::BF16] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
            let v: Vec<f32> = (0..257).map(|_| g.uniform(-70.0, 70.0)).collect();
            Ok(vec![from_f32(&v, &[v.len()], dev)?.to_dtype(dtype)?])
        };
        for op in exact {
            check(Op::Unary(op).name(), 3, mk, |t| t[0].unary(op))?;
        }
    }
    Ok(())
}

#[test]
fn unary_integers() -> Result<()> {
    let edges = [0, 1, -1, 7, -7, i32::MAX as i64, i32::MIN as i64, 1 << 32, -(1 << 32), (1 << 32) - 1, i64::MAX];
    for dtype in [DType::I32, DType::I64] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
            let mut v: Vec<i64> = edges.iter().copied().chain([i64::MIN + 1]).collect();
            v.extend((0..200).map(|k| (g.next_u64() as i64) >> (k % 63)));
            Ok(vec![from_i64(&v, &[v.len()], dtype, dev)?])
        };
        for op in [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Floor, UnaryOp::Round] {
            check(Op::Unary(op).name(), 4, mk, |t| t[0].unary(op))?;
        }
    }
    Ok(())
}

#[test]
fn unary_f64_oracle_path() -> Result<()> {
    // The oracle's f64 kernels (CPU only) against the GPUs' f32 ones.
    for op in UnaryOp::ALL {
        check(Op::Unary(op).name(), 5, grid_tensor, oracle_in(DType::F64, move |t| t[0].unary(op)))?;
    }
    Ok(())
}

#[test]
fn unary_trig_of_large_arguments() -> Result<()> {
    // Random magnitudes from 1 to 2¹²⁷: some land within 10⁻⁵ of a multiple of π/2, where the reduced argument is
    // tiny and every bit of Payne–Hanek's 2/π window shows in the result.
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<vkml_core::api::Tensor>> {
        let v: Vec<f32> =
            (0..1 << 17).map(|_| f32::from_bits(0x3f80_0000 + (g.next_u64() as u32) % 0x3f00_0000)).collect();
        Ok(vec![from_f32(&v, &[v.len()], dev)?])
    };
    for op in [UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tan] {
        check(Op::Unary(op).name(), 6, mk, |t| t[0].unary(op))?;
    }
    Ok(())
}
