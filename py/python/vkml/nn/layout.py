"""Layers whose parameters a Rust layout names (vkml_core::nn::rnn, vkml_core::nn::mha): the module holds them
under those names (a dotted name inside a submodule) and hands them back in the layout's order."""

from functools import reduce

from .. import _vkml
from .parameter import Parameter


def hold(module, layout, device=None, dtype=None):
    """Register the layout's parameters on `module` as zeros, then start them as torch does."""
    names = []
    for name, shape in layout.parameters():
        owner, _, leaf = name.rpartition(".")
        target = reduce(getattr, owner.split("."), module) if owner else module
        setattr(target, leaf, Parameter(_vkml.zeros(*shape, device=device, dtype=dtype)))
        names.append(name)
    object.__setattr__(module, "_layout_names", names)
    layout.reset(params(module))


def params(module):
    """The module's current parameters in its layout's order."""
    return [reduce(getattr, n.split("."), module) for n in module._layout_names]
