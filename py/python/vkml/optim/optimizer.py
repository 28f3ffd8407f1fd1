"""`Optimizer`: param groups, per-parameter state and torch's `state_dict` layout. The built-in optimizers hand
each group to its rule in Rust (`vkml_core::nn::optimizer`), which writes parameters and state in place and realizes
them."""

import copy
from typing import Optional

from .. import _vkml


class Optimizer:
    """torch's Optimizer: param groups (dicts of options by torch's names), per-parameter state dicts
    (`self.state[p]`, torch's layout) and `state_dict`. The built-in optimizers name their rule in `_kind`; Rust
    checks a group's options against it (torch's messages) and steps the group, reading and writing the state dicts.
    A subclass of this class with its own `step` works as in torch."""

    _kind: Optional[str] = None

    def __init__(self, params, defaults):
        if self._kind is not None:
            _vkml.optimizer_check(self._kind, defaults)
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group):
        group = dict(group)
        ps = group["params"]
        group["params"] = [ps] if hasattr(ps, "requires_grad") else list(ps)
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    p.grad = None if set_to_none else p.grad.detach() * 0

    def _state(self, p):
        return self.state.setdefault(p, {})

    def state_dict(self):
        index, groups, n = {}, [], 0
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), n)
                ids.append(index[id(p)])
                n += 1
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ids})
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        by_index = {}
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
            for p, i in zip(mine["params"], theirs["params"]):
                by_index[i] = p
            mine.update({k: copy.deepcopy(v) for k, v in theirs.items() if k != "params"})
        self.state = {}
        for i, s in state_dict["state"].items():
            p = by_index[int(i)]
            self.state[p] = {k: (v.to(p.device) if hasattr(v, "device") else v) for k, v in s.items()}

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for g in self.param_groups:
            params = [p for p in g["params"] if p.grad is not None]
            if params:
                self._update(g, params)
        return loss

    def _update(self, group, params):
        if self._kind is None:
            raise NotImplementedError(f"{type(self).__name__} defines no step")
        _vkml.optimizer_step(self._kind, group, params, [self._state(p) for p in params])

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(g.items()) if k != "params"]
        return "\n".join(lines) + "\n)"
