"""nn.Module and the layers: torch's parameter names, shapes and initialisation, state_dict loading from torch models
without translation (torch tensors taken directly), outputs matching torch under the layers' op contracts, and the
safetensors save/load path including malformed and hostile files."""

import inspect
import json
import struct

import numpy as np
import pytest
import torch
import vkml
from helpers import check_op
from vkml import nn


def _pairs(model):
    return [(k, tuple(v.shape)) for k, v in model.state_dict().items()]


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(784, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))


def _cnn(lib):
    return lib.nn.Sequential(
        lib.nn.Conv2d(1, 4, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.MaxPool2d(2),
        lib.nn.Flatten(),
        lib.nn.Linear(4 * 14 * 14, 10),
    )


@pytest.mark.parametrize("build", [_mlp, _cnn])
def test_names_shapes_and_init_follow_torch(build):
    ours, theirs = build(vkml), build(torch)
    assert _pairs(ours) == _pairs(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        # torch's default init: uniform on ±1/√fan_in for weights (kaiming_uniform, a=√5) and biases. Values must
        # lie inside; large tensors must also have the uniform's mean 0 and variance b²/3, each within 5σ.
        fan_in = q.shape[1] * (q[0][0].numel() if q.dim() > 2 else 1) if q.dim() > 1 else theirs_fan(theirs, name)
        b = 1 / np.sqrt(fan_in)
        v = p.numpy().astype(np.float64).ravel()
        assert np.abs(v).max() <= b, f"{name}: values outside ±{b}"
        if v.size >= 1000:
            assert abs(v.mean()) < 5 * b / np.sqrt(3 * v.size), f"{name}: mean {v.mean()}"
            var_sd = np.sqrt(4 * b**4 / 45 / v.size)
            assert abs(v.var() - b * b / 3) < 5 * var_sd, f"{name}: variance {v.var()} vs {b * b / 3}"
        assert p.requires_grad and isinstance(p, nn.Parameter) and isinstance(p, vkml.Tensor)


def theirs_fan(model, bias_name):
    weight = dict(model.named_parameters())[bias_name.replace("bias", "weight")]
    return weight.shape[1] * (weight[0][0].numel() if weight.dim() > 2 else 1)


LAYERS = [
    ("linear", lambda lib: lib.nn.Linear(12, 7), (5, 12)),
    ("linear", lambda lib: lib.nn.Linear(12, 7, bias=False), (3, 4, 12)),
    ("conv1d", lambda lib: lib.nn.Conv1d(3, 5, 3, stride=2, padding=1), (2, 3, 9)),
    ("conv1d", lambda lib: lib.nn.Conv1d(4, 6, 2, groups=2, padding="same", bias=False), (1, 4, 7)),
    ("conv2d", lambda lib: lib.nn.Conv2d(3, 5, 3, stride=2, padding=1), (2, 3, 9, 9)),
    ("conv2d", lambda lib: lib.nn.Conv2d(4, 6, (3, 2), groups=2, padding="same", bias=False), (1, 4, 7, 6)),
    ("max_pool2d", lambda lib: lib.nn.MaxPool2d(3, 2, 1), (2, 3, 9, 9)),
    ("avg_pool2d", lambda lib: lib.nn.AvgPool2d(2), (2, 3, 8, 8)),
    ("adaptive_avg_pool2d", lambda lib: lib.nn.AdaptiveAvgPool2d(1), (2, 3, 8, 8)),
    ("sigmoid", lambda lib: lib.nn.Sigmoid(), (4, 5)),
    ("softmax", lambda lib: lib.nn.Softmax(dim=1), (4, 5)),
    ("log_softmax", lambda lib: lib.nn.LogSoftmax(dim=1), (4, 5)),
    ("relu", lambda lib: lib.nn.ReLU(), (4, 5)),
    ("flatten", lambda lib: lib.nn.Flatten(), (2, 3, 4)),
    ("batch_norm", lambda lib: lib.nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("batch_norm", lambda lib: lib.nn.BatchNorm1d(3).eval(), (6, 3)),
    ("layer_norm", lambda lib: lib.nn.LayerNorm([4, 5]), (3, 4, 5)),
    ("group_norm", lambda lib: lib.nn.GroupNorm(2, 4), (3, 4, 5)),
]


@pytest.mark.parametrize(("op", "make", "shape"), LAYERS)
def test_torch_state_dict_loads_untranslated(op, make, shape):
    torch.manual_seed(0)
    reference = make(torch)
    ours = make(vkml)
    ours.load_state_dict(reference.state_dict())  # torch tensors, handed over as they are
    for k, v in reference.state_dict().items():
        assert np.array_equal(ours.state_dict()[k].numpy(), v.numpy()), k


@pytest.mark.parametrize(("op", "make", "shape"), LAYERS)
def test_layer_matches_torch(op, make, shape, device):
    """The module with given parameters (inputs of the check, so they are upcast and made extreme like any input)
    against torch's module called with the same tensors, under the op's contract."""
    names = [k for k, _ in make(torch).named_parameters()]
    shapes = [shape] + [tuple(p.shape) for _, p in make(torch).named_parameters()]

    def run(x, *params, lib, dev):
        if lib is torch:
            return torch.func.functional_call(make(torch).to(x.dtype), dict(zip(names, params)), (x,))
        m = make(vkml)
        m.load_state_dict(dict(zip(names, params)), strict=False)  # buffers keep their (torch-equal) defaults
        return m.to(dev)(x)

    check_op(op, shapes, run, device)


def test_batch_norm_running_stats_follow_torch(device):
    torch.manual_seed(1)
    t, v = torch.nn.BatchNorm2d(3, momentum=0.3), vkml.nn.BatchNorm2d(3, momentum=0.3)
    v.load_state_dict(t.state_dict())
    v.to(device)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((4, 3, 5, 5)).astype(np.float32) * (seed + 1)
        t(torch.tensor(x))
        v(vkml.tensor(x, device=device))
    for k, ref in t.state_dict().items():
        got = v.state_dict()[k].numpy()
        # running averages of f32 means and variances over 100 values: within γ(100) of their terms per update
        bound = 3 * (100 * 2.0**-24) * np.abs(ref.numpy()) + 2.0**-24
        assert np.all(np.abs(got - ref.numpy()) <= bound), (k, got, ref)


NORMS = [
    lambda lib: lib.nn.BatchNorm1d(3),
    lambda lib: lib.nn.BatchNorm2d(4, affine=False),
    lambda lib: lib.nn.BatchNorm2d(2, track_running_stats=False),
    lambda lib: lib.nn.LayerNorm([2, 3]),
    lambda lib: lib.nn.LayerNorm(4, bias=False),
    lambda lib: lib.nn.LayerNorm(4, elementwise_affine=False),
    lambda lib: lib.nn.GroupNorm(2, 4),
    lambda lib: lib.nn.GroupNorm(1, 3, affine=False),
    lambda lib: lib.nn.Embedding(5, 3),
    lambda lib: lib.nn.Embedding(5, 3, padding_idx=-2),
]


def _entries(model):
    """Every registered parameter and buffer, None ones included, with its dtype."""
    regs = [("p", k, v) for k, v in model._parameters.items()] + [("b", k, v) for k, v in model._buffers.items()]
    described = lambda v: None if v is None else (tuple(v.shape), str(v.dtype).split(".")[-1])  # noqa: E731
    return sorted((kind, k, described(v)) for kind, k, v in regs)


@pytest.mark.parametrize("make", NORMS)
def test_norm_and_embedding_layouts_hold_what_torch_holds(make, device):
    """The layouts (vkml_core::nn::affine, weighted's embedding) register torch's parameters and buffers, None
    ones included, start them as torch does, and reset_parameters/reset_running_stats start them again."""
    torch.manual_seed(0)
    ours, theirs = make(vkml).to(device), make(torch)
    assert _entries(ours) == _entries(theirs)
    if isinstance(theirs, torch.nn.Embedding):
        w = ours.weight.numpy()
        if theirs.padding_idx is not None:
            assert ours.padding_idx == theirs.padding_idx and not w[theirs.padding_idx].any()
            w = np.delete(w, theirs.padding_idx, axis=0)
        assert np.all(w != 0) and np.abs(w).max() < 6  # N(0, 1) draws
    else:
        for k, v in theirs.state_dict().items():
            assert np.array_equal(ours.state_dict()[k].numpy(), v.numpy()), k
    with vkml.no_grad():
        for t in list(ours.parameters()) + [b for b in ours.buffers() if b.is_floating_point()]:
            t.add_(3)
    ours.reset_parameters()
    if isinstance(theirs, torch.nn.Embedding):
        assert theirs.padding_idx is None or not ours.weight.numpy()[theirs.padding_idx].any()
        assert np.abs(ours.weight.numpy()).max() < 6
        return
    for k, v in theirs.state_dict().items():
        assert np.array_equal(ours.state_dict()[k].numpy(), v.numpy()), k


def test_batch_norm_reset_running_stats():
    t, v = torch.nn.BatchNorm1d(3), vkml.nn.BatchNorm1d(3)
    x = np.random.default_rng(0).standard_normal((8, 3)).astype(np.float32)
    t(torch.tensor(x))
    v(vkml.tensor(x))
    assert int(v.num_batches_tracked.item()) == 1 and v.running_var.numpy().min() != 1
    with vkml.no_grad():
        v.weight.mul_(2)
    t.reset_running_stats()
    v.reset_running_stats()
    for k, ref in t.state_dict().items():
        if k.startswith("running") or k == "num_batches_tracked":
            assert np.array_equal(v.state_dict()[k].numpy(), ref.numpy()), k
    assert np.array_equal(v.weight.numpy(), np.full(3, 2, np.float32))  # parameters untouched


def test_module_api():
    m = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 2))
    assert len(list(m.parameters())) == 4 and len(list(m.children())) == 3 and len(list(m.modules())) == 4
    assert m.training and not m.eval().training and not m[1].training and m.train().training
    m.register_buffer("steps", vkml.zeros(1))
    m.register_buffer("scratch", vkml.zeros(2), persistent=False)
    assert "steps" in m.state_dict() and "scratch" not in m.state_dict()
    m(vkml.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Dropout", "Linear", "Sequential"]
    half = m.half()
    assert all(p.dtype == vkml.float16 for p in half.parameters())
    assert "Linear(in_features=3, out_features=4, bias=True)" in repr(nn.Sequential(nn.Linear(3, 4)))
    with pytest.raises(TypeError, match="parameter"):
        m[0].weight = vkml.zeros(4, 3)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = m.nope


def test_subclassing_module_and_parameter():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(vkml.ones(3))
            self.body = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])
            self.heads = nn.ModuleDict({"a": nn.Linear(3, 1)})

        def forward(self, x):
            for layer in self.body:
                x = layer(x).relu()
            return self.heads["a"](x * self.scale)

    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "body.0.weight", "body.0.bias", "body.1.weight", "body.1.bias", "heads.a.weight",
                     "heads.a.bias"]
    net(vkml.randn(2, 3)).sum().backward()
    assert net.scale.grad.shape == (3,)


