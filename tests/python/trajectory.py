"""Training parity as a contract: a run of vkml in float32 must stay about as close to torch's float64 run of the same
steps as torch's own float32 run does. The allowance is 4x torch's own distance plus one float32 rounding of each
value: vkml rounds `y + a·x` twice where torch's CPU kernels fuse it into one rounding (up to twice the roundings per
update), and two independent sequences of roundings walk apart by another factor of about two. torch's distance is
the whole model's (its largest over all parameters): every step's rounding in one tensor reaches every other tensor
through the next forward and backward pass, so a tensor that torch's float32 run happened to track closely (a small
bias: within 2e-8 after 5 centered-RMSprop steps) bounds nothing about another run's."""

import numpy as np
import torch

U32 = 2.0**-24
FACTOR = 4


def close_to_float64(ours: dict, torch32: dict, torch64: dict, what: str) -> None:
    """Each parameter of `ours` (NumPy arrays) within FACTOR·drift + 2u·|torch64| of torch64, drift the largest
    |torch32 − torch64| over all parameters."""
    drift = model_drift(torch32, torch64)
    for name, ref in torch64.items():
        ref = np.asarray(ref, np.float64)
        t32 = np.asarray(torch32[name], np.float64)
        got = np.asarray(ours[name], np.float64)
        assert got.shape == ref.shape, f"{what}: {name} has shape {got.shape}, torch {ref.shape}"
        allowed = FACTOR * drift + 2 * U32 * np.abs(ref)
        err = np.abs(got - ref)
        worst = np.unravel_index(np.argmax(err - allowed), err.shape) if err.size else ()
        assert (err <= allowed).all(), (
            f"{what}: {name} is {err[worst]:.3g} from torch's float64 run at {worst} (allowed {allowed[worst]:.3g}: "
            f"torch's own float32 run is {np.abs(t32 - ref).max(initial=0.0):.3g} away here, {drift:.3g} at most)"
        )


def model_drift(torch32: dict, torch64: dict) -> float:
    """The largest |torch32 − torch64| over all parameters: torch's own float32 distance from its float64 run."""
    return max(
        (
            float(np.abs(np.asarray(torch32[k], np.float64) - np.asarray(v, np.float64)).max(initial=0.0))
            for k, v in torch64.items()
        ),
        default=0.0,
    )


def torch_state(model) -> dict:
    return {k: v.detach().double().numpy() for k, v in model.state_dict().items()}


def seeded_mlp_state(seed: int, sizes=(20, 16, 5)) -> dict:
    """Initial weights from torch's own initialisers (as float32 arrays), for both libraries to start from."""
    torch.manual_seed(seed)
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
