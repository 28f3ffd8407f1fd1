"""Tensor methods with torch's keywords that the Rust class does not take itself (`alpha=`, `dtype=`,
`memory_format=`, `decimals=`, ...): each wraps the Rust method of the same name, which does the work."""

from typing import Any

from . import _keywords, _methods  # noqa: F401 - binds round (and the other unary methods) first
from ._vkml import Tensor

_rust = {
    n: getattr(Tensor, n)
    for n in "add sub add_ sub_ div_ clone contiguous cpu is_contiguous copy_ expand max min mean numpy round "
    "split to view normal_ uniform_".split()
}


def _scaled(other, alpha):
    return other if alpha == 1 else other * alpha


def add(self, other, *, alpha=1) -> Tensor:
    return _rust["add"](self, _scaled(other, alpha))


def sub(self, other, *, alpha=1) -> Tensor:
    return _rust["sub"](self, _scaled(other, alpha))


def add_(self, other, *, alpha=1) -> Tensor:
    return _rust["add_"](self, _scaled(other, alpha))


def sub_(self, other, *, alpha=1) -> Tensor:
    return _rust["sub_"](self, _scaled(other, alpha))


def div_(self, other, *, rounding_mode=None) -> Tensor:
    if rounding_mode is None:
        return _rust["div_"](self, other)
    return self.copy_(self.div(other, rounding_mode=rounding_mode))


def clone(self, *, memory_format=None) -> Tensor:
    _keywords.check_memory_format(memory_format, "clone")
    return _rust["clone"](self)


def contiguous(self, memory_format=None) -> Tensor:
    _keywords.check_memory_format(memory_format, "contiguous")
    return _rust["contiguous"](self)


def cpu(self, memory_format=None) -> Tensor:
    _keywords.check_memory_format(memory_format, "cpu")
    return _rust["cpu"](self)


def is_contiguous(self, memory_format=None) -> bool:
    _keywords.check_memory_format(memory_format, "is_contiguous")
    return _rust["is_contiguous"](self)


def copy_(self, other, non_blocking=False) -> Tensor:
    """torch names the source `other`; `non_blocking` only lets torch overlap host copies, so it changes nothing."""
    return _rust["copy_"](self, other)


def expand(self, *sizes, size=None, implicit=False) -> Tensor:
    return _rust["expand"](self, *sizes, size=size)


def max(self, dim=None, keepdim=False, *, other=None) -> Any:
    """max(), max(dim, keepdim) -> (values, indices), or max(other): the elementwise maximum."""
    return _rust["max"](self, other if other is not None else dim, keepdim)


def min(self, dim=None, keepdim=False, *, other=None) -> Any:
    return _rust["min"](self, other if other is not None else dim, keepdim)


def mean(self, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return _rust["mean"](self if dtype is None else self.to(dtype), dim, keepdim)


def numpy(self, *, force=False) -> Any:
    """vkml's arrays are always copies on the host, so `force` (torch: detach and copy first) changes nothing."""
    return _rust["numpy"](self)


def round(self, *, decimals=0) -> Tensor:
    """torch's rule: round half to even of x * 10**decimals, scaled back (x / 10**-decimals for negative)."""
    if decimals == 0:
        return _rust["round"](self)
    if decimals > 0:
        scale = 10.0**decimals
        return _rust["round"](self * scale) / scale
    scale = 10.0 ** (-decimals)
    return _rust["round"](self / scale) * scale


def split(self, split_size, dim=0) -> tuple:
    return _rust["split"](self, split_size, dim)


def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None) -> Tensor:
    """to(dtype), to(device), to(device, dtype), to(other) (other's dtype and device), each with torch's trailing
    `non_blocking, copy`; `copy=True` always returns a new tensor; `non_blocking` changes nothing here."""
    _keywords.check_memory_format(memory_format, "to")
    if args and isinstance(args[0], Tensor):
        dtype, device, args = args[0].dtype, args[0].device, args[1:]
    flags = [a for a in args if isinstance(a, bool)]
    targets = [a for a in args if not isinstance(a, bool)]
    if len(flags) > 1:
        copy = flags[1]
    out = _rust["to"](self, *targets, dtype=dtype, device=device)
    unchanged = out.dtype == self.dtype and out.device == self.device
    return out.clone() if copy and unchanged else out


def view(self, *shape, size=None, dtype=None) -> Tensor:
    """view(shape) or view(dtype): the dtype form is only the identity, as vkml does not reinterpret bits."""
    if dtype is not None:
        if shape or size is not None:
            raise TypeError("view() takes a shape or a dtype, not both")
        if dtype != self.dtype:
            raise NotImplementedError(f"view(dtype={dtype}): reinterpreting {self.dtype} bits is not supported")
        return _rust["view"](self, *self.shape)
    return _rust["view"](self, *shape, size=size)


def normal_(self, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    _keywords.check_generator(generator, "normal_")
    return _rust["normal_"](self, mean, std)


def uniform_(self, from_=0.0, to=1.0, *, generator=None) -> Tensor:
    _keywords.check_generator(generator, "uniform_")
    return _rust["uniform_"](self, from_, to)


for _name in _rust:
    _fn = globals()[_name]
    _fn.__qualname__ = f"Tensor.{_name}"
    _fn.__doc__ = _fn.__doc__ or _rust[_name].__doc__
    setattr(Tensor, _name, _fn)
del _name, _fn
