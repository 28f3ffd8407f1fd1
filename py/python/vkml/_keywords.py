"""torch's keyword arguments that sit beside the math: `out=`, `layout=`, `pin_memory=`, `memory_format=`,
`generator=`, `requires_grad=`, `inplace=` and the legacy loss flags; and `vkml.f(input, ...)`, the function form of
each Tensor method, with the method's parameters under torch's names. tests/python/test_signatures.py walks torch's
signatures against these."""

import inspect

from . import _vkml
from ._vkml import Tensor

_P = inspect.Parameter


class _Named:
    """A named constant (vkml.strided, vkml.contiguous_format, ...): torch's objects of the same name are accepted
    wherever these are."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"vkml.{self.name}"


strided = _Named("strided")
preserve_format = _Named("preserve_format")
contiguous_format = _Named("contiguous_format")
channels_last = _Named("channels_last")


def _name_of(value):
    """'strided' for vkml.strided and torch.strided alike."""
    return value.name if isinstance(value, _Named) else str(value).rpartition(".")[2]


def check_layout(layout, fn):
    if layout is not None and _name_of(layout) != "strided":
        raise ValueError(f"{fn}(): layout={layout!r} is not supported; vkml tensors are dense (strided)")


def check_memory_format(memory_format, fn):
    """vkml's tensors are row-major: preserve_format and contiguous_format both describe what it makes."""
    if memory_format is not None and _name_of(memory_format) not in ("preserve_format", "contiguous_format"):
        raise ValueError(
            f"{fn}(): memory_format={memory_format!r} is not supported; vkml tensors are row-major "
            "(torch.contiguous_format or torch.preserve_format)"
        )


def check_generator(generator, fn):
    if generator is not None:
        raise ValueError(f"{fn}(): generator= is not supported; vkml has one Philox stream, seeded by vkml.manual_seed")


_KIND = {"bool": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1}


def _kind(dtype):
    return _KIND.get(_name_of(dtype), 2)


def write_out(result, out, fn):
    """torch's `out=`: `result` written into `out` (one tensor, or a tuple for tuple results), which is returned.
    As in torch, history is not recorded through `out` and the result's dtype must cast to out's without losing
    its kind (float into int, int into bool are refused)."""
    if out is None:
        return result
    results, outs = (tuple(result), tuple(out)) if isinstance(result, tuple) else ((result,), (out,))
    if len(outs) != len(results) or not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{fn}(): out= must be {'a tuple of ' + str(len(results)) if len(results) > 1 else 'a'} Tensor")
    for r, o in zip(results, outs):
        if _vkml.is_grad_enabled() and (r.requires_grad or o.requires_grad):
            raise RuntimeError(
                f"{fn}(): functions with out=... arguments don't support automatic differentiation, but one of the "
                "arguments requires grad."
            )
        if r.device != o.device:
            raise RuntimeError(f"{fn}(): Expected out tensor to have device {r.device}, but got {o.device} instead")
        if tuple(r.shape) != tuple(o.shape):
            raise ValueError(f"{fn}(): out= has shape {tuple(o.shape)} where the result has shape {tuple(r.shape)}")
        if _kind(r.dtype) > _kind(o.dtype):
            raise RuntimeError(f"{fn}(): result type {r.dtype} can't be cast to the desired output type {o.dtype}")
    for r, o in zip(results, outs):
        o.copy_(r)
    return out if isinstance(result, tuple) else outs[0]


def with_out(fn):
    """`fn` (a function that has no `out=`) with torch's `out=`, and its signature saying so."""

    def call(*args, out=None, **kwargs):
        return write_out(fn(*args, **kwargs), out, fn.__name__)

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    sig = inspect.signature(fn)
    out = _P("out", _P.KEYWORD_ONLY, default=None)
    call.__signature__ = sig.replace(parameters=[*sig.parameters.values(), out], return_annotation=Tensor)
    return call


