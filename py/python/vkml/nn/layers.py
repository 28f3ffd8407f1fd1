"""Layers with torch's parameter names, shapes and default initialisation, and the container, loss, dropout and shape
modules (those applying one function with their arguments, the activations and pools, are `applied.py`'s)."""

from collections import OrderedDict

from .. import _keywords, _vkml
from . import functional as F
from . import layout
from .applied import Applied, applied
from .module import Module
from .parameter import Parameter


def _weighted(module, weight, bias, device, dtype):
    """Hold a weight of shape `weight` and a bias of length `bias` (None: registered as None), started as torch
    does (vkml_core::nn::weighted)."""
    layout.hold(module, _vkml._Weighted(list(weight), bias), device, dtype)
    if bias is None:
        module.register_parameter("bias", None)


def _channels(module, in_channels, out_channels, groups):
    """A convolution's channel counts, divisible by `groups` as torch requires."""
    if in_channels % groups or out_channels % groups:
        raise ValueError("in_channels and out_channels must be divisible by groups")
    module.in_channels, module.out_channels, module.groups = in_channels, out_channels, groups


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x Wᵀ + b with `weight` (out_features, in_features) and `bias` (out_features), initialised as torch."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        _weighted(self, (out_features, in_features), out_features if bias else None, device, dtype)

    reset_parameters = layout.reset

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Embedding(Module):
    """Rows of `weight` (num_embeddings, embedding_dim), initialised N(0, 1) as torch; the padding row is zero and
    gets no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise ValueError("Embedding: max_norm, scale_grad_by_freq and sparse are not supported")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = None, norm_type
        self.scale_grad_by_freq, self.sparse = False, False
        embedding = _vkml._Weighted.embedding(num_embeddings, embedding_dim, padding_idx)
        if _weight is None:
            layout.hold(self, embedding, device, dtype)
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
            layout.adopt(self, embedding)

    reset_parameters = layout.reset

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, **kwargs):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze, **kwargs)


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _single(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class _ConvNd(Module):
    """The shared shell of Conv1d and Conv2d: torch's parameters, `weight` (out, in/groups, *kernel) and `bias`
    (out), torch's default initialisation, and `forward` through `_conv` of the functional module."""

    def _tuple(self, v):
        return _pair(v)

    def _conv(self, *args):
        return F.conv2d(*args)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):  # fmt: skip
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode='{padding_mode}': only 'zeros' is supported")
        _channels(self, in_channels, out_channels, groups)
        t = self._tuple
        self.kernel_size, self.stride, self.dilation = t(kernel_size), t(stride), t(dilation)
        self.padding = padding if isinstance(padding, str) else t(padding)
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        _weighted(self, shape, out_channels if bias else None, device, dtype)

    reset_parameters = layout.reset

    def forward(self, input):
        return self._conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        no_padding = (self._tuple(0), "valid")
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
            + (f", padding={self.padding}" if self.padding not in no_padding else "")
            + (f", groups={self.groups}" if self.groups != 1 else "")
        )


class Conv1d(_ConvNd):
    """1-d convolution with torch's parameters: `weight` (out, in/groups, k), `bias` (out)."""

    def _tuple(self, v):
        return _single(v)

    def _conv(self, *args):
        return F.conv1d(*args)


class Conv2d(_ConvNd):
    """2-d convolution with torch's parameters: `weight` (out, in/groups, kh, kw), `bias` (out)."""


class ConvTranspose2d(Module):
    """Transposed 2-d convolution with torch's parameters: `weight` (in, out/groups, kH, kW), `bias` (out), and
    torch's default initialisation."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):  # fmt: skip
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        _channels(self, in_channels, out_channels, groups)
        self.kernel_size, self.stride, self.padding = _pair(kernel_size), _pair(stride), _pair(padding)
        self.output_padding, self.dilation = _pair(output_padding), _pair(dilation)
        shape = (in_channels, out_channels // groups, *self.kernel_size)
        _weighted(self, shape, out_channels if bias else None, device, dtype)

    reset_parameters = layout.reset

    def forward(self, input, output_size=None):
        if output_size is not None:
            raise ValueError("ConvTranspose2d: output_size is not supported; use output_padding")
        return F.conv_transpose2d(
            input, self.weight, self.bias, self.stride, self.padding, self.output_padding, self.groups, self.dilation
        )

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0, 0):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Upsample(Module):
    """torch.nn.Upsample: F.interpolate with fixed size or scale_factor."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input):
        return F.interpolate(
            input, self.size, self.scale_factor, self.mode, self.align_corners, self.recompute_scale_factor
        )

    def extra_repr(self):
        info = f"size={self.size}" if self.size is not None else f"scale_factor={float(self.scale_factor)}"
        return info + f", mode='{self.mode}'"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        d = self.dim % input.dim()
        shape = tuple(input.shape[:d]) + self.unflattened_size + tuple(input.shape[d + 1 :])
        return input.reshape(*shape)


class _Indexed(Module):
    """Submodules numbered in order (Sequential, ModuleList): length, iteration, indexing and slicing, append."""

    def _from(self, modules):
        raise NotImplementedError

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        mods = list(self._modules.values())
        return self._from(mods[i]) if isinstance(i, slice) else mods[i]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_Indexed):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for m in args:
                self.append(m)

    def _from(self, modules):
        return Sequential(*modules)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input


class ModuleList(_Indexed):
    def __init__(self, modules=None):
        super().__init__()
        self.extend(modules or [])

    def _from(self, modules):
        return ModuleList(modules)

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        for k, m in (modules or {}).items():
            self.add_module(k, m)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class _Loss(Module):
    """torch's loss base: the legacy `size_average`/`reduce` flags, given, decide `reduction` as in torch."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _keywords.legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


Softmax = applied("Softmax", "softmax", defaults={"dim": None})
LogSoftmax = applied("LogSoftmax", "log_softmax", defaults={"dim": None})


class Hardtanh(Applied):
    """torch's deprecated `min_value`/`max_value` spellings, when given, replace `min_val`/`max_val`."""

    _fn = "hardtanh"
    _names = ("min_val", "max_val", "inplace")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
