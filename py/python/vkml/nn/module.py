"""`Module`: the base class of layers — parameters, buffers and submodules by attribute, train/eval, `to`,
`state_dict`/`load_state_dict` with torch's names, so a torch `state_dict` loads without translation."""

from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from .. import _vkml, no_grad
from .._vkml import Tensor
from .parameter import Parameter


class _IncompatibleKeys(NamedTuple):
    missing_keys: list
    unexpected_keys: list


def as_tensor(value, like=None):
    """A vkml tensor from a vkml tensor, a NumPy array or a torch tensor (read through NumPy; bfloat16 widened)."""
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor, without importing torch
        t = value.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            t = t.float()
        value = t.numpy()
    arr = np.asarray(value)
    out = _vkml.from_numpy(np.asarray(arr, order="C"))
    return out if like is None else out.to(like.device, like.dtype)


class Module:
    """Base class for all layers (torch.nn.Module); subclasses set attributes in `__init__` and define `forward`."""

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # ---- attributes
    def __setattr__(self, name, value):
        """torch's rules: Parameters and Modules register themselves; a registered parameter, submodule or buffer
        can only be replaced by its own kind (or None)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")
        params, mods, bufs = self._parameters, self._modules, self._buffers
        if isinstance(value, Parameter):
            self._forget(name)
            params[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (vkml.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name)
            mods[name] = value
        elif name in mods:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}'")
            mods[name] = None
        elif name in bufs:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)")
            bufs[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        for d in (self._parameters, self._buffers, self._modules):
            d.pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name):
        for key in ("_parameters", "_buffers", "_modules"):
            d = self.__dict__.get(key)
            if d is not None and name in d:
                return d[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for d in (self._parameters, self._buffers, self._modules):
            if name in d:
                del d[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}'")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}'")
        self._buffers[name] = tensor
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def add_module(self, name, module):
        self._modules[name] = module

    def register_module(self, name, module):
        self.add_module(name, module)

    # ---- traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named(self, attr, prefix, recurse):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, v in getattr(m, attr).items():
                if v is None or id(v) in seen:
                    continue
                seen.add(id(v))
                yield (f"{mp}.{name}" if mp else name), v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Each parameter once (`remove_duplicate`), or under every name it has (a tied weight twice)."""
        if remove_duplicate:
            yield from self._named("_parameters", prefix, recurse)
            return
        mods = self.named_modules(prefix=prefix, remove_duplicate=False) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, v in m._parameters.items():
                if v is not None:
                    yield (f"{mp}.{name}" if mp else name), v

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        yield from self._named("_buffers", prefix, recurse)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- modes
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                p.grad = None if set_to_none else p.grad.detach() * 0

    # ---- placement
    def _apply_tensors(self, fn):
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None:
                    moved = fn(p)
                    if moved is not p:
                        new = Parameter(moved, requires_grad=p.requires_grad)
                        if p.grad is not None:
                            new.grad = fn(p.grad)
                        m._parameters[name] = new
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move parameters and buffers: `to(device)`, `to(dtype)` (floating tensors only) or both."""
        return self._apply_tensors(lambda t: _move(t, args, kwargs))

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(_vkml.float32)

    def half(self):
        return self.to(_vkml.float16)

    def bfloat16(self):
        return self.to(_vkml.bfloat16)

    def double(self):
        return self.to(_vkml.float64)

    # ---- state
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        out = OrderedDict() if destination is None else destination
        for mp, m in self.named_modules(prefix=prefix.rstrip(".")):
            for name, p in m._parameters.items():
                if p is not None:
                    out[f"{mp}.{name}" if mp else name] = p if keep_vars else p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[f"{mp}.{name}" if mp else name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values in from vkml tensors, NumPy arrays or torch tensors, by torch's names; with `assign`, the
        loaded tensors replace the module's own (parameters keep their requires_grad), as in torch."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict and (missing or unexpected):
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        # Everything is checked before anything is written, so a failed call leaves the module as it was (torch
        # copies the keys that fit and then raises).
        loads = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            src = as_tensor(state_dict[k])
            if tuple(src.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {k}: copying a param with shape {tuple(src.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target.shape)}."
                )
            loads.append((k, src, target))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        for k, src, target in loads:
            if assign:
                self._assign(k, src, target)
            else:
                with no_grad():
                    target.copy_(src.to(target.device, target.dtype))
        return _IncompatibleKeys(missing, unexpected)

    def _assign(self, key, src, target):
        path, _, name = key.rpartition(".")
        owner = self
        for part in path.split(".") if path else []:
            owner = owner._modules[part]
        if name in owner._parameters:
            owner._parameters[name] = Parameter(src.detach(), requires_grad=target.requires_grad)
        else:
            owner._buffers[name] = src.detach()

    # ---- printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _move(t, args, kwargs):
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, _vkml.dtype):
            dtype = a
        else:
            device = a
    out = t
    if device is not None:
        out = out.to(device)
    if dtype is not None and out.dtype.is_floating_point:
        out = out.to(dtype)
    return out
