//! Attention for JavaScript: the layout behind `nn.MultiheadAttention` (`scaled_dot_product_attention` is described
//! once, `core/src/nn/described.rs`).

use wasm_bindgen::prelude::*;

use vkml_core::nn::attention::MhaCall;
use vkml_core::nn::mha::{Mha as Layout, Run};

use crate::convert::{cores, named_shapes, opt_bool, opt_f64};
use crate::ops::int;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// nn.MultiheadAttention's layout (torch's constructor arguments), initialisation and forward.
#[wasm_bindgen(js_name = "_Mha")]
pub struct Mha(Layout);

#[wasm_bindgen(js_class = "_Mha")]
impl Mha {
    /// `new _Mha(embed_dim, num_heads, {bias, add_bias_kv, add_zero_attn, kdim, vdim})`.
    #[wasm_bindgen(constructor)]
    pub fn new(embed_dim: f64, num_heads: f64, options: JsValue) -> JsResult<Mha> {
        let dim = |key: &str| opt_f64(&options, key)?.map(|d| int(d, key)).transpose();
        let flag = |key: &str, default: bool| Ok::<_, JsValue>(opt_bool(&options, key)?.unwrap_or(default));
        let flags = [flag("bias", true)?, flag("add_bias_kv", false)?, flag("add_zero_attn", false)?];
        let (e, h) = (int(embed_dim, "embed_dim")?, int(num_heads, "num_heads")?);
        Ok(Mha(Layout::new(e, h, dim("kdim")?, dim("vdim")?, flags).js()?))
    }

    /// `[name, shape]` of every parameter, in torch's state_dict order.
    pub fn parameters(&self) -> js_sys::Array {
        named_shapes(self.0.parameters())
    }

    /// torch's initialisation of `params` (in `parameters()` order), in place.
    pub fn reset(&self, params: Vec<Tensor>) -> JsResult<()> {
        self.0.reset(&cores(&params)?).js()
    }

    /// `[output, weights]` (weights undefined unless need_weights) over `params` in `parameters()` order; options
    /// {key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal, dropout, training, batch_first},
    /// the masks passed apart (`kpm`, `mask`) as wasm-bindgen takes them over.
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        &self,
        params: Vec<Tensor>,
        query: &Tensor,
        key: &Tensor,
        value: &Tensor,
        kpm: Option<Tensor>,
        mask: Option<Tensor>,
        options: JsValue,
    ) -> JsResult<js_sys::Array> {
        let flag = |key: &str, default: bool| Ok::<_, JsValue>(opt_bool(&options, key)?.unwrap_or(default));
        let call = MhaCall {
            key_padding_mask: kpm.as_ref().map(Tensor::core).transpose()?,
            attn_mask: mask.as_ref().map(Tensor::core).transpose()?,
            need_weights: flag("need_weights", true)?,
            average_attn_weights: flag("average_attn_weights", true)?,
            is_causal: flag("is_causal", false)?,
        };
        let run = Run {
            dropout: opt_f64(&options, "dropout")?.unwrap_or(0.0),
            training: flag("training", false)?,
            batch_first: flag("batch_first", false)?,
        };
        let (out, w) = self.0.forward(&cores(&params)?, query.core()?, key.core()?, value.core()?, &call, run).js()?;
        let w = w.map_or(JsValue::UNDEFINED, |w| Tensor::wrap(w).into());
        Ok(js_sys::Array::of2(&Tensor::wrap(out).into(), &w))
    }
}
