"""torch's random creation functions with their overloaded signatures (randint(high, size) and randint(low, high,
size); normal of tensors or numbers), and empty; the sampling is Rust (vkml_core::api::random), on the Philox stream
that `vkml.manual_seed` seeds."""

from . import _vkml


def _sizes(size):
    if isinstance(size, int):
        return [size]
    return [int(s) for s in size]


def _grad(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def randint(*args, low=None, high=None, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    """randint(high, size) or randint(low, high, size), positionally or by torch's keywords: integers uniform in
    [low, high), int64 by default."""
    if generator is not None:
        raise ValueError("randint(): generator= is not supported; seed with vkml.manual_seed")
    args = list(args)
    if size is None and args and not isinstance(args[-1], int):
        size = args.pop()
    if high is None and args:
        high = args.pop()
    if low is None and args:
        low = args.pop()
    if args or high is None or size is None:
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    low = 0 if low is None else low
    return _grad(_vkml._randint(int(low), int(high), _sizes(size), dtype, device), requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None):
    if high is None:
        low, high = 0, low
    dt = input.dtype if dtype is None else dtype
    return _vkml._randint(int(low), int(high), list(input.shape), dt, input.device if device is None else device)


def normal(mean, std=1.0, size=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    """normal(mean, std) with tensors or numbers broadcast together; normal(mean, std, size) with numbers."""
    if generator is not None:
        raise ValueError("normal(): generator= is not supported; seed with vkml.manual_seed")
    shape = None if size is None else _sizes(size)
    return _grad(_vkml._normal(mean, std, shape, dtype, device), requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """1 with probability `input` (or `p`, a number, for every element of input's shape)."""
    if generator is not None:
        raise ValueError("bernoulli(): generator= is not supported; seed with vkml.manual_seed")
    if p is not None:
        input = _vkml.full(tuple(input.shape), p, dtype=input.dtype, device=input.device)
    return _vkml._bernoulli(input)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Category indices drawn with the weights of each row of `input` (the same samples on every device)."""
    if generator is not None:
        raise ValueError("multinomial(): generator= is not supported; seed with vkml.manual_seed")
    return _vkml._multinomial(input, int(num_samples), bool(replacement))


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None):
    if generator is not None:
        raise ValueError("randperm(): generator= is not supported; seed with vkml.manual_seed")
    return _grad(_vkml._randperm(int(n), dtype, device), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Zeros: torch leaves empty's values undefined; vkml never exposes stale memory."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    return _grad(_vkml._empty(_sizes(size), dtype, device), requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dt = input.dtype if dtype is None else dtype
    return empty(*input.shape, dtype=dt, device=input.device if device is None else device, requires_grad=requires_grad)
