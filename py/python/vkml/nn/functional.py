"""`vkml.nn.functional`: torch's functional forms; the math is Rust (vkml_core::api::nn)."""

from .. import _vkml
from .._vkml import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    celu,
    conv1d,
    conv2d,
    conv_transpose2d,
    cross_entropy,
    dropout,
    elu,
    embedding,
    gelu,
    group_norm,
    hardsigmoid,
    hardswish,
    hardtanh,
    huber_loss,
    interpolate,
    kl_div,
    l1_loss,
    layer_norm,
    leaky_relu,
    linear,
    log_softmax,
    logsigmoid,
    logsumexp,
    max_pool2d,
    mish,
    mse_loss,
    nll_loss,
    one_hot,
    pad,
    relu6,
    scaled_dot_product_attention,
    selu,
    sigmoid,
    silu,
    smooth_l1_loss,
    softmax,
    softplus,
    softsign,
)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """torch's functional multi-head attention over (L, N, E) inputs: a packed in_proj_weight, or q/k/v projections
    with use_separate_proj_weight; bias_k/bias_v and add_zero_attn append keys that every query sees."""
    if static_k is not None or static_v is not None:
        raise ValueError("multi_head_attention_forward: static_k/static_v are not supported")
    if query.shape[-1] != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {query.shape[-1]}")
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError(
                "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or v_proj_weight is None"
            )
        in_proj_weight = None
    return _vkml._multi_head_attention(
        query,
        key,
        value,
        num_heads,
        in_proj_weight,
        in_proj_bias,
        out_proj_weight,
        out_proj_bias,
        dropout_p,
        training,
        False,
        key_padding_mask,
        need_weights,
        attn_mask,
        average_attn_weights,
        is_causal,
        q_proj_weight=q_proj_weight,
        k_proj_weight=k_proj_weight,
        v_proj_weight=v_proj_weight,
        bias_k=bias_k,
        bias_v=bias_v,
        add_zero_attn=add_zero_attn,
    )


def tanh(input):
    return input.tanh()


def relu(input, inplace=False):
    if inplace:
        raise NotImplementedError("relu(inplace=True): in-place activations are not supported; use inplace=False")
    return input.relu()


__all__ = [
    "celu",
    "elu",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "logsigmoid",
    "mish",
    "relu6",
    "selu",
    "silu",
    "softplus",
    "softsign",
    "tanh",
    "batch_norm",
    "group_norm",
    "layer_norm",
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "max_pool2d",
    "cross_entropy",
    "dropout",
    "linear",
    "log_softmax",
    "logsumexp",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "sigmoid",
    "softmax",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "embedding",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "smooth_l1_loss",
    "pad",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
    "conv_transpose2d",
    "interpolate",
]
