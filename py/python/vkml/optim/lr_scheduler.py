"""Learning-rate schedules with torch's arguments: they keep the step count and set `lr` (and OneCycleLR's momentum)
in the optimizer's param groups; the rates are Rust's closed forms (vkml_core::nn::schedule), which JavaScript's
schedulers share."""

import warnings
from typing import Optional

from .. import _vkml


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1, **options):
        """`options`: a schedule's arguments, kept as attributes (torch's) and handed to Rust."""
        if options:
            self._options = options
            self.__dict__.update(options)
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:
                g.setdefault("initial_lr", g["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    _kind: Optional[str] = None
    _options: dict = {}

    def lr_at(self, base_lr, epoch):
        return _vkml.schedule_lr(self._kind, self._options, base_lr, epoch)

    def get_last_lr(self):
        return list(self._last_lr)

    def step(self, epoch=None):
        """The next step's rates; `epoch` (deprecated in torch, with the same warning) jumps to that step."""
        if epoch is not None:
            warnings.warn(
                "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible.",
                UserWarning,
                stacklevel=2,
            )
            self.last_epoch = epoch - 1
        self.last_epoch += 1
        self._set_lrs()
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _set_lrs(self):
        for g, base in zip(self.optimizer.param_groups, self.base_lrs):
            g["lr"] = self.lr_at(base, self.last_epoch)

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        self._i = 0
        super().__init__(optimizer, last_epoch)

    def _set_lrs(self):
        for g, base, f in zip(self.optimizer.param_groups, self.base_lrs, self.lr_lambdas):
            g["lr"] = base * f(self.last_epoch)


class StepLR(LRScheduler):
    _kind = "StepLR"

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        super().__init__(optimizer, last_epoch, step_size=step_size, gamma=gamma)


class MultiStepLR(LRScheduler):
    _kind = "MultiStepLR"

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        super().__init__(optimizer, last_epoch, milestones=sorted(milestones), gamma=gamma)


class ExponentialLR(LRScheduler):
    _kind = "ExponentialLR"

    def __init__(self, optimizer, gamma, last_epoch=-1):
        super().__init__(optimizer, last_epoch, gamma=gamma)


class CosineAnnealingLR(LRScheduler):
    _kind = "CosineAnnealingLR"

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        super().__init__(optimizer, last_epoch, T_max=T_max, eta_min=eta_min)


class OneCycleLR(LRScheduler):
    """torch's OneCycleLR: warm up to max_lr, then anneal (two phases, or three with `three_phase`), cycling the
    momentum (SGD's `momentum`, Adam's first beta) the other way when `cycle_momentum`, as torch does by default."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):  # fmt: skip
        if total_steps is not None and not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        if not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        self._options = dict(total_steps=total_steps, epochs=epochs, steps_per_epoch=steps_per_epoch,
                             pct_start=pct_start, anneal_strategy=anneal_strategy, cycle_momentum=cycle_momentum,
                             div_factor=div_factor, final_div_factor=final_div_factor,
                             three_phase=three_phase)  # fmt: skip
        self.cycle_momentum = cycle_momentum
        groups = optimizer.param_groups

        def per_group(v):
            return list(v) if isinstance(v, (list, tuple)) else [v] * len(groups)

        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self._beta1 = "betas" in optimizer.defaults
        keys = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")
        for g, m, lo, hi in zip(groups, per_group(max_lr), per_group(base_momentum), per_group(max_momentum)):
            values = dict(zip(keys, _vkml.one_cycle_group(self._options, m, lo, hi)))  # checks the options
            if last_epoch == -1:
                g.update({k: values[k] for k in keys[:3]})
                if cycle_momentum:
                    self._set_momentum(g, hi)
                    g.update({k: values[k] for k in keys[3:]})
        self.total_steps = int(self._options["total_steps"] or epochs * steps_per_epoch)
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, g, m):
        if self._beta1:
            g["betas"] = (m, *g["betas"][1:])
        else:
            g["momentum"] = m

    def _set_lrs(self):
        for g in self.optimizer.param_groups:
            g["lr"], momentum = _vkml.one_cycle_at(self._options, g, self.last_epoch)
            if self.cycle_momentum:
                self._set_momentum(g, momentum)
