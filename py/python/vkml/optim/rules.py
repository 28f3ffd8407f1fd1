"""SGD, Adam, AdamW, RMSprop and Adagrad with torch's arguments and defaults; each step is one call into Rust
per param group."""

from .. import _vkml
from .optimizer import Optimizer


def _flags(name, foreach=None, fused=None, capturable=False, differentiable=False):
    """torch's implementation switches, kept in the defaults as torch keeps them: `foreach`, `fused` and
    `capturable` choose how torch's kernels run (one kernel per parameter or fused, CUDA-graph capture) and give
    the same values, so vkml, whose update is one Rust call per group, takes them and changes nothing;
    `differentiable=True` (autograd through the step) is refused."""
    if differentiable:
        raise ValueError(f"{name}: differentiable=True is not supported (the step runs outside autograd)")
    return dict(foreach=foreach, fused=fused, capturable=capturable, differentiable=differentiable)


def _check(lr, **more):
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    for name, v in more.items():
        if v < 0.0:
            raise ValueError(f"Invalid {name} value: {v}")


class SGD(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        _check(lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        flags = _flags("SGD", foreach, fused, False, differentiable)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            **flags,
        )
        super().__init__(params, defaults)

    def _update(self, g, params):
        bufs = [self._state(p).get("momentum_buffer") for p in params]
        bufs = _vkml.sgd_step(
            params,
            bufs,
            lr=g["lr"],
            momentum=g["momentum"],
            dampening=g["dampening"],
            weight_decay=g["weight_decay"],
            nesterov=g["nesterov"],
            maximize=g["maximize"],
        )
        for p, b in zip(params, bufs):
            if b is not None:
                self._state(p)["momentum_buffer"] = b


class Adam(Optimizer):
    _decoupled = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        _check(lr, eps=eps, weight_decay=weight_decay)
        flags = _flags(type(self).__name__, foreach, fused, capturable, differentiable)
        self._decoupled = self._decoupled or decoupled_weight_decay
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            decoupled_weight_decay=self._decoupled,
            **flags,
        )
        super().__init__(params, defaults)

    def _update(self, g, params):
        st = [self._state(p) for p in params]
        steps, m, v, vmax = _vkml.adam_step(
            params,
            [int(s.get("step", 0)) for s in st],
            [s.get("exp_avg") for s in st],
            [s.get("exp_avg_sq") for s in st],
            [s.get("max_exp_avg_sq") for s in st],
            lr=g["lr"],
            beta1=g["betas"][0],
            beta2=g["betas"][1],
            eps=g["eps"],
            weight_decay=g["weight_decay"],
            amsgrad=g["amsgrad"],
            maximize=g["maximize"],
            decoupled=self._decoupled,
        )
        for s, k, a, b, c in zip(st, steps, m, v, vmax):
            s["step"] = k
            s["exp_avg"], s["exp_avg_sq"] = a, b
            if c is not None:
                s["max_exp_avg_sq"] = c


class AdamW(Adam):
    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
        )


class RMSprop(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check(lr, eps=eps, weight_decay=weight_decay, momentum=momentum, alpha=alpha)
        flags = _flags("RMSprop", foreach, None, capturable, differentiable)
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            maximize=maximize,
            **flags,
        )
        super().__init__(params, defaults)

    def _update(self, g, params):
        st = [self._state(p) for p in params]
        sq, ga, mb = _vkml.rmsprop_step(
            params,
            [s.get("square_avg") for s in st],
            [s.get("grad_avg") for s in st],
            [s.get("momentum_buffer") for s in st],
            lr=g["lr"],
            alpha=g["alpha"],
            eps=g["eps"],
            weight_decay=g["weight_decay"],
            momentum=g["momentum"],
            centered=g["centered"],
            maximize=g["maximize"],
        )
        for s, a, b, c in zip(st, sq, ga, mb):
            s["step"] = s.get("step", 0) + 1
            s["square_avg"] = a
            for key, value in (("grad_avg", b), ("momentum_buffer", c)):
                if value is not None:
                    s[key] = value


class Adagrad(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        flags = _flags("Adagrad", foreach, fused, False, differentiable)
        _check(
            lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            eps=eps,
            initial_accumulator_value=initial_accumulator_value,
        )
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            eps=eps,
            initial_accumulator_value=initial_accumulator_value,
            maximize=maximize,
            **flags,
        )
        super().__init__(params, defaults)

    def _update(self, g, params):
        st = [self._state(p) for p in params]
        steps, sums = _vkml.adagrad_step(
            params,
            [int(s.get("step", 0)) for s in st],
            [s.get("sum") for s in st],
            lr=g["lr"],
            lr_decay=g["lr_decay"],
            weight_decay=g["weight_decay"],
            eps=g["eps"],
            initial_accumulator_value=g["initial_accumulator_value"],
            maximize=g["maximize"],
        )
        for s, k, total in zip(st, steps, sums):
            s["step"], s["sum"] = k, total
