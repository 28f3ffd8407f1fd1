//! Fused elementwise programs (`Op::Fused`) against the chains of primitives they stand for, on the CPU oracle and
//! every GPU: the same bytes on the same device, for the optimizers' update formulas, for every step over edge
//! values (signed zeros, subnormals, infinities, NaN), broadcast and strided inputs included, and for the chains of
//! every unary and binary op that the planner fuses, with comparisons, `where` and casts among float32, float16,
//! bfloat16 and bool inside them or ending them.

use std::ops::{Add, Div, Mul, Neg, Sub};
use std::sync::Mutex;

use vkml_backend_vulkan::FUSED_HOT;
use vkml_core::api::elementwise::{binary, where_};
use vkml_core::api::fused::{composite, eval, Expr};
use vkml_core::api::Tensor;
use vkml_core::base::buffer::DeviceId;
use vkml_core::base::dtype::DType;
use vkml_core::base::scalar::Scalar;
use vkml_core::graph::op::{BinaryOp, BinaryRule, UnaryOp};
use vkml_core::plan::run::set_eager;
use vkml_core::tensor::promote::Operand;
use vkml_core::util::stats::{get, Counter};
use vkml_core::Result;
use vkml_tests::{bytes, devices, edge_f32, from_f32, random_f32, Gen};

fn x(k: usize) -> Expr {
    Expr::Input(k)
}

/// The fused and the primitive results of `e` on `inputs`, compared bit for bit (any NaN matches any NaN).
fn same(what: &str, e: &Expr, inputs: &[Tensor]) -> Result<()> {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let (a, b) = (eval(e, &refs)?, composite(e, &refs)?);
    assert_eq!(a.node().op.name(), "fused", "{what}: float32 inputs on one device run fused");
    assert_eq!(a.shape(), b.shape(), "{what}: shape");
    same_bytes(what, &bytes(&a)?, &bytes(&b)?);
    Ok(())
}

fn same_bytes(what: &str, fa: &[u8], fb: &[u8]) {
    assert_eq!(fa.len(), fb.len(), "{what}: size");
    for (i, (p, q)) in fa.chunks_exact(4).zip(fb.chunks_exact(4)).enumerate() {
        let (p, q) = (f32::from_le_bytes([p[0], p[1], p[2], p[3]]), f32::from_le_bytes([q[0], q[1], q[2], q[3]]));
        assert!(p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()), "{what}, element {i}: {p:e} vs {q:e}");
    }
}

/// `same_bytes` for a result of dtype `d`: a 16-bit float's NaNs match any NaN, a bool's bytes must be equal.
fn same_values(what: &str, d: DType, fa: &[u8], fb: &[u8]) {
    let nan = match d {
        DType::F32 => return same_bytes(what, fa, fb),
        DType::F16 => 0x7c00,
        DType::BF16 => 0x7f80,
        _ => return assert_eq!(fa, fb, "{what}"),
    };
    assert_eq!(fa.len(), fb.len(), "{what}: size");
    for (i, (p, q)) in fa.chunks_exact(2).zip(fb.chunks_exact(2)).enumerate() {
        let (p, q) = (u16::from_le_bytes([p[0], p[1]]), u16::from_le_bytes([q[0], q[1]]));
        assert!(p == q || (p & 0x7fff > nan && q & 0x7fff > nan), "{what}, element {i}: {p:#06x} vs {q:#06x}");
    }
}

fn every_device(f: impl Fn(DeviceId) -> Result<()>) -> Result<()> {
    let d = devices();
    f(d.cpu)?;
    for id in d.checked() {
        f(id)?;
    }
    Ok(())
}

#[test]
fn fused_steps_over_edge_values() -> Result<()> {
    let v = edge_f32();
    every_device(|dev| {
        // Every pair of edge values: a column against a row.
        let ins = vec![from_f32(&v, &[v.len(), 1], dev)?, from_f32(&v, &[1, v.len()], dev)?];
        same("add", &x(0).add(x(1)), &ins)?;
        same("mul", &x(0).mul(x(1)), &ins)?;
        same("div", &x(0).div(x(1)), &ins)?;
        same("maximum", &x(0).maximum(x(1)), &ins)?;
        same("sqrt, neg", &x(0).sqrt().add(x(1).neg()), &ins)?;
        same("constants", &x(0).scale(0.3).add(Expr::Const(-1e-30)).div(x(1).add(Expr::Const(2.5))), &ins)
    })
}

#[test]
fn fused_optimizer_formulas_on_strided_and_broadcast_inputs() -> Result<()> {
    every_device(|dev| {
        let g = &mut Gen(7);
        let p = random_f32(g, &[9, 13], -2.0, 2.0, dev)?.transpose(0, 1)?;
        let m = random_f32(g, &[13, 9], -1.0, 1.0, dev)?;
        let v = random_f32(g, &[13, 9], 0.0, 1e-3, dev)?;
        let grad = random_f32(g, &[9], -1.0, 1.0, dev)?;
        let ins = vec![p, m, v];
        // Adam's parameter update, its moments, and AdamW's decay.
        let denom = x(2).sqrt().div(Expr::Const(0.031)).add(Expr::Const(1e-8));
        same("adam", &x(0).scale(0.99999).add(x(1).div(denom).scale(-1e-3)), &ins)?;
        same("lerp", &x(1).add(x(0).sub(x(1)).scale(0.1)), &ins)?;
        same("second moment", &x(2).scale(0.999).add(x(0).mul(x(0)).scale(1e-3)), &ins)?;
        // A broadcast row, and a right-nested sum that fills the kernel's stack of 8 values.
        let deep = (1..8).fold(x(1).sqrt(), |e, k| if k % 2 == 0 { x(0).div(e) } else { x(1).add(e) });
        same("deep", &deep, &[ins[1].clone(), grad])
    })
}

