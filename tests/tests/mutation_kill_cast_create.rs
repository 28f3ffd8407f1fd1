//! Mutation-kill tests for the cast and create families (shaders/cast.wgsl, create.wgsl, common.wgsl's narrowing
//! and int64 conversions, backend-cpu/src/cast.rs, create.rs and values.rs): every pair of dtypes over rounding
//! ties, overflow, saturation and every 16-bit pattern; fills, uniform and normal draws, and dispatch grids wider
//! than one row of workgroups.

use vkml_core::api::create::manual_seed;
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::Result;
use vkml_tests::{check, edge_f32, from_f32, from_i64, oracle_in, Gen};

const DTYPES: [DType; 6] = [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool];

/// f32 values that round to 16 bits exactly on a tie, just above and below one, at the top of f16's range and in its
/// subnormals, at the int32/int64 saturation bounds, plus random bit patterns and their tie versions.
fn f32_sources(g: &mut Gen) -> Vec<f32> {
    let mut v = edge_f32();
    for k in 0..9 {
        let k = k as f32;
        v.extend([
            1.0 + k * 2f32.powi(-11),
            1.0 + k * 2f32.powi(-9),
            k * 2f32.powi(-25),
            1.5 * 2f32.powi(-24 - k as i32),
        ]);
    }
    v.extend([1.0 + 2f32.powi(-11) + 2f32.powi(-20), 65519.0, 65520.0, 65536.0, 6.1e-5, 6.0e-5, 3.39e38]);
    v.extend([2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967296.0, 9.2233715e18, 9.223372e18]);
    v.extend([-9.223372e18, -9.2233715e18, 1.8446744e19, -0.5, -1.5, -2.5, 0.5, 1.5, 2.5, 1.0e-3]);
    for _ in 0..700 {
        let r = g.next_u64() as u32;
        v.extend([f32::from_bits(r), f32::from_bits(r & !0xffff | 0x8000), f32::from_bits(r & !0x1fff | 0x1000)]);
    }
    v
}

/// Integers at every magnitude, with the ties of int64 → f32 rounding in both words.
fn int_sources(g: &mut Gen) -> Vec<i64> {
    let mut v = vec![0, 1, -1, 2, 255, 256, i32::MAX as i64, i32::MIN as i64, i64::MAX, i64::MIN, i64::MIN + 1];
    v.extend([(1 << 24) + 1, (1 << 24) + 3, (1 << 25) + 2, (1 << 25) + 6, (1 << 53) + 1, (1 << 40) + (1 << 16)]);
    v.extend([(1 << 56) + (1 << 32), (1 << 56) + (1 << 32) + 1, (1 << 55) + (1 << 31), (1 << 55) + (1 << 31) + 1]);
    v.extend([(1 << 55) + 3 * (1 << 31), (1 << 62) + (1 << 38), -(1 << 56) - (1 << 32), 1 << 31, (1 << 32) - 1]);
    // Ties whose kept significand is odd (they round up to even), with the half in the high word.
    v.extend([(1 << 56) + 3 * (1 << 32), -(1 << 56) - 3 * (1 << 32), (1 << 60) + 3 * (1 << 36), (1 << 57) + (3 << 33)]);
    v.extend((0..300).map(|k| (g.next_u64() as i64) >> (k % 64)));
    v
}

fn source(g: &mut Gen, dtype: DType, dev: DeviceId) -> Result<Tensor> {
    match dtype {
        DType::F32 => {
            let v = f32_sources(g);
            from_f32(&v, &[v.len()], dev)
        }
        DType::F16 | DType::BF16 => {
            // Every 16-bit pattern but the last (an odd count, so the final word holds one element).
            let bytes: Vec<u8> = (0..u16::MAX).flat_map(|b| b.to_le_bytes()).collect();
            Tensor::from_bytes(bytes, &[u16::MAX as usize], dtype, dev)
        }
        _ => {
            let v = int_sources(g);
            from_i64(&v, &[v.len()], dtype, dev)
        }
    }
}

