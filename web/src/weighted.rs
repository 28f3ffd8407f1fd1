//! The layout of Linear, the convolutions and Embedding for JavaScript (`vkml_core::nn::weighted`): their parameters' names,
//! shapes and torch's initialisation.

use wasm_bindgen::prelude::*;

use vkml_core::nn::weighted::Weighted as Layout;

use crate::convert::{cores, named_shapes, shape_of, usize_of};
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

#[wasm_bindgen(js_name = "_Weighted")]
pub struct Weighted(Layout);

#[wasm_bindgen(js_class = "_Weighted")]
impl Weighted {
    /// `new _Weighted(weight_shape, bias_length)`: no bias when the length is undefined.
    #[wasm_bindgen(constructor)]
    pub fn new(weight: JsValue, bias: Option<f64>) -> JsResult<Weighted> {
        let bias = bias.map(|n| usize_of(n, "bias")).transpose()?;
        Ok(Weighted(Layout::fan_in(shape_of(&weight, "weight")?, bias)))
    }

    /// `_Weighted.embedding(rows, dim, padding_idx)`: Embedding's weight, N(0, 1) with the padding row (non-negative,
    /// or undefined) zero.
    pub fn embedding(rows: f64, dim: f64, padding_idx: Option<f64>) -> JsResult<Weighted> {
        let padding_idx = padding_idx.map(|p| usize_of(p, "padding_idx")).transpose()?;
        Ok(Weighted(
            Layout::embedding(usize_of(rows, "num_embeddings")?, usize_of(dim, "embedding_dim")?, padding_idx).js()?,
        ))
    }

    /// `[name, shape]` of every parameter.
    pub fn parameters(&self) -> js_sys::Array {
        named_shapes(self.0.parameters())
    }

    /// torch's initialisation of `params` (in `parameters()` order), in place.
    pub fn reset(&self, params: Vec<Tensor>) -> JsResult<()> {
        self.0.reset(&cores(&params)?).js()
    }
}
