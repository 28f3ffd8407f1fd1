"""Attention against torch on every device: scaled_dot_product_attention (causal, bool and float masks, scale),
multi_head_attention_forward (masks, padding, weights), MultiheadAttention and TransformerEncoderLayer loaded
from a torch state_dict (post- and pre-norm), forward and backward."""

import numpy as np
import pytest
import torch
import vkml
from gradcheck import check_grad
from helpers import case, check_op, error, matrix


def F(lib):
    return lib.nn.functional


QKV = [(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)]
OPS = {"scaled_dot_product_attention": lambda q, k, v, lib: F(lib).scaled_dot_product_attention(q, k, v)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    if isinstance(dtype, tuple):
        dtype = (*dtype, dtype[-1])
    check_op(op, QKV, OPS[op], device, cls, dtype)


R = np.random.default_rng(4)
MASK = R.random((5, 6)) > 0.3
MASK[:, 0] = True  # every query sees a key
FMASK = R.standard_normal((5, 6)).astype(np.float32)


def t(lib, dev, v):
    return lib.tensor(np.array(v), device=dev)


def sdpa(**kw):
    def f(q, k, v, lib, dev):
        kw2 = {a: (t(lib, dev, b) if isinstance(b, np.ndarray) else b) for a, b in kw.items()}
        kw2 = {a: (b.to(q.dtype) if a == "attn_mask" and b.dtype.is_floating_point else b) for a, b in kw2.items()}
        return F(lib).scaled_dot_product_attention(q, k, v, **kw2)

    f.__name__ = f"sdpa({', '.join(kw)})"
    return f


CASES = [
    case("scaled_dot_product_attention", QKV, sdpa(is_causal=True)),
    case("scaled_dot_product_attention", [(2, 5, 4), (2, 5, 4), (2, 5, 4)], sdpa(is_causal=True)),
    case("scaled_dot_product_attention", QKV, sdpa(attn_mask=MASK)),
    case("scaled_dot_product_attention", QKV, sdpa(attn_mask=FMASK)),
    case("scaled_dot_product_attention", QKV, sdpa(scale=0.3)),
    case("scaled_dot_product_attention", QKV, sdpa(attn_mask=MASK, is_causal=True)),  # 4-d: both apply
    case("scaled_dot_product_attention", [(5, 4), (6, 4), (6, 7)], sdpa()),  # 2-d, a wider value
]


@pytest.mark.parametrize("c", CASES)
def test_case(c, device):
    c.run(device)


E, H = 8, 2
MHA_IN = [(5, 3, E), (6, 3, E), (6, 3, E), (3 * E, E), (3 * E,), (E, E), (E,)]
PAD = np.zeros((3, 6), bool)
PAD[1, 4:] = True


def mha(**kw):
    def f(q, k, v, w_in, b_in, w_out, b_out, lib, dev):
        kw2 = {a: (t(lib, dev, b) if isinstance(b, np.ndarray) else b) for a, b in kw.items()}
        kw2 = {a: (b.to(q.dtype) if a == "attn_mask" and b.dtype.is_floating_point else b) for a, b in kw2.items()}
        out, w = F(lib).multi_head_attention_forward(
            q, k, v, E, H, w_in, b_in, None, None, False, 0.0, w_out, b_out, training=False, **kw2
        )
        return (out, w) if w is not None else out

    f.__name__ = f"mha({', '.join(kw)})"
    return f


MHA_CASES = [
    case("multi_head_attention", MHA_IN, mha()),
    case("multi_head_attention", MHA_IN, mha(need_weights=False)),
    case("multi_head_attention", MHA_IN, mha(average_attn_weights=False)),
    case("multi_head_attention", MHA_IN, mha(key_padding_mask=PAD)),
    case("multi_head_attention", MHA_IN, mha(attn_mask=~MASK)),  # True hides, in MultiheadAttention
    case("multi_head_attention", MHA_IN, mha(attn_mask=FMASK)),
    case(
        "multi_head_attention",
        [(5, 3, E), (5, 3, E), (5, 3, E)] + MHA_IN[3:],
        mha(attn_mask=~np.tril(np.ones((5, 5), bool))),
    ),
]


@pytest.mark.parametrize("c", MHA_CASES)
def test_mha(c, device):
    c.run(device)


ERRORS = [
    error(
        "scaled_dot_product_attention",
        [(3, 5, 4), (3, 6, 4), (3, 6, 4)],
        lambda q, k, v, lib, dev: F(lib).scaled_dot_product_attention(q, k, v, t(lib, dev, MASK), is_causal=True),
        RuntimeError,
    ),
    error("scaled_dot_product_attention", [(2, 5, 4), (2, 6, 3), (2, 6, 4)], sdpa(), RuntimeError),
]


@pytest.mark.parametrize("c", ERRORS)
def test_error(c, device):
    c.run(device)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_grad(dtype, device):
    check_grad("scaled_dot_product_attention", QKV, sdpa(is_causal=True), device, "contiguous", dtype)
    check_grad("multi_head_attention", MHA_IN, mha(need_weights=False), device, "contiguous", dtype)


NAMES = [
    "self_attn.in_proj_weight",
    "self_attn.in_proj_bias",
    "self_attn.out_proj.weight",
    "self_attn.out_proj.bias",
    "linear1.weight",
    "linear1.bias",
    "linear2.weight",
    "linear2.bias",
    "norm1.weight",
    "norm1.bias",
    "norm2.weight",
    "norm2.bias",
]
SHAPES = [(3 * E, E), (3 * E,), (E, E), (E,), (16, E), (16,), (E, 16), (E,), (E,), (E,), (E,), (E,)]


def layer(norm_first, activation="relu"):
    def f(src, *ws, lib):
        m = lib.nn.TransformerEncoderLayer(E, H, 16, dropout=0.0, activation=activation, norm_first=norm_first)
        m = m.to(src.dtype) if lib is torch else m.to(src.device).to(dtype=src.dtype)
        m.load_state_dict(dict(zip(NAMES, ws)))
        m.eval()
        with lib.no_grad():
            return m(src)

    f.__name__ = f"TransformerEncoderLayer(norm_first={norm_first}, {activation})"
    return f


@pytest.mark.parametrize(("norm_first", "act"), [(False, "relu"), (True, "gelu")])
def test_encoder_layer_matches_torch(norm_first, act, device):
    check_op("transformer_encoder_layer", [(5, 3, E), *SHAPES], layer(norm_first, act), device)


def test_modules_have_torch_state_dicts(device):
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(E, H, batch_first=True)
    ours = vkml.nn.MultiheadAttention(E, H, batch_first=True).to(device)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in ref.state_dict().items()
    }
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(2, 5, E)
    got, w = ours(
        vkml.tensor(x.numpy(), device=device),
        vkml.tensor(x.numpy(), device=device),
        vkml.tensor(x.numpy(), device=device),
    )
    want, ww = ref(x, x, x)
    assert got.shape == tuple(want.shape) and w.shape == tuple(ww.shape)
    enc = vkml.nn.TransformerEncoderLayer(E, H, 16)
    assert list(enc.state_dict()) == list(torch.nn.TransformerEncoderLayer(E, H, 16).state_dict())