/// `chain` run eagerly (each op its own kernel) and lazily (the planner fuses it) past `FUSED_HOT` times, so that on
/// a GPU the program runs on the generic kernel, then on its own straight-line kernel (every GPU here interprets new
/// programs first, `interpret_first`): the bytes must agree every time, and the lazy runs must fuse. Eager mode is
/// global: one `planned` runs at a time, and the other tests here give the same bytes either way.
fn planned(what: &str, chain: impl Fn() -> Result<Tensor>) -> Result<()> {
    static ONE: Mutex<()> = Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    for (_, gpu) in &devices().gpus {
        gpu.interpret_first();
    }
    set_eager(true);
    let unfused = chain().and_then(|x| bytes(&x));
    set_eager(false);
    let unfused = unfused?;
    for run in 0..=FUSED_HOT {
        let before = get(Counter::NodesFused);
        let out = chain()?;
        let fused = bytes(&out)?;
        assert!(get(Counter::NodesFused) > before, "{what}: nothing fused");
        same_values(&format!("{what}, run {run}"), out.dtype(), &fused, &unfused);
    }
    Ok(())
}

#[test]
fn planner_fusion_of_every_unary_and_binary_op_over_edge_values() -> Result<()> {
    let v = edge_f32();
    every_device(|dev| {
        let (a, b) = (from_f32(&v, &[v.len(), 1], dev)?, from_f32(&v, &[1, v.len()], dev)?);
        let tensor = |x: &Tensor| Operand::Tensor(x.clone());
        let generated = get(Counter::KernelsGenerated);
        for op in UnaryOp::ALL {
            planned(op.name(), || Tensor::mul(&Tensor::add(&a, &b)?.unary(op)?, &b))?;
        }
        for op in BinaryOp::ALL {
            // Ops float32 cannot take (the bitwise ones) raise alike either way; comparisons make bool, which
            // ends a program, so their chains fuse the steps before.
            if binary(&tensor(&a), &tensor(&b), op).is_err() {
                continue;
            }
            planned(op.name(), || {
                let half = binary(&tensor(&a), &Operand::Scalar(Scalar::Float(0.3)), BinaryOp::Mul)?;
                Tensor::add(&binary(&tensor(&half.neg()?), &tensor(&b), op)?, &a)
            })?;
        }
        // Every chain's program came back: a GPU generated its kernel (the CPU interprets programs).
        let made = get(Counter::KernelsGenerated) - generated;
        let gpu = devices().gpus.iter().any(|(id, _)| *id == dev);
        assert!(!gpu || made >= (UnaryOp::ALL.len() + 10) as u64, "{made} kernels generated");
        Ok(())
    })
}

#[test]
fn planner_fusion_of_comparisons_where_and_casts_over_edge_values() -> Result<()> {
    let v = edge_f32();
    every_device(|dev| {
        let (a, b) = (from_f32(&v, &[v.len(), 1], dev)?, from_f32(&v, &[1, v.len()], dev)?);
        let tensor = |x: &Tensor| Operand::Tensor(x.clone());
        for op in BinaryOp::ALL.into_iter().filter(|op| op.rule() == BinaryRule::Compare) {
            let what = format!("where over {}", op.name());
            planned(&what, || {
                let (p, q) = (Tensor::mul(&a, &b)?, Tensor::sub(&b, &a)?);
                where_(&binary(&tensor(&a), &tensor(&b), op)?, &tensor(&p), &tensor(&q))
            })?;
            // The comparison's bool is the program's output.
            planned(&format!("{} of products", op.name()), || binary(&tensor(&Tensor::mul(&a, &b)?), &tensor(&b), op))?;
        }
        for d in [DType::F16, DType::BF16, DType::Bool] {
            let name = d.name();
            // Through the dtype and back, into more arithmetic; and the dtype as the output.
            planned(&format!("through {name}"), || {
                Tensor::add(&Tensor::mul(&a, &b)?.to_dtype(d)?.to_dtype(DType::F32)?, &a)
            })?;
            planned(&format!("{name} out"), || Tensor::add(&a, &b)?.to_dtype(d))?;
        }
        // A bool input read as the condition, and a comparison cast to float32 as a factor.
        let mask = binary(&tensor(&a), &tensor(&b), BinaryOp::Le)?;
        vkml_core::tensor::realize::realize(&[&mask])?;
        planned("bool input", || where_(&mask, &tensor(&Tensor::add(&a, &b)?), &Operand::Scalar(Scalar::Float(0.0))))?;
        planned("float of a comparison", || {
            Tensor::mul(
                &binary(&tensor(&a), &Operand::Scalar(Scalar::Float(0.0)), BinaryOp::Gt)?.to_dtype(DType::F32)?,
                &b,
            )
        })
    })
}
