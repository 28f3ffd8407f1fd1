//! Vulkan (full and floor) against the CPU oracle without torch: random shapes and views for every primitive,
//! compared under the tolerance the op table declares.

use vkml_core::api::elementwise::{binary, where_};
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::{BinaryOp, Op, UnaryOp};
use vkml_core::tensor::promote::Operand;
use vkml_core::Result;
use vkml_tests::{bytes, check, devices, random_f32, Gen};

fn shape(g: &mut Gen) -> Vec<usize> {
    (0..1 + g.below(3)).map(|_| 1 + g.below(9)).collect()
}

#[test]
fn unary_ops_on_strided_views() -> Result<()> {
    for seed in 1..6u64 {
        let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            let s = shape(g);
            let x = random_f32(g, &[s.iter().product::<usize>() * 2], 0.01, 4.0, dev)?;
            // A stepped slice: every other element, reshaped.
            let v = x.index(&[vkml_core::api::index::IndexItem::Slice { start: None, stop: None, step: Some(2) }])?;
            Ok(vec![v.reshape(&s.iter().map(|&d| d as i64).collect::<Vec<_>>())?])
        };
        check("exp", seed, mk, |t| t[0].exp())?;
        check("log", seed, mk, |t| t[0].log())?;
        check("sqrt", seed, mk, |t| t[0].sqrt())?;
        check("neg", seed, mk, |t| t[0].neg())?;
        for op in [UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Exp2, UnaryOp::Log2, UnaryOp::Floor, UnaryOp::Round] {
            check(Op::Unary(op).name(), seed, mk, |t| t[0].unary(op))?;
        }
        check("rsqrt", seed, mk, |t| t[0].unary(UnaryOp::Rsqrt))?;
    }
    Ok(())
}

#[test]
fn binary_ops_broadcast_and_dtypes() -> Result<()> {
    let ops = [
        ("add", BinaryOp::Add),
        ("mul", BinaryOp::Mul),
        ("div", BinaryOp::Div),
        ("maximum", BinaryOp::Maximum),
        ("lt", BinaryOp::Lt),
        ("eq", BinaryOp::Eq),
    ];
    for dtype in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64] {
        for (name, op) in ops {
            let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
                let a = random_f32(g, &[5, 1], -8.0, 8.0, dev)?.to_dtype(dtype)?;
                let b = random_f32(g, &[1, 7], -8.0, 8.0, dev)?.to_dtype(dtype)?;
                Ok(vec![a, b])
            };
            check(name, 7, mk, |t| binary(&Operand::Tensor(t[0].clone()), &Operand::Tensor(t[1].clone()), op))?;
        }
    }
    Ok(())
}

#[test]
fn where_cast_and_copies() -> Result<()> {
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        Ok(vec![random_f32(g, &[6, 9], -3.0, 3.0, dev)?, random_f32(g, &[9], -3.0, 3.0, dev)?])
    };
    check("where", 3, mk, |t| {
        let c = binary(&Operand::Tensor(t[0].clone()), &Operand::Tensor(t[1].clone()), BinaryOp::Gt)?;
        where_(&c, &Operand::Tensor(t[0].clone()), &Operand::Tensor(t[1].clone()))
    })?;
    for to in [DType::F16, DType::BF16, DType::I32, DType::I64, DType::Bool] {
        check("to", 4, mk, |t| t[0].to_dtype(to))?;
        check("to", 5, mk, |t| t[0].to_dtype(to)?.to_dtype(DType::F32))?;
    }
    check("contiguous", 6, mk, |t| t[0].t()?.contiguous())?;
    Ok(())
}

#[test]
fn reductions_over_dims() -> Result<()> {
    let mk =
        |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> { Ok(vec![random_f32(g, &[4, 33, 5], -1.0, 1.0, dev)?]) };
    for dims in [vec![0i64], vec![1], vec![-1], vec![0, 2], vec![]] {
        check("sum", 8, mk, |t| t[0].sum(Some(&dims), false))?;
        check("amax", 8, mk, |t| t[0].amax(Some(&dims), true))?;
    }
    check("argmax", 9, mk, |t| t[0].argmax(Some(1), false))?;
    check("sum", 10, mk, |t| t[0].to_dtype(DType::I32)?.sum(Some(&[1]), false))?;
    check("mean", 11, mk, |t| t[0].to_dtype(DType::F16)?.mean(Some(&[1]), false))?;
    Ok(())
}

