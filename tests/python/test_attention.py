"""Attention against torch on every device: scaled_dot_product_attention (causal, bool and float masks, scale),
multi_head_attention_forward (masks, padding, weights), MultiheadAttention and TransformerEncoderLayer loaded
from a torch state_dict (post- and pre-norm), forward and backward."""

import numpy as np
import pytest
import torch
import vkml
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix


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


test_case = each(CASES)


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


KD, VD = 5, 3  # key and value sizes of their own: separate q/k/v projections
MHA_SEP = [(5, 3, E), (6, 3, KD), (6, 3, VD), (E, E), (E, KD), (E, VD), (3 * E,), (E, E), (E,)]
BIAS_KV = [(1, 1, E), (1, 1, E)]


def mha_ext(separate, bias_kv, zero_attn, **kw):
    """multi_head_attention_forward with separate projections (inputs MHA_SEP) or the packed one (MHA_IN), and
    bias_k/bias_v (two more inputs) and add_zero_attn."""

    def f(*a, lib, dev):
        kw2 = {n: (t(lib, dev, b) if isinstance(b, np.ndarray) else b) for n, b in kw.items()}
        kw2 = {n: (b.to(a[0].dtype) if n == "attn_mask" and b.dtype.is_floating_point else b) for n, b in kw2.items()}
        bk, bv = a[-2:] if bias_kv else (None, None)
        a = a[:-2] if bias_kv else a
        if separate:
            q, k, v, wq, wk, wv, b_in, w_out, b_out = a
            proj = {"use_separate_proj_weight": True, "q_proj_weight": wq, "k_proj_weight": wk, "v_proj_weight": wv}
            w_in = None
        else:
            q, k, v, w_in, b_in, w_out, b_out = a
            proj = {}
        out, w = F(lib).multi_head_attention_forward(
            q, k, v, E, H, w_in, b_in, bk, bv, zero_attn, 0.0, w_out, b_out, training=False, **proj, **kw2
        )
        return (out, w) if w is not None else out

    f.__name__ = f"mha_ext(separate={separate}, bias_kv={bias_kv}, zero_attn={zero_attn}, {', '.join(kw)})"
    return f


MHA_EXT_CASES = [
    case("multi_head_attention", MHA_SEP, mha_ext(True, False, False)),
    case("multi_head_attention", MHA_SEP, mha_ext(True, False, False, average_attn_weights=False)),
    case("multi_head_attention", MHA_IN + BIAS_KV, mha_ext(False, True, False)),
    case("multi_head_attention", MHA_IN, mha_ext(False, False, True)),
    case("multi_head_attention", MHA_IN + BIAS_KV, mha_ext(False, True, True, key_padding_mask=PAD)),
    case("multi_head_attention", MHA_SEP + BIAS_KV, mha_ext(True, True, True, attn_mask=~MASK)),
    case("multi_head_attention", MHA_SEP + BIAS_KV, mha_ext(True, True, False, attn_mask=FMASK)),
    case("multi_head_attention", MHA_SEP, mha_ext(True, False, True, key_padding_mask=PAD, attn_mask=~MASK)),
]


test_mha = each(MHA_CASES + MHA_EXT_CASES)


ERRORS = [
    error(
        "scaled_dot_product_attention",
        [(3, 5, 4), (3, 6, 4), (3, 6, 4)],
        lambda q, k, v, lib, dev: F(lib).scaled_dot_product_attention(q, k, v, t(lib, dev, MASK), is_causal=True),
        RuntimeError,
    ),
    error("scaled_dot_product_attention", [(2, 5, 4), (2, 6, 3), (2, 6, 4)], sdpa(), RuntimeError),
]


