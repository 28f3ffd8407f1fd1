//! Attention for Python: the layout behind `nn.MultiheadAttention` (`F.scaled_dot_product_attention` is described
//! once, `core/src/nn/described.rs`).

use pyo3::prelude::*;

use vkml_core::nn::attention::MhaCall;
use vkml_core::nn::mha::{Mha, Run};

use crate::convert::{cores, OrPy};
use crate::pytensor::Tensor;

fn core(t: &Option<PyRef<'_, Tensor>>) -> Option<vkml_core::api::Tensor> {
    t.as_ref().map(|t| t.0.clone())
}

/// nn.MultiheadAttention's layout (torch's constructor arguments), initialisation and forward.
#[pyclass(frozen, name = "_Mha", module = "vkml._vkml")]
pub struct PyMha(Mha);

#[pymethods]
impl PyMha {
    #[new]
    /// `packed` and `out_proj_bias` (default: as torch's module decides them) are for the functional form.
    #[pyo3(signature = (embed_dim, num_heads, bias, add_bias_kv, add_zero_attn, kdim, vdim, packed = None,
        out_proj_bias = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        embed_dim: i64,
        num_heads: i64,
        bias: bool,
        add_bias_kv: bool,
        add_zero_attn: bool,
        kdim: Option<i64>,
        vdim: Option<i64>,
        packed: Option<bool>,
        out_proj_bias: Option<bool>,
    ) -> PyResult<Self> {
        let mut m = Mha::new(embed_dim, num_heads, kdim, vdim, [bias, add_bias_kv, add_zero_attn]).py()?;
        m.packed = packed.unwrap_or(m.packed);
        m.out_proj_bias = out_proj_bias.unwrap_or(m.out_proj_bias);
        Ok(Self(m))
    }

    /// (name, shape) of every parameter, in torch's state_dict order.
    fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        self.0.parameters()
    }

    /// torch's initialisation of `params` (in `parameters()` order), in place.
    fn reset(&self, params: Vec<PyRef<'_, Tensor>>) -> PyResult<()> {
        self.0.reset(&cores(&params)).py()
    }

    /// (output, weights or None) over `params` in `parameters()` order.
    #[pyo3(signature = (params, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights,
        is_causal, dropout, training, batch_first))]
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        params: Vec<PyRef<'_, Tensor>>,
        query: PyRef<'_, Tensor>,
        key: PyRef<'_, Tensor>,
        value: PyRef<'_, Tensor>,
        key_padding_mask: Option<PyRef<'_, Tensor>>,
        need_weights: bool,
        attn_mask: Option<PyRef<'_, Tensor>>,
        average_attn_weights: bool,
        is_causal: bool,
        dropout: f64,
        training: bool,
        batch_first: bool,
    ) -> PyResult<(Tensor, Option<Tensor>)> {
        let (kpm, am) = (core(&key_padding_mask), core(&attn_mask));
        let call = MhaCall {
            key_padding_mask: kpm.as_ref(),
            attn_mask: am.as_ref(),
            need_weights,
            average_attn_weights,
            is_causal,
        };
        let run = Run { dropout, training, batch_first };
        let (out, w) = self.0.forward(&cores(&params), &query.0, &key.0, &value.0, &call, run).py()?;
        Ok((Tensor(out), w.map(Tensor)))
    }
}
