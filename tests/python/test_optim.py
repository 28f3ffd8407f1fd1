"""Optimizers against torch: 100 steps from the same initial weights on the same batches, for each optimizer and
its options, on every device; vkml's parameters must track torch's float64 trajectory as well as torch's float32
run does (tests/python/trajectory.py). Also the optimizer API: state_dict round trip, param groups, schedules."""

import numpy as np
import pytest
import torch
import vkml
from trajectory import close_to_float64, seeded_mlp_state, torch_state

CONFIGS = {
    "sgd": ("SGD", dict(lr=0.05)),
    "sgd-momentum": ("SGD", dict(lr=0.05, momentum=0.9)),
    "sgd-nesterov-wd": ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    "sgd-dampening-maximize": ("SGD", dict(lr=0.01, momentum=0.5, dampening=0.3, maximize=True)),
    "adam": ("Adam", dict(lr=1e-3)),
    "adam-wd-amsgrad": ("Adam", dict(lr=2e-3, weight_decay=1e-2, amsgrad=True, betas=(0.8, 0.99))),
    "adamw": ("AdamW", dict(lr=1e-3)),
    "adamw-amsgrad": ("AdamW", dict(lr=1e-3, amsgrad=True, weight_decay=0.1)),
    "rmsprop": ("RMSprop", dict(lr=1e-3)),
    "rmsprop-centered-momentum-wd": ("RMSprop", dict(lr=1e-3, centered=True, momentum=0.5, weight_decay=1e-2)),
    "adagrad": ("Adagrad", dict(lr=0.05)),
    "adagrad-decay-init-wd": (
        "Adagrad",
        dict(lr=0.05, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=1e-3),
    ),
}
STEPS = 100


def _batches(seed=0, n=STEPS, batch=16):
    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal((batch, 20)).astype(np.float32), rng.integers(0, 5, batch).astype(np.int64))
        for _ in range(n)
    ]


def _run_torch(state, opt_name, kw, batches, dtype):
    model = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 5)).to(dtype)
    model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    opt = getattr(torch.optim, opt_name)(model.parameters(), **kw)
    for x, y in batches:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(torch.tensor(x).to(dtype)), torch.tensor(y)).backward()
        opt.step()
    return torch_state(model)


def _run_vkml(state, opt_name, kw, batches, device):
    model = vkml.nn.Sequential(vkml.nn.Linear(20, 16), vkml.nn.ReLU(), vkml.nn.Linear(16, 5))
    model.load_state_dict(state)
    model.to(device)
    opt = getattr(vkml.optim, opt_name)(model.parameters(), **kw)
    for x, y in batches:
        opt.zero_grad()
        loss = vkml.nn.cross_entropy(model(vkml.tensor(x, device=device)), vkml.tensor(y, device=device))
        vkml.backward(loss)
        opt.step()
    return {k: v.numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_parity_100_steps(config, device):
    opt_name, kw = CONFIGS[config]
    state = seeded_mlp_state(3)
    batches = _batches()
    t64 = _run_torch(state, opt_name, kw, batches, torch.float64)
    t32 = _run_torch(state, opt_name, kw, batches, torch.float32)
    ours = _run_vkml(state, opt_name, kw, batches, device)
    close_to_float64(ours, t32, t64, f"{config} on {device} after {STEPS} steps")


def test_step_realizes_and_graph_does_not_grow(device):
    model = vkml.nn.Linear(8, 4).to(device)
    opt = vkml.optim.Adam(model.parameters())
    x = vkml.randn(16, 8, device=device)
    y = vkml.tensor(np.arange(16) % 4, device=device)
    for _ in range(3):
        opt.zero_grad()
        vkml.backward(vkml.nn.cross_entropy(model(x), y))
        opt.step()
    before = vkml.stats()["nodes"]
    for _ in range(3):
        opt.zero_grad()
        vkml.backward(vkml.nn.cross_entropy(model(x), y))
        opt.step()
    per_step = (vkml.stats()["nodes"] - before) / 3
    assert model.weight.grad_fn is None and model.weight.is_leaf
    for _ in range(3):
        opt.zero_grad()
        vkml.backward(vkml.nn.cross_entropy(model(x), y))
        opt.step()
    assert (vkml.stats()["nodes"] - before) / 6 == per_step, "the graph built per step must not grow across steps"


def test_state_dict_round_trip_and_groups(device):
    model = vkml.nn.Sequential(vkml.nn.Linear(4, 3), vkml.nn.Linear(3, 2)).to(device)
    opt = vkml.optim.Adam(
        [{"params": model[0].parameters()}, {"params": model[1].parameters(), "lr": 0.1}], lr=0.01
    )
    assert [g["lr"] for g in opt.param_groups] == [0.01, 0.1]
    x = vkml.randn(5, 4, device=device)
    model(x).sum().backward()
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2, 3] and sd["state"][0]["step"] == 1
    opt2 = vkml.optim.Adam(
        [{"params": model[0].parameters()}, {"params": model[1].parameters(), "lr": 0.5}], lr=0.01
    )
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]["lr"] == 0.1 and opt2.state[model[0].weight]["step"] == 1
    with pytest.raises(ValueError, match="empty parameter list"):
        vkml.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        vkml.optim.Adam(model.parameters(), lr=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        vkml.optim.SGD(model.parameters(), lr=0.1, nesterov=True)


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("StepLR", dict(step_size=3, gamma=0.5)),
        ("MultiStepLR", dict(milestones=[2, 5], gamma=0.1)),
        ("ExponentialLR", dict(gamma=0.9)),
        ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
        ("LambdaLR", dict(lr_lambda=lambda e: 1 / (e + 1))),
        ("OneCycleLR", dict(max_lr=0.5, total_steps=12)),
    ],
)
def test_lr_schedules_match_torch(name, kw):
    tp = [torch.nn.Parameter(torch.zeros(1))]
    topt = torch.optim.SGD(tp, lr=0.1)
    tsched = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    vp = [vkml.nn.Parameter(vkml.zeros(1))]
    vopt = vkml.optim.SGD(vp, lr=0.1)
    vsched = getattr(vkml.optim.lr_scheduler, name)(vopt, **kw)
    for _ in range(10):
        # closed forms here, recursive products in some of torch's schedules: a few float64 roundings apart
        assert vsched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-12, abs=1e-15)
        topt.step()
        tsched.step()
        vopt.step()
        vsched.step()


