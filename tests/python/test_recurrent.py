"""RNN (tanh, relu), LSTM and GRU against torch on every device: the same state_dict, stacked, bidirectional,
batch_first and unbatched inputs, initial states, forward and backward, and the modules' names and shapes."""

import pytest
import torch
import vkml
from gradcheck import check_grad
from helpers import check_op

HIN, H = 3, 4


def shapes(kind, layers, dirs, proj=0):
    gates = {"rnn": 1, "lstm": 4, "gru": 3}[kind] * H
    real = proj or H
    out = []
    for layer in range(layers):
        for _ in range(dirs):
            width = HIN if layer == 0 else real * dirs
            out += [(gates, width), (gates, real), (gates,), (gates,)] + ([(proj, H)] if proj else [])
    return out


def names(layers, dirs, proj=0):
    out = []
    for layer in range(layers):
        for d in range(dirs):
            s = f"_l{layer}" + ("_reverse" if d else "")
            out += [f"weight_ih{s}", f"weight_hh{s}", f"bias_ih{s}", f"bias_hh{s}"] + (
                [f"weight_hr{s}"] if proj else []
            )
    return out


def model(kind, layers=1, bidirectional=False, batch_first=False, nonlinearity="tanh", with_state=False, proj=0):
    dirs = 2 if bidirectional else 1

    def f(x, *ws, lib):
        kw = {"num_layers": layers, "bidirectional": bidirectional, "batch_first": batch_first}
        if kind == "rnn":
            m = lib.nn.RNN(HIN, H, nonlinearity=nonlinearity, **kw)
        elif proj:
            m = lib.nn.LSTM(HIN, H, proj_size=proj, **kw)
        else:
            m = {"lstm": lib.nn.LSTM, "gru": lib.nn.GRU}[kind](HIN, H, **kw)
        m = m.to(x.dtype) if lib is torch else m.to(x.device).to(dtype=x.dtype)
        n = len(names(layers, dirs, proj))
        m.load_state_dict(dict(zip(names(layers, dirs, proj), ws[:n])))
        state = ws[n:] if with_state else ()
        hx = None
        if state:
            hx = (state[0], state[1]) if kind == "lstm" else state[0]
        out, hn = m(x, hx)
        return (out, *hn) if kind == "lstm" else (out, hn)

    f.__name__ = f"{kind}(layers={layers}, bidirectional={bidirectional}, batch_first={batch_first}, proj={proj})"
    return f


def forward_only(f):
    """`f` under no_grad: the modules' outputs would otherwise carry history into the comparison."""

    def g(*a, lib):
        with lib.no_grad():
            return f(*a, lib=lib)

    g.__name__ = f.__name__
    return g


CONFIGS = [
    ("rnn", 1, False, False, "tanh"),
    ("rnn", 2, True, False, "relu"),
    ("lstm", 1, False, False, "tanh"),
    ("lstm", 2, True, True, "tanh"),
    ("gru", 1, False, False, "tanh"),
    ("gru", 2, False, True, "tanh"),
]


@pytest.mark.parametrize(("kind", "layers", "bi", "bf", "act"), CONFIGS)
def test_matches_torch(kind, layers, bi, bf, act, device):
    dirs = 2 if bi else 1
    x = (2, 5, HIN) if bf else (5, 2, HIN)
    check_op(kind, [x, *shapes(kind, layers, dirs)], forward_only(model(kind, layers, bi, bf, act)), device)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_initial_state_and_unbatched(kind, device):
    states = [(1, 2, H), (1, 2, H)] if kind == "lstm" else [(1, 2, H)]
    check_op(kind, [(5, 2, HIN), *shapes(kind, 1, 1), *states], forward_only(model(kind, with_state=True)), device)
    check_op(kind, [(5, HIN), *shapes(kind, 1, 1)], forward_only(model(kind)), device)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_grad(kind, device):
    check_grad(kind, [(4, 2, HIN), *shapes(kind, 1, 1)], model(kind), device)


P = 2  # LSTM's proj_size


def test_lstm_proj_size(device):
    """proj_size: h (and the output) projected by weight_hr to P, c kept at H; stacked and bidirectional, initial
    states, batch_first, unbatched, and gradients."""
    ws = shapes("lstm", 2, 2, P)
    states = [(4, 2, P), (4, 2, H)]
    check_op("lstm", [(5, 2, HIN), *ws, *states], forward_only(model("lstm", 2, True, with_state=True, proj=P)), device)
    check_op("lstm", [(2, 5, HIN), *ws], forward_only(model("lstm", 2, True, True, proj=P)), device)
    check_op("lstm", [(5, HIN), *shapes("lstm", 1, 1, P)], forward_only(model("lstm", proj=P)), device)
    check_grad("lstm", [(4, 2, HIN), *shapes("lstm", 1, 1, P)], model("lstm", proj=P), device)


def test_proj_size_refusals():
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        vkml.nn.LSTM(HIN, H, proj_size=H)
    with pytest.raises(ValueError, match="positive integer or zero"):
        vkml.nn.LSTM(HIN, H, proj_size=-1)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        vkml.nn.GRU(HIN, H, proj_size=2)


def test_modules_have_torch_names_shapes_and_reprs(device):
    for ours, ref in [
        (
            vkml.nn.LSTM(HIN, H, 2, bidirectional=True, proj_size=P),
            torch.nn.LSTM(HIN, H, 2, bidirectional=True, proj_size=P),
        ),
        (vkml.nn.LSTM(HIN, H, 2, bidirectional=True), torch.nn.LSTM(HIN, H, 2, bidirectional=True)),
        (vkml.nn.GRU(HIN, H, batch_first=True), torch.nn.GRU(HIN, H, batch_first=True)),
        (vkml.nn.RNN(HIN, H, 1, "relu"), torch.nn.RNN(HIN, H, 1, "relu")),
    ]:
        assert repr(ours) == repr(ref)
        assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
            k: tuple(v.shape) for k, v in ref.state_dict().items()
        }
        assert list(ours.state_dict()) == list(ref.state_dict())