def inplace(input, result, flag):
    """torch's `inplace=True`: the result written into `input` (a new version of its storage; history is kept)."""
    return input.copy_(result) if flag else result


def legacy_reduction(size_average, reduce, reduction):
    """torch's deprecated `size_average=`/`reduce=` flags, mapped as torch maps them (either given wins)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def _params(fn):
    return list(inspect.signature(fn).parameters.values())


def function(name, out=True):
    """`vkml.<name>(input, ...)`: the Tensor method `name` called on `input`, with torch's `out=` when `out`."""
    method = getattr(Tensor, name)
    params = _params(method)
    rest = params[1:]
    head = [_P("input", _P.POSITIONAL_OR_KEYWORD)]
    extra = [_P("out", _P.KEYWORD_ONLY, default=None)] if out else []
    kinds = [p.kind for p in rest]
    if _P.VAR_KEYWORD in kinds:
        at = kinds.index(_P.VAR_KEYWORD)
        rest = rest[:at] + extra + rest[at:]
    else:
        rest = rest + extra

    def call(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
        return write_out(getattr(input, name)(*args, **kwargs), out, name)

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = f"vkml.{name}(input, ...) is input.{name}(...)" + (", with torch's out=." if out else ".")
    call.__signature__ = inspect.Signature(head + rest)
    return call


def factory(create, random=False, like=False, names=False):
    """A creation function with torch's factory keywords: `out`, `layout`, `requires_grad`, `pin_memory` (pinning
    only speeds host copies, so it changes nothing here), `memory_format` for `*_like`, `generator` for random ones."""
    fn = create.__name__
    own = [p for p in _params(create) if p.name not in ("requires_grad", "out", "generator")]
    extra = [
        _P("out", _P.KEYWORD_ONLY, default=None),
        _P("layout", _P.KEYWORD_ONLY, default=None),
        _P("requires_grad", _P.KEYWORD_ONLY, default=False),
        _P("pin_memory", _P.KEYWORD_ONLY, default=False),
    ]
    if like:
        extra[0] = _P("memory_format", _P.KEYWORD_ONLY, default=None)
    if random:
        extra.append(_P("generator", _P.KEYWORD_ONLY, default=None))
    if names:
        extra.append(_P("names", _P.KEYWORD_ONLY, default=None))
    positional = [p for p in own if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.VAR_POSITIONAL)]
    keyword = [p.replace(kind=_P.KEYWORD_ONLY) for p in own if p.kind == _P.KEYWORD_ONLY]
    if any(p.kind == _P.VAR_POSITIONAL for p in positional) and not any(p.name == "size" for p in keyword):
        # torch's `zeros(2, 3)` and `zeros(size=(2, 3))`: sizes positionally, or the keyword `size`.
        positional = [p.replace(name="sizes") if p.kind == _P.VAR_POSITIONAL else p for p in positional]
        keyword.insert(0, _P("size", _P.KEYWORD_ONLY, default=None))

    takes_size = any(p.name == "size" and p.kind != _P.VAR_POSITIONAL for p in own)

    def made(*args, out=None, layout=None, requires_grad=False, pin_memory=False, **kwargs):
        check_layout(layout, fn)
        if like:
            check_memory_format(kwargs.pop("memory_format", None), fn)
        if random:
            check_generator(kwargs.pop("generator", None), fn)
        if names and kwargs.pop("names", None) is not None:
            raise ValueError(f"{fn}(): names= (named tensors, a torch prototype) is not supported")
        if "size" in kwargs and not takes_size:
            size = kwargs.pop("size")
            if args:
                raise TypeError(f"{fn}(): size given both positionally and as a keyword")
            args = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        t = create(*args, **kwargs)
        t = t.requires_grad_() if requires_grad else t
        return write_out(t, out, fn)

    made.__name__ = fn
    made.__qualname__ = fn
    made.__doc__ = create.__doc__
    made.__signature__ = inspect.Signature(positional + keyword + extra, return_annotation=Tensor)
    return made
