"""Normalisation layers with torch's parameters, buffers and defaults; the math is Rust
(vkml_core::api::norm)."""

from .. import _vkml, no_grad
from . import functional as F
from . import layout
from .module import Module


def _affine(module, shape, weight, bias, running_stats, device, dtype):
    """Hold torch's affine `weight` (ones) and `bias` (zeros) over `shape` where asked, and the running statistics
    where asked (vkml_core::nn::affine); parameters not held are registered as None, as torch does."""
    layout.hold(module, _vkml._Affine(list(shape), weight, bias, running_stats), device, dtype)
    for name in ("weight", "bias"):
        if name not in module._layout_names:
            module.register_parameter(name, None)


class _BatchNorm(Module):
    _dims: tuple = ()

    def __init__(
        self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None
    ):
        super().__init__()
        if momentum is None:
            raise NotImplementedError("momentum=None (a cumulative average) is not supported; pass a float")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine(self, (num_features,), affine, affine, track_running_stats, device, dtype)
        if not track_running_stats:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    reset_parameters = layout.reset
    reset_running_stats = layout.reset_running_stats

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {input.dim()}D input)")
        use_batch = self.training or self.running_mean is None
        if self.training and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            use_batch,
            self.momentum,
            self.eps,
        )

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        _affine(self, shape, elementwise_affine, elementwise_affine and bias, False, device, dtype)

    reset_parameters = layout.reset

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine(self, (num_channels,), affine, affine, False, device, dtype)

    reset_parameters = layout.reset

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)
