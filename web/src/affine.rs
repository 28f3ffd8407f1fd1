//! The layout of the normalisation layers for JavaScript (`vkml_core::nn::affine`): the affine parameters and
//! BatchNorm's running statistics, named, shaped and started as torch does.

use wasm_bindgen::prelude::*;

use vkml_core::nn::affine::Affine as Layout;

use crate::convert::{cores, named_shapes, shape_of};
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

#[wasm_bindgen(js_name = "_Affine")]
pub struct Affine(Layout);

#[wasm_bindgen(js_class = "_Affine")]
impl Affine {
    /// `new _Affine(shape, weight, bias, running_stats)`.
    #[wasm_bindgen(constructor)]
    pub fn new(shape: JsValue, weight: bool, bias: bool, running_stats: bool) -> JsResult<Affine> {
        Ok(Affine(Layout { shape: shape_of(&shape, "normalized shape")?, weight, bias, running_stats }))
    }

    /// `[name, shape]` of every parameter.
    pub fn parameters(&self) -> js_sys::Array {
        named_shapes(self.0.parameters())
    }

    /// `[name, shape, dtype]` of every buffer; the dtype undefined where it is the layer's.
    pub fn buffers(&self) -> js_sys::Array {
        let row = |(name, shape, dtype): (String, Vec<usize>, Option<vkml_core::base::dtype::DType>)| {
            let named = named_shapes(vec![(name, shape)]).get(0);
            let named: js_sys::Array = named.into();
            named.push(&dtype.map_or(JsValue::UNDEFINED, |d| d.name().into()));
            JsValue::from(named)
        };
        self.0.buffers().into_iter().map(row).collect()
    }

    /// torch's `reset_parameters` of `params` (in `parameters()` order), in place.
    pub fn reset(&self, params: Vec<Tensor>) -> JsResult<()> {
        self.0.reset(&cores(&params)?).js()
    }

    /// torch's `reset_running_stats` of `buffers` (in `buffers()` order), in place.
    pub fn reset_running_stats(&self, buffers: Vec<Tensor>) -> JsResult<()> {
        self.0.reset_running_stats(&cores(&buffers)?).js()
    }
}
