//! Mutation-kill tests for the binary and where families (shaders/binary.wgsl, where.wgsl, special.wgsl.in's fmod and
//! atan2, pow.wgsl.in, elementwise.wgsl.in, common.wgsl's int64 arithmetic, backend-cpu/src/binary.rs): every BinaryOp over the
//! outer product of edge values, random bit patterns, and integers of every magnitude.

use vkml_core::api::elementwise::{binary, where_};
use vkml_core::api::promote::Operand;
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::{BinaryOp, Op};
use vkml_core::Result;
use vkml_tests::{check, edge_f32, from_f32, from_i64, oracle_in, Gen};

const FLOAT_OPS: [BinaryOp; 15] = [
    BinaryOp::Add,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Fmod,
    BinaryOp::Atan2,
    BinaryOp::CopySign,
    BinaryOp::Pow,
];

const INT_OPS: [BinaryOp; 14] = [
    BinaryOp::Add,
    BinaryOp::Mul,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::BitAnd,
    BinaryOp::BitOr,
    BinaryOp::BitXor,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Pow,
];

fn apply(t: &[Tensor], op: BinaryOp) -> Result<Tensor> {
    binary(&Operand::Tensor(t[0].clone()), &Operand::Tensor(t[1].clone()), op)
}

fn subnormal(x: f32) -> bool {
    x != 0.0 && x.abs() < f32::MIN_POSITIVE
}

/// Every pair of edge values whose dividend passes `keep`, as a column broadcast against a row.
fn edge_pairs(dev: DeviceId, keep: impl Fn(f32) -> bool) -> Result<Vec<Tensor>> {
    let v = edge_f32();
    let x: Vec<f32> = v.iter().copied().filter(|&x| keep(x)).collect();
    Ok(vec![from_f32(&x, &[x.len(), 1], dev)?, from_f32(&v, &[1, v.len()], dev)?])
}

#[test]
fn binary_float_ops_on_the_edge_grid() -> Result<()> {
    // Every pair of edge values, subnormal dividends included (fdiv's subnormal branch overflowed for divisors below
    // 2⁻¹⁰⁴ until the fix these pairs check).
    for op in FLOAT_OPS {
        check(Op::Binary(op).name(), 1, |_, dev| edge_pairs(dev, |_| true), |t| apply(t, op))?;
    }
    Ok(())
}

#[test]
fn binary_float_ops_on_random_bits_and_near_ratios() -> Result<()> {
    // Random bit patterns reach every exponent gap; pairs within a few binades of each other drive fmod's long
    // division and atan2's octants through many steps.
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        let mut x: Vec<f32> = (0..2000).map(|_| f32::from_bits(g.next_u64() as u32)).collect();
        let mut y: Vec<f32> = (0..2000).map(|_| f32::from_bits(g.next_u64() as u32)).collect();
        for _ in 0..2000 {
            let a = g.uniform(-1000.0, 1000.0);
            x.push(a);
            y.push(a * g.uniform(-1.5, 1.5) / (1 + g.below(200)) as f32);
        }
        Ok(vec![from_f32(&x, &[x.len()], dev)?, from_f32(&y, &[y.len()], dev)?])
    };
    for op in FLOAT_OPS {
        check(Op::Binary(op).name(), 2, mk, |t| apply(t, op))?;
    }
    Ok(())
}

fn int_values(g: &mut Gen) -> Vec<i64> {
    let mut v = vec![0, 1, -1, 2, -2, 3, i32::MAX as i64, i32::MIN as i64, 1 << 31, (1 << 32) - 1, 1 << 32];
    v.extend([-(1 << 32), (1 << 32) + 1, 0xffff, 0x10000, 0x1_0001, i64::MAX, i64::MIN, i64::MIN + 1]);
    v.extend((0..13).map(|k| (g.next_u64() as i64) >> (k * 5)));
    v
}

#[test]
fn binary_integer_ops_of_every_magnitude() -> Result<()> {
    for dtype in [DType::I64, DType::I32, DType::Bool] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let v = int_values(g);
            Ok(vec![from_i64(&v, &[v.len(), 1], dtype, dev)?, from_i64(&v, &[1, v.len()], dtype, dev)?])
        };
        for op in INT_OPS {
            if dtype == DType::Bool && matches!(op, BinaryOp::Add | BinaryOp::Mul | BinaryOp::Pow) {
                // torch computes add and mul in bool as or/and, and refuses pow (the op table declares it)
                continue;
            }
            check(Op::Binary(op).name(), 3, mk, |t| apply(t, op))?;
        }
    }
    Ok(())
}

#[test]
fn binary_16bit_odd_lengths() -> Result<()> {
    for dtype in [DType::F16, DType::BF16] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let x: Vec<f32> = (0..255).map(|_| g.uniform(-300.0, 300.0)).collect();
            let y: Vec<f32> = (0..255).map(|_| g.uniform(-300.0, 300.0)).collect();
            Ok(vec![from_f32(&x, &[255], dev)?.to_dtype(dtype)?, from_f32(&y, &[255], dev)?.to_dtype(dtype)?])
        };
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Maximum, BinaryOp::Lt, BinaryOp::CopySign] {
            check(Op::Binary(op).name(), 4, mk, |t| apply(t, op))?;
        }
    }
    Ok(())
}

#[test]
fn where_selects_per_element_for_every_dtype() -> Result<()> {
    for dtype in [DType::F32, DType::F16, DType::I64, DType::I32, DType::Bool] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let c: Vec<i64> = (0..7 * 9).map(|_| g.below(2) as i64).collect();
            let a: Vec<i64> = (0..9).map(|_| g.next_u64() as i64 >> 20).collect();
            let b: Vec<i64> = (0..7).map(|_| -(g.next_u64() as i64 >> 20)).collect();
            Ok(vec![
                from_i64(&c, &[7, 9], DType::Bool, dev)?,
                from_i64(&a, &[9], DType::I64, dev)?.to_dtype(dtype)?,
                from_i64(&b, &[7, 1], DType::I64, dev)?.to_dtype(dtype)?,
            ])
        };
        check("where", 5, mk, |t| where_(&t[0], &Operand::Tensor(t[1].clone()), &Operand::Tensor(t[2].clone())))?;
    }
    Ok(())
}

#[test]
fn binary_f64_oracle_path() -> Result<()> {
    // The oracle's f64 kernels (CPU only) against the GPUs' f32 ones, on every pair of normal and edge values.
    let mk = |_: &mut Gen, dev: DeviceId| edge_pairs(dev, |x| !subnormal(x));
    for op in FLOAT_OPS {
        check(Op::Binary(op).name(), 6, mk, oracle_in(DType::F64, move |t| apply(t, op)))?;
    }
    Ok(())
}
