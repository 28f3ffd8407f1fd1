"""`vkml.nn.functional`: torch's functional forms; the math is Rust (vkml_core::api::nn)."""

from .._vkml import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    celu,
    conv1d,
    conv2d,
    cross_entropy,
    dropout,
    elu,
    gelu,
    group_norm,
    hardsigmoid,
    hardswish,
    hardtanh,
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
    relu6,
    selu,
    sigmoid,
    silu,
    softmax,
    softplus,
    softsign,
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
]