#[test]
fn softmax_rows_short_and_long() -> Result<()> {
    use vkml_core::api::join::cat;
    use vkml_core::nn::functional::{log_softmax, softmax};
    // Rows of 5 and 32 (one invocation each; 300 rows fill three workgroups); 33, 1,000 and 4,096 (a workgroup each,
    // the row kept in its invocations' registers, 1 to 32 elements each); 4,100 (read three times); along the last
    // dim and through a transpose, with a NaN and an infinity in two rows. Spiked rows hold 100 at column 1 among
    // values in [-100, 0]: a max that missed it would overflow exp.
    let shapes = [(20u64, 300usize, 5usize), (21, 6, 32), (22, 6, 33), (24, 5, 1000), (25, 3, 4096), (23, 6, 4100)];
    for (seed, rows, cols) in shapes {
        for spiked in [false, true] {
            let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
                let x = if spiked {
                    let spike = vkml_tests::from_f32(&vec![100.0; rows], &[rows, 1], dev)?;
                    let left = random_f32(g, &[rows, 1], -100.0, 0.0, dev)?;
                    cat(&[left, spike, random_f32(g, &[rows, cols - 2], -100.0, 0.0, dev)?], 1)?
                } else {
                    random_f32(g, &[rows, cols], -8.0, 8.0, dev)?
                };
                let special = vkml_tests::from_f32(&[f32::NAN, f32::INFINITY], &[2, 1], dev)?;
                let edged = cat(&[special, random_f32(g, &[2, cols - 1], -8.0, 8.0, dev)?], 1)?;
                Ok(vec![cat(&[x, edged], 0)?])
            };
            check("softmax", seed, mk, |t| softmax(&t[0], -1))?;
            check("log_softmax", seed, mk, |t| log_softmax(&t[0], -1))?;
            check("softmax", seed, mk, |t| softmax(&t[0].t()?, 0))?;
            // From the second row on: the vector kernel's rows start one row into the buffer.
            check("softmax", seed, mk, |t| softmax(&t[0].narrow(0, 1, rows as i64)?, -1))?;
        }
    }
    Ok(())
}

#[test]
fn matmul_tile_edges_and_transposes() -> Result<()> {
    for (m, k, n) in [(1, 1, 1), (17, 1, 3), (16, 16, 16), (33, 17, 9), (5, 40, 31)] {
        let mk = move |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
            Ok(vec![random_f32(g, &[2, m, k], -1.0, 1.0, dev)?, random_f32(g, &[n, k], -1.0, 1.0, dev)?])
        };
        check("matmul", 12, mk, |t| t[0].matmul(&t[1].t()?))?;
        check("matmul", 13, mk, |t| t[0].to_dtype(DType::F16)?.matmul(&t[1].to_dtype(DType::F16)?.t()?))?;
    }
    Ok(())
}

#[test]
fn random_bits_are_identical_across_devices() -> Result<()> {
    let d = devices();
    vkml_core::api::create::manual_seed(42);
    let want = bytes(&Tensor::rand(&[1000], DType::F32, d.cpu)?)?;
    for (id, _) in &d.gpus {
        vkml_core::api::create::manual_seed(42);
        assert_eq!(bytes(&Tensor::rand(&[1000], DType::F32, *id)?)?, want, "rand bits differ on {id:?}");
    }
    Ok(())
}

#[test]
fn inplace_writes_through_views() -> Result<()> {
    let mk = |g: &mut Gen, dev: DeviceId| -> Result<Vec<Tensor>> {
        Ok(vec![random_f32(g, &[6, 8], -1.0, 1.0, dev)?.to_dtype(DType::F16)?])
    };
    check("setitem", 14, mk, |t| {
        let x = t[0].copy()?;
        let v = x.index(&[
            vkml_core::api::index::IndexItem::Slice { start: Some(1), stop: None, step: Some(2) },
            vkml_core::api::index::IndexItem::Slice { start: None, stop: Some(5), step: Some(3) },
        ])?;
        v.update(&Operand::Tensor(v.clone()), "add")?;
        Ok(x)
    })?;
    Ok(())
}
