//! vkml for JavaScript (wasm-bindgen): the same engine compiled for wasm32, on the CPU oracle for now; the npm
//! package, async readback of GPU values and WebGPU come with the browser issue (#5).

use std::sync::{Arc, Once};

use wasm_bindgen::prelude::*;

use vkml_backend_cpu::CpuBackend;
use vkml_core::api::elementwise::{binary, sub};
use vkml_core::api::promote::Operand;
use vkml_core::api::realize::read_bytes;
use vkml_core::api::Tensor as Core;
use vkml_core::base::dtype::DType;
use vkml_core::dispatch;
use vkml_core::graph::op::BinaryOp;

static CPU: Once = Once::new();

fn cpu() -> Result<vkml_core::base::buffer::DeviceId, JsError> {
    CPU.call_once(|| {
        dispatch::register(Arc::new(CpuBackend::new()));
    });
    dispatch::find("cpu").map_err(err)
}

fn err(e: vkml_core::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// A float32 tensor on the CPU.
#[wasm_bindgen]
pub struct Tensor(Core);

#[wasm_bindgen]
impl Tensor {
    /// A tensor from values and a shape (`vkml.tensor` in the Python API).
    #[wasm_bindgen(constructor)]
    pub fn new(values: Vec<f32>, shape: Vec<usize>) -> Result<Tensor, JsError> {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok(Tensor(Core::from_bytes(bytes, &shape, DType::F32, cpu()?).map_err(err)?))
    }

    pub fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }

    pub fn matmul(&self, other: &Tensor) -> Result<Tensor, JsError> {
        Ok(Tensor(self.0.matmul(&other.0).map_err(err)?))
    }

    pub fn add(&self, other: &Tensor) -> Result<Tensor, JsError> {
        let (a, b) = (Operand::Tensor(self.0.clone()), Operand::Tensor(other.0.clone()));
        Ok(Tensor(binary(&a, &b, BinaryOp::Add).map_err(err)?))
    }

    pub fn sub(&self, other: &Tensor) -> Result<Tensor, JsError> {
        let (a, b) = (Operand::Tensor(self.0.clone()), Operand::Tensor(other.0.clone()));
        Ok(Tensor(sub(&a, &b).map_err(err)?))
    }

    pub fn relu(&self) -> Result<Tensor, JsError> {
        Ok(Tensor(self.0.relu().map_err(err)?))
    }

    pub fn sum(&self) -> Result<Tensor, JsError> {
        Ok(Tensor(self.0.sum(None, false).map_err(err)?))
    }

    /// The values, realizing the graph first.
    pub fn data(&self) -> Result<Vec<f32>, JsError> {
        let b = read_bytes(&self.0.to_dtype(DType::F32).map_err(err)?).map_err(err)?;
        Ok(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}
