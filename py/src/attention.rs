//! Attention for Python: `F.scaled_dot_product_attention` and the forward that `nn.MultiheadAttention` calls.

use pyo3::prelude::*;

use vkml_core::nn::attention::{multi_head_attention, scaled_dot_product_attention as sdpa, InProj, Mha, MhaCall};

use crate::convert::OrPy;
use crate::pytensor::Tensor;

fn core(t: &Option<PyRef<'_, Tensor>>) -> Option<vkml_core::api::Tensor> {
    t.as_ref().map(|t| t.0.clone())
}

#[pyfunction]
#[pyo3(signature = (query, key, value, attn_mask = None, dropout_p = 0.0, is_causal = false, scale = None, enable_gqa = false))]
#[allow(clippy::too_many_arguments)]
pub fn scaled_dot_product_attention(
    query: PyRef<'_, Tensor>,
    key: PyRef<'_, Tensor>,
    value: PyRef<'_, Tensor>,
    attn_mask: Option<PyRef<'_, Tensor>>,
    dropout_p: f64,
    is_causal: bool,
    scale: Option<f64>,
    enable_gqa: bool,
) -> PyResult<Tensor> {
    if enable_gqa {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "scaled_dot_product_attention: enable_gqa=True is not supported (repeat the key/value heads instead)",
        ));
    }
    let mask = core(&attn_mask);
    Ok(Tensor(sdpa(&query.0, &key.0, &value.0, mask.as_ref(), dropout_p, is_causal, scale).py()?))
}

/// nn.MultiheadAttention's forward: (output, weights or None). The projection is the packed `in_proj_weight`, or
/// `q_proj_weight`, `k_proj_weight` and `v_proj_weight` when that is None.
#[pyfunction]
#[pyo3(signature = (query, key, value, num_heads, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias,
    dropout_p, training, batch_first, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal,
    q_proj_weight = None, k_proj_weight = None, v_proj_weight = None, bias_k = None, bias_v = None,
    add_zero_attn = false))]
#[allow(clippy::too_many_arguments)]
pub fn _multi_head_attention(
    query: PyRef<'_, Tensor>,
    key: PyRef<'_, Tensor>,
    value: PyRef<'_, Tensor>,
    num_heads: usize,
    in_proj_weight: Option<PyRef<'_, Tensor>>,
    in_proj_bias: Option<PyRef<'_, Tensor>>,
    out_proj_weight: PyRef<'_, Tensor>,
    out_proj_bias: Option<PyRef<'_, Tensor>>,
    dropout_p: f64,
    training: bool,
    batch_first: bool,
    key_padding_mask: Option<PyRef<'_, Tensor>>,
    need_weights: bool,
    attn_mask: Option<PyRef<'_, Tensor>>,
    average_attn_weights: bool,
    is_causal: bool,
    q_proj_weight: Option<PyRef<'_, Tensor>>,
    k_proj_weight: Option<PyRef<'_, Tensor>>,
    v_proj_weight: Option<PyRef<'_, Tensor>>,
    bias_k: Option<PyRef<'_, Tensor>>,
    bias_v: Option<PyRef<'_, Tensor>>,
    add_zero_attn: bool,
) -> PyResult<(Tensor, Option<Tensor>)> {
    let (ib, ob, kpm, am) = (core(&in_proj_bias), core(&out_proj_bias), core(&key_padding_mask), core(&attn_mask));
    let (packed, sq, sk, sv) =
        (core(&in_proj_weight), core(&q_proj_weight), core(&k_proj_weight), core(&v_proj_weight));
    let in_proj =
        match (&packed, &sq, &sk, &sv) {
            (Some(w), _, _, _) => InProj::Packed(w),
            (None, Some(q), Some(k), Some(v)) => InProj::Separate { q, k, v },
            _ => return Err(pyo3::exceptions::PyValueError::new_err(
                "multi_head_attention: give in_proj_weight, or all of q_proj_weight, k_proj_weight and v_proj_weight",
            )),
        };
    let (bk, bv) = (core(&bias_k), core(&bias_v));
    let m = Mha {
        num_heads,
        in_proj,
        in_proj_bias: ib.as_ref(),
        bias_k: bk.as_ref(),
        bias_v: bv.as_ref(),
        add_zero_attn,
        out_proj_weight: &out_proj_weight.0,
        out_proj_bias: ob.as_ref(),
        dropout_p,
        training,
        batch_first,
    };
    let call = MhaCall {
        key_padding_mask: kpm.as_ref(),
        attn_mask: am.as_ref(),
        need_weights,
        average_attn_weights,
        is_causal,
    };
    let (out, w) = multi_head_attention(&m, &query.0, &key.0, &value.0, &call).py()?;
    Ok((Tensor(out), w.map(Tensor)))
}