@pytest.mark.parametrize(
    ("opt", "kw"),
    [
        ("SGD", dict(momentum=0.9)),
        ("Adam", dict()),
        ("SGD", dict(momentum=0.9, three_phase=True, anneal_strategy="linear")),
        ("Adam", dict(cycle_momentum=False, pct_start=0.5)),
    ],
)
def test_one_cycle_cycles_momentum_as_torch(opt, kw):
    """torch's default cycle_momentum=True moves SGD's momentum or Adam's first beta against the rate."""
    okw = {k: v for k, v in kw.items() if k == "momentum"}
    skw = {k: v for k, v in kw.items() if k != "momentum"}
    topt = getattr(torch.optim, opt)([torch.nn.Parameter(torch.zeros(1))], lr=0.1, **okw)
    vopt = getattr(vkml.optim, opt)([vkml.nn.Parameter(vkml.zeros(1))], lr=0.1, **okw)
    tsched = torch.optim.lr_scheduler.OneCycleLR(topt, max_lr=0.5, total_steps=12, **skw)
    vsched = vkml.optim.lr_scheduler.OneCycleLR(vopt, max_lr=0.5, total_steps=12, **skw)
    key = "betas" if opt == "Adam" else "momentum"
    for _ in range(12):
        tg, vg = topt.param_groups[0], vopt.param_groups[0]
        assert vg["lr"] == pytest.approx(tg["lr"], rel=1e-12, abs=1e-15)
        assert vg[key] == pytest.approx(tg[key], rel=1e-12)
        topt.step()
        tsched.step()
        vopt.step()
        vsched.step()


def test_torch_switches_and_decoupled_adam():
    """foreach/fused/capturable change nothing; Adam(decoupled_weight_decay=True) steps as AdamW."""
    def run(lib, cls, **kw):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        o = getattr(lib.optim, cls)([p], lr=0.1, weight_decay=0.5, **kw)
        for _ in range(3):
            p.grad = lib.tensor([0.5, 0.25])
            o.step()
        return p.detach().numpy()

    assert run(vkml, "Adam", decoupled_weight_decay=True) == pytest.approx(run(torch, "AdamW"), rel=1e-6)
    assert run(vkml, "Adam", foreach=True, fused=False, capturable=True) == pytest.approx(run(torch, "Adam"), rel=1e-6)
    with pytest.raises(ValueError, match="differentiable"):
        vkml.optim.SGD([vkml.nn.Parameter(vkml.zeros(1))], differentiable=True)
