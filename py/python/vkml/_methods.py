"""Binds the Tensor methods that `_vkml` provides as functions of the tensor (py/src/math.rs), so that the Rust
class keeps a core set of methods within the line limit: the unary math family, the division family, clamping,
moments, fixed-rank products and rearrangements, with torch's names, aliases and operators (% and //)."""

import inspect
from numbers import Number
from typing import Any, NamedTuple

from . import _vkml
from ._vkml import Tensor

# Every unary primitive of the op table (one row each in vkml_ops) that the Rust class does not define itself, the
# unary composites, and torch's arc* aliases.
UNARY_PRIMITIVES = [r["name"] for r in _vkml.op_table() if r["kind"] == "unary" and r["primitive"]]
UNARY = [n for n in UNARY_PRIMITIVES if not hasattr(Tensor, n)] + (
    "log10 frac isnan isinf isfinite arcsin arccos arctan arcsinh arccosh arctanh"
).split()
BINARY = "fmod remainder floor_divide atan2 copysign hypot pow".split()


def _method(name, fn, doc):
    fn.__name__ = name
    fn.__qualname__ = f"Tensor.{name}"
    fn.__doc__ = doc
    setattr(Tensor, name, fn)


def _unary(name):
    def method(self) -> Tensor:
        return _vkml._unary(self, name)

    return method


def _binary(name):
    def method(self, other) -> Tensor:
        return _vkml._binary(self, name, other)

    return method


for _name in UNARY:
    _method(_name, _unary(_name), f"torch.Tensor.{_name}(): elementwise, under the op table's contract.")
for _name in BINARY:
    _method(_name, _binary(_name), f"torch.Tensor.{_name}(other): a tensor or a number.")


def _pow(self, exponent) -> Tensor:
    return _vkml._binary(self, "pow", exponent)


_method("pow", _pow, "torch.Tensor.pow(exponent).")
_method("arctan2", _binary("atan2"), "torch.Tensor.arctan2(other), as atan2.")


def _operator(name, reflected):
    """`%` and `//`: NotImplemented for operands vkml does not take, so Python tries the other side."""

    def op(self, other) -> Tensor:
        if not isinstance(other, (Tensor, Number)):
            return NotImplemented
        return _vkml._binary(other, name, self) if reflected else _vkml._binary(self, name, other)

    return op


_method("__mod__", _operator("remainder", False), "self % other (Python's remainder, torch.remainder).")
_method("__rmod__", _operator("remainder", True), "other % self.")
_method("__floordiv__", _operator("floor_divide", False), "self // other (torch.floor_divide).")
_method("__rfloordiv__", _operator("floor_divide", True), "other // self.")
_method("__pow__", _operator("pow", False), "self ** other (torch.pow).")
_method("__rpow__", _operator("pow", True), "other ** self.")


def pow_(self, exponent) -> Tensor:
    """torch.Tensor.pow_(exponent): in place, keeping self's dtype (torch's cast rule)."""
    _vkml._update(self, exponent, "pow")
    return self


def __ipow__(self, other) -> Tensor:
    _vkml._update(self, other, "pow")
    return self


def clamp(self, min=None, max=None) -> Tensor:
    return _vkml._clamp(self, min, max)


def clamp_min(self, min) -> Tensor:
    return _vkml._clamp(self, min, None)


def clamp_max(self, max) -> Tensor:
    return _vkml._clamp(self, None, max)


def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor:
    return _vkml._moment(self, False, dim, unbiased, keepdim, correction)


def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor:
    return _vkml._moment(self, True, dim, unbiased, keepdim, correction)


def addmm(self, mat1, mat2, out_dtype=None, *, beta=1.0, alpha=1.0) -> Tensor:
    a, b = _widened(mat1, mat2, out_dtype, "addmm")
    return _vkml.addmm(self if a is mat1 else self.float(), a, b, beta, alpha)


def addcmul(self, tensor1, tensor2, *, value=1.0) -> Tensor:
    return _vkml.addcmul(self, tensor1, tensor2, value)


def addcdiv(self, tensor1, tensor2, *, value=1.0) -> Tensor:
    return _vkml.addcdiv(self, tensor1, tensor2, value)


def lerp(self, end, weight) -> Tensor:
    return _vkml._lerp(self, end, weight)


def masked_fill(self, mask, value) -> Tensor:
    return _vkml._masked_fill(self, mask, value)


def roll(self, shifts, dims=None) -> Tensor:
    return _vkml._roll(self, shifts, dims)


def gather(self, dim, index, *, sparse_grad=False) -> Tensor:
    if sparse_grad:
        raise ValueError("gather(): sparse_grad=True is not supported (dense gradients only)")
    return _vkml._gather(self, dim, index)


def scatter(self, dim, index, src=None, *, value=None, reduce=None) -> Tensor:
    return _vkml._scatter(self, dim, index, value if src is None else src, False, reduce)


def scatter_add(self, dim, index, src) -> Tensor:
    return _vkml._scatter(self, dim, index, src, True)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None) -> Tensor:
    return self.copy_(scatter(self, dim, index, src, value=value, reduce=reduce))


def scatter_add_(self, dim, index, src) -> Tensor:
    return self.copy_(scatter_add(self, dim, index, src))


