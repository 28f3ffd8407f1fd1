//! The Rust API in one page: a tensor on the CPU oracle (or a Vulkan device, given the backend crate), lazy math
//! with operators, autograd, and reading the result. Run with `cargo run -p vkml-core --example tensor`.

use std::sync::Arc;

use vkml_core::api::Tensor;
use vkml_core::autograd::backward;
use vkml_core::base::dtype::DType;
use vkml_core::graph::op::UnaryOp;
use vkml_core::tensor::realize::read_bytes;

fn floats(t: &Tensor) -> vkml_core::Result<Vec<f32>> {
    let bytes = read_bytes(t)?;
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn main() -> vkml_core::Result<()> {
    let cpu = vkml_core::dispatch::register(Arc::new(vkml_backend_cpu::CpuBackend::new()));
    let x = Tensor::linspace(-1.0, 1.0, 5, DType::F32, cpu)?;
    x.set_requires_grad(true)?;
    // y = sinc(x)·(x + 1)² − 1/2: nothing runs until a value is read.
    let shifted = (&x + 1.0)?;
    let y = ((&x.unary(UnaryOp::Sinc)? * &(&shifted * &shifted)?)? - 0.5)?;
    let loss = y.sum(None, false)?;
    backward(&[(loss.clone(), None)], false, None)?;
    println!("x    = {:?}", floats(&x)?);
    println!("y    = {:?}", floats(&y)?);
    println!("loss = {:?}", floats(&loss)?);
    if let Some(g) = x.grad() {
        println!("dloss/dx = {:?}", floats(&g)?);
    }
    Ok(())
}
