"""`vkml.save` and `vkml.load` with torch's parameter names. vkml writes safetensors and reads safetensors or
torch's zip checkpoints without running pickle code, so it is always what torch calls `weights_only`."""

from . import _vkml


def save(obj, f, pickle_module=None, pickle_protocol=2, *, metadata=None):
    """Save a dict of name -> Tensor (a state_dict) to the path `f` as safetensors; `metadata` maps strings to
    strings. torch's pickle options have nothing to configure here: a `pickle_module` is refused."""
    if pickle_module is not None:
        raise ValueError("save(): pickle_module= is not supported; vkml writes safetensors, not pickle")
    _vkml.save(obj, f, metadata)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, device=None):
    """Load a safetensors file or a torch zip checkpoint from the path `f` into a dict of name -> Tensor, on
    `map_location` (or `device`: a device or its name; default cpu). `weights_only=False` changes nothing: vkml
    never runs pickle code, and a checkpoint holding other objects is refused with the reason; `mmap` only
    changes how torch reads the file."""
    if pickle_module is not None:
        raise ValueError("load(): pickle_module= is not supported; vkml reads checkpoints without pickle")
    if map_location is not None and device is not None:
        raise TypeError("load(): give map_location or device, not both")
    where = device if map_location is None else map_location
    if where is not None and not isinstance(where, (str, _vkml.Device)):
        raise TypeError(
            f"load(): map_location must be a device or its name, got {type(where).__name__} (vkml does not take "
            "dicts or functions here)"
        )
    return _vkml.load(f, where)
