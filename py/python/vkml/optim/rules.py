"""SGD, Adam, AdamW, RMSprop and Adagrad with torch's arguments and defaults. Their options' checks and each
group's step are Rust (vkml_core::nn::optimizer), reached through `Optimizer`."""

from .optimizer import Optimizer


def _defaults(args, **changed):
    """An optimizer's defaults: its constructor's arguments (`locals()`) under torch's names. torch's implementation
    switches are kept as given: `foreach`, `fused` and `capturable` choose how torch's kernels run (one kernel per
    parameter or fused, CUDA-graph capture) and give the same values, so vkml, whose update is one Rust call per
    group, takes them and changes nothing; `differentiable=True` (autograd through the step) is refused."""
    defaults = {k: v for k, v in args.items() if k not in ("self", "params", "__class__")} | changed
    if defaults.get("differentiable"):
        name = type(args["self"]).__name__
        raise ValueError(f"{name}: differentiable=True is not supported (the step runs outside autograd)")
    return defaults


class SGD(Optimizer):
    _kind = "SGD"

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):  # fmt: skip
        super().__init__(params, _defaults(locals()))


class Adam(Optimizer):
    _kind = "Adam"
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):  # fmt: skip
        self._decoupled = self._decoupled or decoupled_weight_decay
        super().__init__(params, _defaults(locals(), betas=tuple(betas), decoupled_weight_decay=self._decoupled))


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):  # fmt: skip
        super().__init__(**{k: v for k, v in locals().items() if k not in ("self", "__class__")})


class RMSprop(Optimizer):
    _kind = "RMSprop"

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):  # fmt: skip
        super().__init__(params, _defaults(locals()))


class Adagrad(Optimizer):
    _kind = "Adagrad"

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):  # fmt: skip
        super().__init__(params, _defaults(locals()))
