"""Attention modules with torch's parameter names, shapes and initialisation: MultiheadAttention (packed or separate
in_proj, bias_k/bias_v, out_proj) and TransformerEncoderLayer (post- or pre-norm). The attention math is Rust
(vkml_core::nn::mha); these classes hold parameters and wire submodules."""

from .. import _vkml
from . import functional as F
from . import layout
from .layers import Dropout, Linear
from .module import Module
from .norm import LayerNorm


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention: a packed in_proj_weight when the key and value sizes equal embed_dim, else
    q_proj_weight, k_proj_weight and v_proj_weight (kdim, vdim); add_bias_kv and add_zero_attn as torch."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False, kdim=None,
                 vdim=None, batch_first=False, device=None, dtype=None):  # fmt: skip
        super().__init__()
        # The layout, its initialisation and the forward are Rust's (vkml_core::nn::mha), shared with JavaScript.
        if embed_dim > 0 and num_heads > 0 and embed_dim % num_heads:
            # torch's class for this one, where the layout's is ValueError.
            raise AssertionError("embed_dim must be divisible by num_heads")
        self._layout = _vkml._Mha(embed_dim, num_heads, bias, add_bias_kv, add_zero_attn, kdim, vdim)
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = add_zero_attn
        # torch registers the projections it does not use, and absent biases, as None.
        for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias"):
            self.register_parameter(name, None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        layout.hold(self, self._layout, device, dtype)
        if not add_bias_kv:
            self.bias_k = self.bias_v = None

    _reset_parameters = layout.reset

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):  # fmt: skip
        run = (float(self.dropout), self.training, self.batch_first)
        call = (key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal)
        return self._layout.forward(layout.params(self), query, key, value, *call, *run)


class TransformerEncoderLayer(Module):
    """torch.nn.TransformerEncoderLayer: self-attention and a feed-forward block, each with dropout, a residual and
    LayerNorm (after the block, or before it with norm_first)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if activation in ("relu", F.relu):
            self.activation = F.relu
        elif activation in ("gelu", F.gelu):
            self.activation = F.gelu
        elif callable(activation):
            self.activation = activation
        else:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False, is_causal=is_causal
        )[0]
        return self.dropout1(out)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))
