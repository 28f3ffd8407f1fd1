"""`vkml.nn.functional`: torch's functional forms; the math is Rust (vkml_core::api::nn)."""

from .._vkml import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    conv1d,
    conv2d,
    cross_entropy,
    dropout,
    group_norm,
    layer_norm,
    linear,
    log_softmax,
    logsumexp,
    max_pool2d,
    mse_loss,
    nll_loss,
    sigmoid,
    softmax,
)


def relu(input, inplace=False):
    if inplace:
        raise NotImplementedError("relu(inplace=True): in-place activations are not supported; use inplace=False")
    return input.relu()


__all__ = [
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
    "relu",
    "sigmoid",
    "softmax",
]
