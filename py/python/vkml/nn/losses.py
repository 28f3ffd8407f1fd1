"""The loss functions, dropout and average pooling with torch's full parameter lists, in torch's positional order:
the legacy `size_average`/`reduce` flags, the per-element `weight` of l1/mse/huber, `inplace`, and avg_pool2d's
`ceil_mode`, `count_include_pad` and `divisor_override`. The math is the Rust functions of `_vkml`."""

import math

from .. import _keywords, _vkml

_legacy = _keywords.legacy_reduction


def _reduce(loss, reduction, total):
    """torch's reduction of a weighted elementwise loss: `total` divides the sum for 'mean'."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / total
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _weighted(name, elementwise, input, weight, reduction, mean_by_weight=True):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{name}(): Weights and input must have the same size.")
    loss = elementwise * weight
    return _reduce(loss, reduction, weight.sum() if mean_by_weight else loss.numel())


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy(size_average, reduce, reduction)
    if weight is None:
        return _vkml.mse_loss(input, target, reduction)
    return _weighted("mse_loss", _vkml.mse_loss(input, target, "none"), input, weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy(size_average, reduce, reduction)
    if weight is None:
        return _vkml.l1_loss(input, target, reduction)
    return _weighted("l1_loss", _vkml.l1_loss(input, target, "none"), input, weight, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """torch's weighted 'mean' is the plain mean of the weighted losses (unlike mse_loss and l1_loss)."""
    if weight is None:
        return _vkml.huber_loss(input, target, reduction, delta)
    loss = _vkml.huber_loss(input, target, "none", delta)
    return _weighted("huber_loss", loss, input, weight, reduction, mean_by_weight=False)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _vkml.smooth_l1_loss(input, target, _legacy(size_average, reduce, reduction), beta)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):  # fmt: skip
    reduction = _legacy(size_average, reduce, reduction)
    return _vkml.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _vkml.nll_loss(input, target, weight, ignore_index, _legacy(size_average, reduce, reduction))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _vkml.binary_cross_entropy(input, target, weight, _legacy(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    reduction = _legacy(size_average, reduce, reduction)
    return _vkml.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    return _vkml.kl_div(input, target, _legacy(size_average, reduce, reduction), log_target)


def dropout(input, p=0.5, training=True, inplace=False):
    return _keywords.inplace(input, _vkml.dropout(input, p, training), inplace)


def _pair(v, name):
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) != 2 or not all(isinstance(x, int) for x in v):
        raise TypeError(f"avg_pool2d(): {name} must be an int or a pair of ints, got {v!r}")
    return v


def _pooled_size(size, k, s, p, ceil_mode):
    """torch's pooling output size: a last window in ceil mode must start inside the input or its left padding."""
    span = size + 2 * p - k
    out = (math.ceil(span / s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    if not ceil_mode and count_include_pad and divisor_override is None:
        return _vkml.avg_pool2d(input, kernel_size, stride, padding)
    (kh, kw), (ph, pw) = _pair(kernel_size, "kernel_size"), _pair(padding, "padding")
    sh, sw = _pair(kernel_size if stride is None or stride == [] else stride, "stride")
    if divisor_override is not None and divisor_override <= 0:
        raise ValueError("avg_pool2d(): divisor must be not zero")
    if input.ndim != 4 or ph > kh // 2 or pw > kw // 2:
        return _vkml.avg_pool2d(input, kernel_size, stride, padding)  # its own error names the problem
    h, w = input.shape[-2:]
    oh, ow = _pooled_size(h, kh, sh, ph, ceil_mode), _pooled_size(w, kw, sw, pw, ceil_mode)
    # Windows that run past the padded input (ceil mode) read zeros from an extra pad on the bottom and right.
    eh, ew = max(0, (oh - 1) * sh + kh - (h + 2 * ph)), max(0, (ow - 1) * sw + kw - (w + 2 * pw))
    x = _vkml.pad(input, [pw, pw + ew, ph, ph + eh])
    sums = _vkml.avg_pool2d(x, (kh, kw), (sh, sw), 0) * (kh * kw)
    if divisor_override is not None:
        return sums / divisor_override
    # torch's divisor: the window's elements within the padded input (count_include_pad) or within the input.
    ones = (1, 1, h + 2 * ph, w + 2 * pw) if count_include_pad else (1, 1, h, w)
    edges = [0, ew, 0, eh] if count_include_pad else [pw, pw + ew, ph, ph + eh]
    mask = _vkml.pad(_vkml.ones(*ones, dtype=input.dtype, device=input.device), edges)
    counts = (_vkml.avg_pool2d(mask, (kh, kw), (sh, sw), 0) * (kh * kw)).round()
    return sums / counts
