"""Learning-rate schedules with torch's closed forms; they only set `lr` in the optimizer's param groups."""

import math


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:
                g.setdefault("initial_lr", g["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, base_lr, epoch):
        raise NotImplementedError

    def get_last_lr(self):
        return list(self._last_lr)

    def step(self):
        self.last_epoch += 1
        for g, base in zip(self.optimizer.param_groups, self.base_lrs):
            g["lr"] = self.lr_at(base, self.last_epoch)
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state):
        self.__dict__.update(state)


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        self._i = 0
        super().__init__(optimizer, last_epoch)

    def step(self):
        self.last_epoch += 1
        for g, base, f in zip(self.optimizer.param_groups, self.base_lrs, self.lr_lambdas):
            g["lr"] = base * f(self.last_epoch)
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base, epoch):
        return base * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base, epoch):
        return base * self.gamma ** sum(1 for m in self.milestones if m <= epoch)


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base, epoch):
        return base * self.gamma**epoch


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base, epoch):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """torch's OneCycleLR with cosine annealing (three_phase=False): warm up to max_lr, then anneal."""

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        div_factor=25.0,
        final_div_factor=1e4,
        last_epoch=-1,
    ):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
            total_steps = epochs * steps_per_epoch
        self.total_steps = total_steps
        n = len(optimizer.param_groups)
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        for g, m in zip(optimizer.param_groups, max_lrs):
            g["initial_lr"] = m / div_factor
            g["max_lr"] = m
            g["min_lr"] = g["initial_lr"] / final_div_factor
        self.phases = [
            (float(pct_start * total_steps) - 1, "initial_lr", "max_lr"),
            (float(total_steps) - 1, "max_lr", "min_lr"),
        ]
        super().__init__(optimizer, last_epoch)

    def step(self):
        self.last_epoch += 1
        k = self.last_epoch
        if k > self.total_steps:
            raise ValueError(f"Tried to step {k} times. The specified number of total steps is {self.total_steps}")
        for g in self.optimizer.param_groups:
            start = 0.0
            for i, (end, a, b) in enumerate(self.phases):
                if k <= end or i == len(self.phases) - 1:
                    pct = (k - start) / (end - start)
                    g["lr"] = g[b] + (g[a] - g[b]) / 2.0 * (math.cos(math.pi * pct) + 1)
                    break
                start = end
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]
