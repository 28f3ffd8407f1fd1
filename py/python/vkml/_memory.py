"""Device memory, with torch's names (torch.cuda.memory_allocated and its kin): what tensors hold, what the pool keeps
for reuse on top, and the peak (vkml_core::backend::memory). `device` is a device or its name; None is
`best_device()`'s choice."""

from . import _vkml


def _device(device):
    return _vkml.best_device()[0] if device is None else device


def memory_stats(device=None) -> dict:
    """torch's keys for what vkml counts: allocated_bytes.all.current and .peak, reserved_bytes.all.current."""
    allocated, reserved, peak = _vkml._memory(_device(device))
    return {
        "allocated_bytes.all.current": allocated,
        "allocated_bytes.all.peak": peak,
        "reserved_bytes.all.current": reserved,
    }


def memory_allocated(device=None) -> int:
    """Bytes held by tensors' buffers on the device now."""
    return _vkml._memory(_device(device))[0]


def max_memory_allocated(device=None) -> int:
    """The most memory_allocated has been since start or reset_peak_memory_stats."""
    return _vkml._memory(_device(device))[2]


def memory_reserved(device=None) -> int:
    """Bytes held from the device: allocated plus freed buffers the pool keeps for reuse."""
    return _vkml._memory(_device(device))[1]


def reset_peak_memory_stats(device=None) -> None:
    """Start max_memory_allocated again from what is allocated now."""
    _vkml._reset_peak_memory(_device(device))


def empty_cache(device=None) -> None:
    """Give the freed buffers the device's pool keeps back to the device (reserved falls to allocated)."""
    _vkml._empty_cache(_device(device))
