"""vkml: machine learning on the GPU you already have — PyTorch-shaped tensors on Vulkan, WebGPU and the CPU."""

from typing import NamedTuple

from . import _vkml
from ._vkml import (
    Device,
    Tensor,
    arange,
    best_device,
    bfloat16,
    bool,
    cat,
    devices,
    float16,
    float32,
    float64,
    from_numpy,
    full,
    init_vulkan,
    int32,
    int64,
    is_eager,
    manual_seed,
    ones,
    op_table,
    rand,
    randn,
    result_type,
    set_eager,
    stack,
    stats,
    synchronize,
    tensor,
    where,
    zeros,
)
from ._vkml import dtype as dtype

float = float32
half = float16
double = float64
int = int32
long = int64

realize = _vkml.realize_


class _MaxResult(NamedTuple):
    """What `Tensor.max(dim)` returns, like torch's `torch.return_types.max`."""

    values: Tensor
    indices: Tensor


class _MinResult(NamedTuple):
    """What `Tensor.min(dim)` returns, like torch's `torch.return_types.min`."""

    values: Tensor
    indices: Tensor


def _like(create):
    """torch's `<create>_like(t, dtype=None, device=None)`: t's shape, and t's dtype and device unless given."""

    def like(t, dtype=None, device=None):
        dt = t.dtype if dtype is None else dtype
        return create(*t.shape, dtype=dt, device=t.device if device is None else device)

    like.__name__ = f"{create.__name__}_like"
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
rand_like = _like(rand)
randn_like = _like(randn)


def full_like(t, fill_value, dtype=None, device=None):
    dt = t.dtype if dtype is None else dtype
    return full(t.shape, fill_value, dtype=dt, device=t.device if device is None else device)


def _method(name):
    def call(t, *args, **kwargs):
        return getattr(t, name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"vkml.{name}(t, ...) is t.{name}(...)."
    return call


for _name in (
    "add sub mul div neg exp log sqrt relu abs sign exp2 log2 floor ceil trunc round rsqrt square reciprocal "
    "maximum minimum bitwise_and bitwise_or bitwise_xor bitwise_not logical_and logical_or logical_xor logical_not "
    "eq ne lt le gt ge matmul sum mean amax max argmax amin min argmin all any "
    "reshape permute transpose t squeeze unsqueeze flatten broadcast_to flip narrow repeat tile tril triu split chunk "
    "unbind"
).split():
    globals()[_name] = _method(_name)
del _name

__all__ = [n for n in globals() if not n.startswith("_")]
