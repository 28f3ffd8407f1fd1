"""vkml: machine learning on the GPU you already have — PyTorch-shaped tensors on Vulkan, WebGPU and the CPU."""

from typing import NamedTuple

from . import (
    _methods,  # noqa: F401,E402 - binds the Tensor methods _vkml provides as functions
    _vkml,
)
from ._vkml import (
    Device,
    GradFn,
    Tensor,
    backward,
    best_device,
    bfloat16,
    bool,
    cat,
    devices,
    einsum,
    float16,
    float32,
    float64,
    from_numpy,
    init_vulkan,
    int32,
    int64,
    is_eager,
    is_grad_enabled,
    load,
    op_table,
    result_type,
    save,
    set_eager,
    set_grad_enabled,
    stack,
    stats,
    synchronize,
    where,
)
from ._vkml import dtype as dtype

float = float32
half = float16
double = float64
int = int32
long = int64

from ._random import (  # noqa: E402
    bernoulli,
    empty,
    empty_like,
    multinomial,
    normal,
    randint,
    randint_like,
    randperm,
)

realize = _vkml.realize_


def manual_seed(seed):
    """Seed vkml's generator (Philox, the same bits on every device) and the data loaders' shuffling."""
    _vkml.manual_seed(seed)
    data.reseed(seed)


def _creator(create):
    """`create` with torch's `requires_grad=False` keyword (the result is a leaf that records history)."""

    def made(*args, requires_grad=False, **kwargs):
        t = create(*args, **kwargs)
        return t.requires_grad_() if requires_grad else t

    made.__name__ = create.__name__
    made.__doc__ = create.__doc__
    return made


tensor = _creator(_vkml.tensor)
zeros = _creator(_vkml.zeros)
ones = _creator(_vkml.ones)
full = _creator(_vkml.full)
arange = _creator(_vkml.arange)
rand = _creator(_vkml.rand)
randn = _creator(_vkml.randn)
linspace = _creator(_vkml.linspace)
eye = _creator(_vkml.eye)


class no_grad:
    """Context manager and decorator: ops inside record no history (torch.no_grad)."""

    def __enter__(self):
        self._prev = set_grad_enabled(False)

    def __exit__(self, *exc):
        set_grad_enabled(self._prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapped


class enable_grad(no_grad):
    """Context manager and decorator: ops inside record history again (torch.enable_grad)."""

    def __enter__(self):
        self._prev = set_grad_enabled(True)


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

    def like(input, dtype=None, device=None, requires_grad=False):
        dt = input.dtype if dtype is None else dtype
        dev = input.device if device is None else device
        return create(*input.shape, dtype=dt, device=dev, requires_grad=requires_grad)

    like.__name__ = f"{create.__name__}_like"
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
rand_like = _like(rand)
randn_like = _like(randn)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    dt = input.dtype if dtype is None else dtype
    dev = input.device if device is None else device
    return full(input.shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def _method(name):
    def call(t, *args, **kwargs):
        return getattr(t, name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"vkml.{name}(t, ...) is t.{name}(...)."
    return call


_FUNCTIONS = """
add sub mul div relu square reciprocal maximum minimum bitwise_and bitwise_or bitwise_xor bitwise_not logical_and
logical_or logical_xor logical_not eq ne lt le gt ge matmul sum mean amax max argmax amin min argmin all any reshape
permute transpose t squeeze unsqueeze flatten broadcast_to flip narrow repeat tile tril triu split chunk unbind
softmax log_softmax logsumexp sigmoid arcsin arccos arctan arcsinh arccosh arctanh log10 frac isnan isinf isfinite
nan_to_num clamp clip clamp_min clamp_max fmod remainder floor_divide atan2 arctan2 copysign hypot pow lerp addcmul
addcdiv var std mm bmm dot outer addmm masked_fill roll diagonal diag gather scatter scatter_add index_select
take_along_dim sort argsort msort topk cumsum cumprod prod norm
""".split()
for _name in _methods.UNARY_PRIMITIVES + _FUNCTIONS:
    globals()[_name] = _method(_name)
del _name, _FUNCTIONS

from . import data, datasets, linalg, nn, optim  # noqa: E402 - they import the names above
from ._dlpack import from_dlpack  # noqa: E402 - it imports `tensor` from above

__all__ = [n for n in globals() if not n.startswith("_")]