def index_select(self, dim, index) -> Tensor:
    return _vkml._index_select(self, dim, index)


def take_along_dim(self, indices, dim=None) -> Tensor:
    return _vkml._take_along_dim(self, indices, dim)


class _SortResult(NamedTuple):
    """What `Tensor.sort` returns, like torch's `torch.return_types.sort`."""

    values: Tensor
    indices: Tensor


class _TopkResult(NamedTuple):
    """What `Tensor.topk` returns, like torch's `torch.return_types.topk`."""

    values: Tensor
    indices: Tensor


def sort(self, dim=-1, descending=False, stable=False) -> Any:
    """Always stable: equal values keep their order (torch promises that only with stable=True)."""
    return _SortResult(*_vkml._sort(self, dim, descending))


def argsort(self, dim=-1, descending=False, stable=False) -> Tensor:
    return _vkml._argsort(self, dim, descending)


def bernoulli(self, p=None, *, generator=None) -> Tensor:
    from . import _random

    return _random.bernoulli(self, p, generator=generator)


def cumsum(self, dim, *, dtype=None) -> Tensor:
    return _vkml._cumulative(self, dim, False, dtype)


def cumprod(self, dim, *, dtype=None) -> Tensor:
    return _vkml._cumulative(self, dim, True, dtype)


def prod(self, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return _vkml._prod(self, dim, keepdim, dtype)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None) -> Tensor:
    x = self if dtype is None else self.to(dtype)
    return _vkml._norm(x, 2.0 if p is None else p, dim, keepdim)


def multinomial(self, num_samples, replacement=False, *, generator=None) -> Tensor:
    from . import _random

    return _random.multinomial(self, num_samples, replacement, generator=generator)


def msort(self) -> Tensor:
    return sort(self, 0).values


def topk(self, k, dim=-1, largest=True, sorted=True) -> Any:
    """The k largest (smallest) in order, whatever `sorted` says (an order is one of the orders torch allows)."""
    return _TopkResult(*_vkml._topk(self, k, dim, largest))


for _fn in (
    pow_,
    __ipow__,
    clamp,
    clamp_min,
    clamp_max,
    var,
    std,
    addmm,
    addcmul,
    addcdiv,
    lerp,
    masked_fill,
    roll,
    gather,
    scatter,
    scatter_add,
    scatter_,
    scatter_add_,
    index_select,
    take_along_dim,
    sort,
    argsort,
    msort,
    topk,
    bernoulli,
    cumsum,
    cumprod,
    prod,
    norm,
    multinomial,
):
    _method(_fn.__name__, _fn, f"torch.Tensor.{_fn.__name__}, with torch's arguments.")
_method("clip", clamp, "torch.Tensor.clip, as clamp.")


def _method_of(fn):
    """The method form of a function the engine describes once in torch's Tensor namespace
    (`core/src/nn/described.rs`): the tensor is its first argument, and its signature and docs are the function's."""

    def method(self, *args, **kwargs) -> Tensor:
        return fn(self, *args, **kwargs)

    sig = inspect.signature(fn)
    first, *rest = sig.parameters.values()
    method.__signature__ = sig.replace(parameters=[first.replace(name="self"), *rest], return_annotation=Tensor)
    return method


for _ns, _name in _vkml._described():
    if _ns == "Tensor":
        _fn = getattr(_vkml, _name)
        _method(_name, _method_of(_fn), _fn.__doc__)
del _ns, _name, _fn


def is_floating_point(self) -> bool:
    return self.dtype.is_floating_point


def is_complex(self) -> bool:
    return False  # vkml has no complex dtypes


_method("is_floating_point", is_floating_point, "torch.Tensor.is_floating_point(): a float dtype.")
_method("is_complex", is_complex, "torch.Tensor.is_complex(): always False, as vkml has no complex dtype.")


def _widened(a, b, out_dtype, name):
    """torch's `out_dtype`: float16/bfloat16 operands with a float32 result. The products of 16-bit floats are exact
    in float32, so multiplying float32 copies is the float32-accumulated product, unrounded."""
    if out_dtype is None or out_dtype == a.dtype:
        return a, b
    if out_dtype == _vkml.float32 and a.dtype in (_vkml.float16, _vkml.bfloat16) and b.dtype == a.dtype:
        return a.float(), b.float()
    raise RuntimeError(f"{name}(): out_dtype={out_dtype} is supported for float16 or bfloat16 inputs with float32 only")


def _mm(self, mat2, out_dtype=None) -> Tensor:
    a, b = _widened(self, mat2, out_dtype, "mm")
    return _vkml._product(a, "mm", b)


def _bmm(self, mat2, out_dtype=None) -> Tensor:
    a, b = _widened(self, mat2, out_dtype, "bmm")
    return _vkml._product(a, "bmm", b)


def _dot(self, tensor) -> Tensor:
    return _vkml._product(self, "dot", tensor)


def _outer(self, vec2) -> Tensor:
    return _vkml._product(self, "outer", vec2)


# torch's parameter names: mm(mat2), bmm(mat2), dot(tensor), outer(vec2).
for _name, _product in (("mm", _mm), ("bmm", _bmm), ("dot", _dot), ("outer", _outer)):
    _method(_name, _product, f"torch.Tensor.{_name}, with torch's parameter name.")
del _name, _product
