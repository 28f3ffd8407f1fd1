"""The loss functions and dropout with torch's full parameter lists, in torch's positional order: the legacy
`size_average`/`reduce` flags, the per-element `weight` of l1/mse/huber, and `inplace`. The math is the Rust
functions of `_vkml`."""

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
