"""`vkml.nn.functional`: torch's functional forms; the math is Rust (vkml_core::api::nn)."""

import inspect
import warnings

from .. import _keywords, _vkml
from .._vkml import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    celu,
    conv1d,
    conv2d,
    conv_transpose2d,
    elu,
    embedding,
    fold,
    gelu,
    group_norm,
    hardsigmoid,
    hardswish,
    hardtanh,
    interpolate,
    layer_norm,
    leaky_relu,
    linear,
    logsigmoid,
    logsumexp,
    max_pool2d,
    mish,
    one_hot,
    pad,
    relu6,
    scaled_dot_product_attention,
    selu,
    sigmoid,
    silu,
    softplus,
    softsign,
    unfold,
)
from .losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)


def _softmax_dim(input, dim, name, stacklevel):
    """torch's implicit dim (deprecated there, with a warning placed `stacklevel` frames up): 0 for 0-, 1- and 3-D
    inputs, else 1."""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if input.ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _vkml.softmax(input, _softmax_dim(input, dim, "softmax", _stacklevel), dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _vkml.log_softmax(input, _softmax_dim(input, dim, "log_softmax", _stacklevel), dtype)


def _inplace(fn, **shown):
    """`fn` with torch's `inplace=`: True writes the result into the input (a new version of its storage).
    `shown` gives the defaults its signature shows where pyo3's shows `...` (a negative number); `fn` applies them."""
    sig = inspect.signature(fn)
    flag = inspect.Parameter("inplace", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=False)
    params = [p.replace(default=shown.get(p.name, p.default)) for p in sig.parameters.values()]
    sig = sig.replace(parameters=[*params, flag])

    def call(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)  # no defaults filled in: the Rust function applies its own
        inplace = bound.arguments.pop("inplace", False)
        return _keywords.inplace(bound.arguments["input"], fn(**bound.arguments), inplace)

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__signature__ = sig
    return call


relu6, leaky_relu, elu, selu, celu, silu, mish, hardsigmoid, hardswish = map(
    _inplace, (relu6, leaky_relu, elu, selu, celu, silu, mish, hardsigmoid, hardswish)
)
hardtanh = _inplace(hardtanh, min_val=-1.0)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
                                 bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):  # fmt: skip
    """torch's functional multi-head attention over (L, N, E) inputs: a packed in_proj_weight, or q/k/v projections
    with use_separate_proj_weight; bias_k/bias_v and add_zero_attn append keys that every query sees."""
    if static_k is not None or static_v is not None:
        raise ValueError("multi_head_attention_forward: static_k/static_v are not supported")
    if query.shape[-1] != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {query.shape[-1]}")
    if use_separate_proj_weight and (q_proj_weight is None or k_proj_weight is None or v_proj_weight is None):
        raise AssertionError(
            "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or v_proj_weight is None"
        )
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    sep = use_separate_proj_weight
    kdim, vdim = (k_proj_weight.shape[1], v_proj_weight.shape[1]) if sep else (None, None)
    layout = _vkml._Mha(embed_dim_to_check, num_heads, in_proj_bias is not None, bias_k is not None, add_zero_attn,
                        kdim, vdim, packed=not sep, out_proj_bias=out_proj_bias is not None)  # fmt: skip
    given = [q_proj_weight, k_proj_weight, v_proj_weight] if sep else [in_proj_weight]
    given += [in_proj_bias, bias_k, bias_v, out_proj_weight, out_proj_bias]
    params = [p for p in given if p is not None]
    return layout.forward(params, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights,
                          is_causal, dropout_p, training, False)  # fmt: skip


def tanh(input):
    return input.tanh()


def relu(input, inplace=False):
    return _keywords.inplace(input, input.relu(), inplace)


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
    "unfold",
    "fold",
]
