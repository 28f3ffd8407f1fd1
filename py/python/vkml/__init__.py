"""vkml: machine learning on the GPU you already have — PyTorch-shaped tensors on Vulkan, WebGPU and the CPU."""

from typing import NamedTuple

from . import (
    _method_keywords,  # noqa: F401 - torch's keywords on Rust methods
    _methods,  # noqa: F401 - binds the Tensor methods _vkml provides as functions
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
    devices,
    einsum,
    float16,
    float32,
    float64,
    from_numpy,
    get_float32_matmul_precision,
    init_vulkan,
    int32,
    int64,
    is_eager,
    is_grad_enabled,
    op_table,
    set_eager,
    set_float32_matmul_precision,
    set_grad_enabled,
    stats,
    synchronize,
)
from ._vkml import dtype as dtype

float = float32
half = float16
double = float64
int = int32
long = int64

from . import _keywords, _random  # noqa: E402
from ._grad_mode import enable_grad, no_grad  # noqa: E402
from ._io import load, save  # noqa: E402
from ._keywords import channels_last, contiguous_format, preserve_format, strided  # noqa: E402,F401
from ._memory import (  # noqa: E402
    empty_cache,
    max_memory_allocated,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_peak_memory_stats,
)
from ._profile import profile  # noqa: E402

realize = _vkml.realize_
__version__: str = _vkml.__version__


def manual_seed(seed) -> None:
    """Seed vkml's generator (Philox, the same bits on every device) and the data loaders' shuffling."""
    _vkml.manual_seed(seed)
    data.reseed(seed)


tensor = _keywords.factory(_vkml.tensor)
zeros = _keywords.factory(_vkml.zeros)
ones = _keywords.factory(_vkml.ones)
full = _keywords.factory(_vkml.full, names=True)
arange = _keywords.factory(_vkml.arange)
rand = _keywords.factory(_vkml.rand, random=True)
randn = _keywords.factory(_vkml.randn, random=True)
linspace = _keywords.factory(_vkml.linspace)
eye = _keywords.factory(_vkml.eye)
empty = _keywords.factory(_random.empty)
randint = _keywords.factory(_random.randint, random=True)
randperm = _keywords.factory(_random.randperm, random=True)
normal = _keywords.factory(_random.normal, random=True)


class _MaxResult(NamedTuple):
    """What `Tensor.max(dim)` returns, like torch's `torch.return_types.max`."""

    values: Tensor
    indices: Tensor


class _MinResult(NamedTuple):
    """What `Tensor.min(dim)` returns, like torch's `torch.return_types.min`."""

    values: Tensor
    indices: Tensor


def _like(create, random=False):
    """torch's `<create>_like(input, *, dtype=None, device=None, ...)`: input's shape, and its dtype and device
    unless given."""

    def like(input, *, dtype=None, device=None, requires_grad=False):
        dt = input.dtype if dtype is None else dtype
        dev = input.device if device is None else device
        return create(*input.shape, dtype=dt, device=dev, requires_grad=requires_grad)

    like.__name__ = f"{create.__name__}_like"
    return _keywords.factory(like, random=random, like=True)


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)
rand_like = _like(rand, random=True)
randn_like = _like(randn, random=True)


def _full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    dt = input.dtype if dtype is None else dtype
    dev = input.device if device is None else device
    return full(input.shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def _randint_like(input, low=0, high=None, *, dtype=None, device=None):
    return _random.randint_like(input, low, high, dtype=dtype, device=device)


_full_like.__name__, _randint_like.__name__ = "full_like", "randint_like"
full_like = _keywords.factory(_full_like, like=True)
randint_like = _keywords.factory(_randint_like, random=True, like=True)


bernoulli = _keywords.with_out(_random.bernoulli)
multinomial = _keywords.with_out(_random.multinomial)
cat = _keywords.with_out(_vkml.cat)
stack = _keywords.with_out(_vkml.stack)


def where(condition, input, other, *, out=None) -> Tensor:
    """where(condition, input, other): input where condition holds, else other (tensors or numbers)."""
    return _keywords.write_out(_vkml.where(condition, input, other), out, "where")


def result_type(tensor=None, other=None, *, scalar=None, scalar1=None, scalar2=None) -> dtype:
    """The dtype torch's promotion gives two operands (tensors or numbers), under any of torch's names for them:
    (tensor, other), (scalar, tensor), (tensor, scalar) or (scalar1, scalar2). Promotion is symmetric."""
    if scalar1 is not None or scalar2 is not None:
        a, b = scalar1, scalar2
    elif scalar is not None:
        a, b = scalar, tensor if tensor is not None else other
    else:
        a, b = tensor, other
    if a is None or b is None:
        raise TypeError("result_type() takes two operands")
    return _vkml.result_type(a, b)


def split(tensor, split_size_or_sections, dim=0) -> tuple:
    return tensor.split(split_size_or_sections, dim)


# torch's functions that have no `out=` (views, and functions torch gives none).
_NO_OUT = set(
    """
reshape permute transpose t squeeze unsqueeze flatten broadcast_to narrow repeat tile chunk unbind masked_fill roll
diagonal relu isnan isinf isfinite is_floating_point is_complex
""".split()
)
_FUNCTIONS = """
add sub mul div relu square reciprocal maximum minimum bitwise_and bitwise_or bitwise_xor bitwise_not logical_and
logical_or logical_xor logical_not eq ne lt le gt ge matmul sum mean amax max argmax amin min argmin all any reshape
permute transpose t squeeze unsqueeze flatten broadcast_to flip narrow repeat tile tril triu chunk unbind
softmax log_softmax logsumexp sigmoid arcsin arccos arctan arcsinh arccosh arctanh log10 frac isnan isinf isfinite
nan_to_num clamp clip clamp_min clamp_max fmod remainder floor_divide atan2 arctan2 copysign hypot pow lerp addcmul
addcdiv var std mm bmm dot outer addmm masked_fill roll diagonal diag gather scatter scatter_add index_select
take_along_dim sort argsort msort topk cumsum cumprod prod norm round is_floating_point is_complex
""".split()
for _name in _methods.UNARY_PRIMITIVES + _FUNCTIONS:
    globals()[_name] = _keywords.function(_name, out=_name not in _NO_OUT)
del _name, _FUNCTIONS

from . import data, datasets, linalg, nn, optim  # noqa: E402 - they import the names above
from ._dlpack import from_dlpack  # noqa: E402 - it imports `tensor` from above

__all__ = [n for n in globals() if not n.startswith("_") and n != "NamedTuple"]
