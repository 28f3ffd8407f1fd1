"""Layers whose parameters a Rust layout names (vkml_core::nn::weighted, ::affine, ::rnn, ::mha): the module keeps
the layout as `_layout`, holds the parameters (and the buffers the layout names) under its names (a dotted name
inside a submodule) and hands them back in the layout's order."""

from functools import reduce

from .. import _vkml
from .parameter import Parameter


def hold(module, layout, device=None, dtype=None):
    """Register the layout's parameters and buffers on `module` (whose `_layout` it is) as zeros, then start them as
    torch does."""
    adopt(module, layout)
    for name, shape in layout.parameters():
        owner, _, leaf = name.rpartition(".")
        target = reduce(getattr, owner.split("."), module) if owner else module
        setattr(target, leaf, Parameter(_vkml.zeros(*shape, device=device, dtype=dtype)))
    for name, shape, kind in _buffers(layout):
        module.register_buffer(
            name, _vkml.zeros(tuple(shape), device=device, dtype=getattr(_vkml, kind) if kind else dtype)
        )
    reset(module)


def adopt(module, layout):
    """Name the layout's parameters and buffers as the module's, for a module given its parameters (a pretrained
    Embedding) as well as one that `hold` fills."""
    object.__setattr__(module, "_layout", layout)
    object.__setattr__(module, "_layout_names", [name for name, _ in layout.parameters()])
    object.__setattr__(module, "_buffer_names", [name for name, _, _ in _buffers(layout)])


def _buffers(layout):
    return layout.buffers() if hasattr(layout, "buffers") else []


def reset(module):
    """Start the module's parameters (and running statistics) again as torch does (its `reset_parameters`)."""
    reset_running_stats(module)
    module._layout.reset(params(module))


def reset_running_stats(module):
    """Start the buffers the layout names again as torch does (BatchNorm's `reset_running_stats`)."""
    if module._buffer_names:
        module._layout.reset_running_stats([getattr(module, n) for n in module._buffer_names])


def params(module):
    """The module's current parameters in its layout's order."""
    return [reduce(getattr, n.split("."), module) for n in module._layout_names]
