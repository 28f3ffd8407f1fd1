"""`Parameter`: a tensor that a `Module` registers and optimizers update; it requires grad by default."""

from .._vkml import Tensor


class Parameter(Tensor):
    """A leaf tensor registered by `Module` attributes (torch.nn.Parameter)."""

    def __new__(cls, data=None, requires_grad=True):
        p = Tensor.__new__(cls, data)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()