def test_load_state_dict_errors():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        m.load_state_dict({"weight": np.zeros((2, 3), np.float32)})
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        m.load_state_dict({"weight": np.zeros((2, 3)), "bias": np.zeros(2), "extra": np.zeros(1)})
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        m.load_state_dict({"weight": np.zeros((3, 3)), "bias": np.zeros(2)})
    r = m.load_state_dict({"weight": np.ones((2, 3))}, strict=False)
    assert r.missing_keys == ["bias"] and r.unexpected_keys == []
    assert np.array_equal(m.weight.numpy(), np.ones((2, 3), np.float32))


def test_save_load_round_trip(tmp_path, device):
    m = _cnn(vkml).to(device)
    path = tmp_path / "m.safetensors"
    vkml.save(m.state_dict(), str(path), metadata={"note": "test"})
    loaded = vkml.load(str(path), device=device)
    for k, v in m.state_dict().items():
        assert loaded[k].dtype == v.dtype and str(loaded[k].device) == device
        assert np.array_equal(loaded[k].numpy(), v.numpy())
    # torch's safetensors reader would read the same bytes; here the header is checked as JSON.
    header_len = struct.unpack("<Q", path.read_bytes()[:8])[0]
    header = json.loads(path.read_bytes()[8 : 8 + header_len])
    assert header["__metadata__"] == {"note": "test"} and header["0.weight"]["dtype"] == "F32"
    fresh = _cnn(vkml)
    fresh.load_state_dict(vkml.load(str(path)))