test_error = each(ERRORS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_grad(dtype, device):
    check_grad("scaled_dot_product_attention", QKV, sdpa(is_causal=True), device, "contiguous", dtype)
    check_grad("multi_head_attention", MHA_IN, mha(need_weights=False), device, "contiguous", dtype)
    ext = mha_ext(True, True, True, need_weights=False)
    check_grad("multi_head_attention", MHA_SEP + BIAS_KV, ext, device, "contiguous", dtype)


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


@pytest.mark.parametrize(
    "kw",
    [
        {"kdim": 5, "vdim": 3},
        {"add_bias_kv": True, "add_zero_attn": True},
        {"kdim": 5, "add_bias_kv": True, "bias": False},
    ],
    ids=str,
)
def test_mha_options_load_torch_state_dicts(kw, device):
    """A torch MultiheadAttention with separate projections, bias_k/bias_v or a zero key loads untranslated: the same
    state_dict keys in the same order and shapes, then the same outputs and weights (padding and a mask given)."""
    torch.manual_seed(1)
    ref = torch.nn.MultiheadAttention(E, H, batch_first=True, **kw).eval()
    ours = vkml.nn.MultiheadAttention(E, H, batch_first=True, **kw).to(device).eval()
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in ref.state_dict().items()
    ]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in ref.named_parameters()]
    ours.load_state_dict(ref.state_dict())
    q = torch.randn(2, 5, E)
    k = torch.randn(2, 6, kw.get("kdim", E))
    v = torch.randn(2, 6, kw.get("vdim", E))
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, 4:] = True
    want, ww = ref(q, k, v, key_padding_mask=pad)
    got, w = ours(*(vkml.tensor(x.numpy(), device=device) for x in (q, k, v, pad)))
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), ww.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_mha_init_follows_torch():
    """Fresh parameters have torch's shapes and spreads: xavier_uniform_ projections, xavier_normal_ bias_k/bias_v."""
    m = vkml.nn.MultiheadAttention(64, 4, kdim=32, vdim=48, add_bias_kv=True)
    assert m.in_proj_weight is None and not m._qkv_same_embed_dim
    for w, fan_in in ((m.q_proj_weight, 64), (m.k_proj_weight, 32), (m.v_proj_weight, 48)):
        bound = (6 / (fan_in + 64)) ** 0.5
        a = w.numpy()
        assert a.shape == (64, fan_in) and np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound
    # xavier_normal_ on (1, 1, 64): fan_in = fan_out = 64, std = sqrt(2 / 128).
    b = np.concatenate([m.bias_k.numpy().ravel(), m.bias_v.numpy().ravel()])
    assert abs(b.std() - (2 / 128) ** 0.5) < 0.04
    assert m.in_proj_bias.numpy().tolist() == [0.0] * 192 and m.bias_k.shape == (1, 1, 64)


def test_mha_is_causal_is_a_hint(device):
    """As torch: is_causal without attn_mask raises, and with one the mask alone decides."""
    causal = ~np.tril(np.ones((5, 5), bool))
    m = vkml.nn.MultiheadAttention(E, H).to(device)
    x = vkml.tensor(np.random.default_rng(0).standard_normal((5, 3, E)).astype(np.float32), device=device)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    mask = vkml.tensor(causal, device=device)
    a, _ = m(x, x, x, attn_mask=mask, is_causal=True)
    b, _ = m(x, x, x, attn_mask=mask)
    assert a.tolist() == b.tolist()


def test_mha_refusals(device):
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        vkml.nn.MultiheadAttention(0, 2)
    with pytest.raises(AssertionError, match="divisible"):
        vkml.nn.MultiheadAttention(6, 4)
    m = vkml.nn.MultiheadAttention(E, H, kdim=5).to(device)
    x = vkml.zeros(3, 2, E, device=device)
    with pytest.raises(RuntimeError, match="5"):
        m(x, x, x)  # keys of size E where the projection takes 5
    f = vkml.nn.functional
    with pytest.raises(AssertionError, match="use_separate_proj_weight"):
        f.multi_head_attention_forward(
            x, x, x, E, H, None, None, None, None, False, 0.0, m.out_proj.weight, None, use_separate_proj_weight=True
        )
    q = vkml.zeros(2, 3, 4, device=device)
    with pytest.raises(ValueError, match="enable_gqa=True is not supported"):
        f.scaled_dot_product_attention(q, q, q, enable_gqa=True)
    assert f.scaled_dot_product_attention(q, q, q, None, 0.0, False, None, False).shape == (2, 3, 4)