#[test]
fn cast_every_pair_of_dtypes() -> Result<()> {
    for from in DTYPES {
        for to in DTYPES {
            check("to", 1, move |g, dev| Ok(vec![source(g, from, dev)?]), |t| t[0].to_dtype(to))?;
        }
    }
    Ok(())
}

#[test]
fn cast_strided_sources() -> Result<()> {
    // A transposed view: the loaders read through strides, not in order.
    for from in DTYPES {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let v: Vec<i64> = (0..7 * 13).map(|_| (g.next_u64() as i64) >> 40).collect();
            Ok(vec![from_i64(&v, &[7, 13], DType::I64, dev)?.to_dtype(from)?.t()?])
        };
        check("to", 2, mk, |t| t[0].to_dtype(DType::F32))?;
    }
    Ok(())
}

#[test]
fn create_full_of_every_dtype_and_scalar() -> Result<()> {
    let scalars =
        [Scalar::Float(-2.75), Scalar::Float(1.0e-3), Scalar::Int(-3), Scalar::Int(40001), Scalar::Bool(true)];
    for dtype in DTYPES {
        for s in scalars {
            check("full", 3, move |_, dev| Ok(vec![Tensor::full(&[3, 37], s, dtype, dev)?]), |t| Ok(t[0].clone()))?;
        }
    }
    // Both words of an int64 pattern.
    let s = Scalar::Int(-(1 << 40) - 5);
    check("full", 3, move |_, dev| Ok(vec![Tensor::full(&[5], s, DType::I64, dev)?]), |t| Ok(t[0].clone()))?;
    Ok(())
}

#[test]
fn create_rand_and_randn_streams() -> Result<()> {
    // The second draw after a seed starts at a nonzero offset; odd lengths end in a half-filled 16-bit word.
    for dtype in [DType::F32, DType::F16, DType::BF16] {
        for (name, normal) in [("rand", false), ("randn", true)] {
            let mk = move |_: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
                manual_seed(0x1234_5678_9abc);
                let draw =
                    |n: usize| if normal { Tensor::randn(&[n], dtype, dev) } else { Tensor::rand(&[n], dtype, dev) };
                let first = draw(1001)?;
                Ok(vec![first, draw(517)?])
            };
            check(name, 4, mk, |t| Ok(t[0].clone()))?;
            check(name, 4, mk, |t| Ok(t[1].clone()))?;
        }
    }
    Ok(())
}

#[test]
fn create_arange_of_every_numeric_dtype() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64] {
        let mk = move |_: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            Ok(vec![Tensor::arange(Scalar::Int(-41), Scalar::Int(1000), Scalar::Int(3), dtype, dev)?])
        };
        check("arange", 5, mk, |t| Ok(t[0].clone()))?;
    }
    Ok(())
}

#[test]
fn create_full_past_65535_workgroups() -> Result<()> {
    // More than 65,535 · 128 elements: the dispatch grid gets a second row, and linear_id must count it.
    let n = 65_535 * 128 + 300;
    check(
        "full",
        6,
        move |_, dev| Ok(vec![Tensor::full(&[n], Scalar::Int(-7), DType::I32, dev)?]),
        |t| {
            let idx = Tensor::arange(Scalar::Int(0), Scalar::Int(n as i64), Scalar::Int(1), DType::I32, t[0].device())?;
            vkml_core::api::elementwise::binary(
                &vkml_core::tensor::promote::Operand::Tensor(t[0].clone()),
                &vkml_core::tensor::promote::Operand::Tensor(idx),
                vkml_core::graph::op::BinaryOp::Add,
            )
        },
    )?;
    Ok(())
}

#[test]
fn cast_f64_oracle_path() -> Result<()> {
    // The oracle's casts from f64 (CPU only) against the GPUs' casts from f32, of the same f32 values.
    for to in DTYPES {
        check(
            "to",
            7,
            |g, dev| Ok(vec![source(g, DType::F32, dev)?]),
            oracle_in(DType::F64, move |t| t[0].to_dtype(to)),
        )?;
    }
    Ok(())
}
