"""Layers whose parameters a Rust layout names (vkml_core::nn::weighted, ::rnn, ::mha): the module keeps the layout
as `_layout`, holds the parameters under its names (a dotted name inside a submodule) and hands them back in the
layout's order."""

from functools import reduce

from .. import _vkml
from .parameter import Parameter


def hold(module, layout, device=None, dtype=None):
    """Register the layout's parameters on `module` (whose `_layout` it is) as zeros, then start them as torch
    does."""
    names = []
    for name, shape in layout.parameters():
        owner, _, leaf = name.rpartition(".")
        target = reduce(getattr, owner.split("."), module) if owner else module
        setattr(target, leaf, Parameter(_vkml.zeros(*shape, device=device, dtype=dtype)))
        names.append(name)
    object.__setattr__(module, "_layout_names", names)
    reset(module)


def reset(module):
    """Start the module's parameters again as torch does (its `reset_parameters`)."""
    module._layout.reset(params(module))


def params(module):
    """The module's current parameters in its layout's order."""
    return [reduce(getattr, n.split("."), module) for n in module._layout_names]