def _st(header: dict, body: bytes) -> bytes:
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + body


@pytest.mark.parametrize(
    ("name", "data", "match"),
    [
        ("empty", b"", "not a valid safetensors"),
        ("short header", struct.pack("<Q", 10**12) + b"{}", "not a valid safetensors"),
        ("not json", struct.pack("<Q", 4) + b"abcd", "not a valid safetensors"),
        ("truncated body", _st({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8), "valid"),
        ("lying shape", _st({"w": {"dtype": "F32", "shape": [1000], "data_offsets": [0, 16]}}, b"\0" * 16), "valid"),
        ("overlap", _st({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                         "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}}, b"\0" * 24), "valid"),
        ("u8", _st({"w": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}, b"\0" * 4), "dtype"),
        ("broken zip", b"PK\x03\x04" + b"\0" * 100, "not a zip archive"),
        ("raw pickle", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.", "bare pickle"),
    ],
)
def test_hostile_files_fail_clearly(tmp_path, name, data, match):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises((OSError, ValueError, TypeError), match=match):
        vkml.load(str(path))


def test_save_rejects_non_tensors(tmp_path):
    with pytest.raises(TypeError, match="not a Tensor"):
        vkml.save({"a": 1}, str(tmp_path / "x.safetensors"))
    with pytest.raises(TypeError, match="dict"):
        vkml.save([vkml.zeros(1)], str(tmp_path / "x.safetensors"))
    with pytest.raises(OSError, match="cannot read"):
        vkml.load(str(tmp_path / "missing.safetensors"))


# --- torch checkpoints (.pt/.pth), read without torch's unpickler -------------------------------------------------


def test_torch_checkpoints_load_without_running_pickle(tmp_path, device):
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.Linear(3, 2))
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    loaded = vkml.load(str(path), device=device)
    assert list(loaded) == list(model.state_dict())
    for k, v in model.state_dict().items():
        assert loaded[k].dtype.name == str(v.dtype).removeprefix("torch.") and str(loaded[k].device) == device
        assert np.array_equal(loaded[k].numpy(), v.numpy()), k
    ckpt = {
        "model": {"w": torch.arange(12.0).reshape(3, 4).t(), "half": torch.ones(2, 2).half(), "p": torch.nn.Parameter(
            torch.ones(3))},
        "epoch": 7, "lr": 0.5, "tags": ["a", "b"], "pair": (1, None), "flag": True, "step": torch.arange(10)[1:9:3],
    }
    torch.save(ckpt, tmp_path / "ckpt.pth")
    got = vkml.load(str(tmp_path / "ckpt.pth"))
    assert got["epoch"] == 7 and got["lr"] == 0.5 and got["tags"] == ["a", "b"] and got["pair"] == (1, None)
    assert got["flag"] is True and got["step"].tolist() == [1, 4, 7]
    assert np.array_equal(got["model"]["w"].numpy(), ckpt["model"]["w"].numpy())
    assert got["model"]["half"].dtype == vkml.float16 and got["model"]["p"].tolist() == [1.0, 1.0, 1.0]
    fresh = vkml.nn.Sequential(vkml.nn.Conv2d(1, 4, 3), vkml.nn.Identity(), vkml.nn.Linear(3, 2))
    fresh.load_state_dict({k: v for k, v in loaded.items() if not k.startswith("1.")})


def _zip(tmp_path, entries, compress=False):
    import zipfile

    path = tmp_path / "hostile.pt"
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


class _Evil:
    def __reduce__(self):
        import os

        return (os.system, ("touch pwned-by-vkml-test",))


@pytest.mark.parametrize("protocol", [2, 4])
def test_pickle_that_calls_code_is_refused(tmp_path, protocol, monkeypatch):
    import pickle

    monkeypatch.chdir(tmp_path)
    path = _zip(tmp_path, {"archive/data.pkl": pickle.dumps({"w": _Evil()}, protocol=protocol)})
    with pytest.raises(OSError, match=r"refusing to load: the checkpoint names (os|posix)\.system"):
        vkml.load(str(path))
    assert not (tmp_path / "pwned-by-vkml-test").exists()


def _storage_pickle(numel, size, stride=None, offset=0):
    """The pickle torch writes for {"w": tensor} with one float32 storage of `numel` elements, by hand."""
    import pickle

    class Storage:
        def __reduce__(self):  # placeholder; replaced by a persistent id below
            raise NotImplementedError

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", _FloatStorage, "0", "cpu", numel) if isinstance(obj, Storage) else None

    class Rebuild:
        def __reduce__(self):
            return (_rebuild_tensor_v2, (Storage(), offset, tuple(size), tuple(stride or _strides(size)), False,
                                         collections.OrderedDict()))

    import collections
    import io

    buf = io.BytesIO()
    P(buf, protocol=2).dump({"w": Rebuild()})
    return buf.getvalue()


def _strides(size):
    out, acc = [], 1
    for d in reversed(size):
        out.insert(0, acc)
        acc *= d
    return out


_FloatStorage = torch.FloatStorage
_rebuild_tensor_v2 = torch._utils._rebuild_tensor_v2


@pytest.mark.parametrize(
    ("name", "entries", "compress", "match"),
    [
        ("compressed (zip bomb)", {"archive/data.pkl": b"\x80\x02}q\x00." + b"\0" * 100000}, True, "compressed"),
        ("no pickle", {"archive/data/0": b"\0" * 4}, False, "no data.pkl"),
        ("truncated pickle", {"archive/data.pkl": b"\x80\x02}q\x00X\xff\xff\x00\x00ab"}, False, "truncated"),
        ("missing storage", {"archive/data.pkl": _storage_pickle(4, [4])}, False, "missing"),
        ("lying numel", {"archive/data.pkl": _storage_pickle(1000, [4]), "archive/data/0": b"\0" * 16}, False,
         "holds 16 bytes"),
        ("size past storage", {"archive/data.pkl": _storage_pickle(4, [8]), "archive/data/0": b"\0" * 16}, False,
         "reads past its storage"),
        ("negative stride", {"archive/data.pkl": _storage_pickle(4, [4], [-1], 3), "archive/data/0": b"\0" * 16},
         False, "inconsistent"),
        ("big endian", {"archive/data.pkl": b"\x80\x02}q\x00.", "archive/byteorder": b"big"}, False, "big-endian"),
        ("unknown opcode", {"archive/data.pkl": b"\x80\x02i__builtin__\neval\n."}, False, "opcode 0x69"),
    ],
)
def test_malformed_torch_checkpoints_fail_clearly(tmp_path, name, entries, compress, match):
    path = _zip(tmp_path, entries, compress)
    with pytest.raises((OSError, ValueError), match=match):
        vkml.load(str(path))


def test_described_modules_are_public_and_match_torch():
    """Every module the description makes is in vkml.nn (and its __all__, which the docs read), keeps torch's
    arguments as attributes, and shows torch's repr."""
    from vkml.nn import applied

    assert set(applied.DESCRIBED) <= set(nn.__all__)
    # Each module that needs no argument, made with none.
    made = [
        (name, (), {})
        for name, cls in applied.DESCRIBED.items()
        if all(p.default is not p.empty for p in list(inspect.signature(cls.__init__).parameters.values())[1:])
    ]
    for name, cls in applied.DESCRIBED.items():
        assert getattr(nn, name) is cls, name
    cases = [
        ("MaxPool2d", (2,), {}),
        ("MaxPool2d", (3, None, 1), {"ceil_mode": True}),
        ("AvgPool2d", (3, 1), {}),
        ("ELU", (0.5,), {"inplace": True}),
        ("GELU", (), {"approximate": "tanh"}),
        ("Fold", ((4, 4), 2), {}),
        ("Unfold", (2,), {"stride": 2}),
        ("Softplus", (2.0, 10.0), {}),
        ("AdaptiveAvgPool2d", ((2, 1),), {}),
    ]
    for name, args, kwargs in cases + made:
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
        assert repr(ours) == repr(theirs), name
        for k in getattr(type(ours), "_names", ()):
            assert getattr(ours, k) == getattr(theirs, k), (name, k)
