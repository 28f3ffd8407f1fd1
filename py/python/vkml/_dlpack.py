"""DLPack interop through host copies: `vkml.from_dlpack` takes any host tensor that speaks DLPack, and a vkml
tensor's `__dlpack__` lets `torch.from_dlpack` and `numpy.from_dlpack` take it from any device."""

import numpy as np

from . import tensor
from ._vkml import Tensor


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A vkml tensor (on the CPU device) holding a copy of a host tensor that speaks DLPack (`__dlpack__`: a torch
    CPU tensor, a NumPy array, ...). A copy, unlike torch's zero-copy from_dlpack: vkml's buffers belong to its
    backends. torch's bfloat16, which NumPy cannot carry, comes over bit for bit; device tensors are refused with
    the reason. `device` moves the result there; `copy=False` (never copy) is refused, as vkml always copies."""
    if copy is False:
        raise ValueError("from_dlpack(): copy=False is not supported; vkml always copies into its own buffers")
    t = _from_dlpack(ext_tensor)
    return t if device is None else t.to(device)


def _from_dlpack(ext_tensor):
    where = getattr(ext_tensor, "__dlpack_device__", None)
    kind = where()[0] if where is not None else 1
    if kind not in (1, 3):  # kDLCPU and kDLCUDAHost (pinned host memory) are host memory
        raise RuntimeError(
            f"vkml.from_dlpack takes host tensors; this one is on DLPack device type {kind} (move it to the CPU first,"
            " e.g. with .cpu())"
        )
    if str(getattr(ext_tensor, "dtype", "")) == "torch.bfloat16":
        return tensor(ext_tensor)
    return tensor(np.from_dlpack(ext_tensor))


def _dlpack(self, **kwargs):
    """DLPack export of a host copy (NumPy's); bfloat16 raises TypeError as `.numpy()` does."""
    return self.numpy().__dlpack__(**kwargs)


def _dlpack_device(self):
    return (1, 0)  # kDLCPU: the exported copy lives on the host


for _name, _fn in (("__dlpack__", _dlpack), ("__dlpack_device__", _dlpack_device)):
    setattr(Tensor, _name, _fn)
