"""Fixtures for the JavaScript suites (Node on the CPU, Chromium on WebGPU): inputs, torch's results and each op's
declared contract turned into per-element bounds by the Python suite's own helpers, so the browser is checked against
torch exactly as every other backend is (and against the CPU oracle in the same page, twice the bound).

Also: gradients (the gradient contracts of `gradcheck.grad_references`), 5-step optimizer trajectories in torch
float32 and float64 (the training contract of `trajectory.py`), and a torch state_dict written as safetensors by an
independent writer (below) with torch's outputs for it.

Usage: python tests/web/make_fixtures.py OUT.json   (needs torch, and the built vkml for the op table)."""

from __future__ import annotations

import base64
import io
import json
import struct
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from gradcheck import grad_references  # noqa: E402
from helpers import HALF, Reference, Spec, _bound, _extreme, _ordinary, _round, flush, op_row, op_table, tolerance  # noqa: E402
from trajectory import FACTOR, U32, model_drift  # noqa: E402

F = "nn.functional."
LABELS = np.array([0, 2, 1, 2, 0, 1], np.int64)
_R = np.random.default_rng(5)
IDX = _R.integers(0, 4, (4, 5))  # positions < 4 along either dim of a (4, 5) input
UNIQUE = np.stack([_R.permutation(4) for _ in range(5)], axis=1)[:3]  # distinct rows per column: scatter's winner
P45 = _round(_R.uniform(0.05, 0.95, (4, 5)), "float32")  # probabilities
Q45 = _round(_R.uniform(0.05, 0.95, (4, 5)), "float32")
LOGP = np.log(np.full((6, 3), 1 / 3, np.float32)) + _round(np.random.default_rng(7).normal(size=(6, 3)), "float32")

# (op-table name, call, input shapes (or arrays), extra args, options, input dtype, domain, classes).
# call: a Tensor method of the first input, "fn:PATH" for a function of vkml/torch, or "list:NAME" for cat/stack.
# Every unary primitive of the op table (its row in vkml_ops says where its inputs lie), then unary composites.
PRIMITIVES = {name: row["domain"] for name, row in op_table().items() if row["kind"] == "unary" and row["primitive"]}
UNARY = [*PRIMITIVES, "square", "reciprocal", "relu", "sigmoid"]
DOMAIN = {name: domain for name, domain in PRIMITIVES.items() if domain != "normal"}
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"]
BINARY_MORE = ["fmod", "remainder", "floor_divide", "atan2", "copysign", "hypot", "pow"]
CLASSIFY = ["isnan", "isinf", "isfinite"]
# (op, extra positional arguments): the kinks at ±3 and 6 and the softplus threshold lie in the "wide" domain.
ACTIVATIONS = [
    ("silu", []),
    ("mish", []),
    ("elu", [0.5]),
    ("selu", []),
    ("celu", [2.0]),
    ("leaky_relu", [0.2]),
    ("softplus", []),
    ("logsigmoid", []),
    ("softsign", []),
    ("hardsigmoid", []),
    ("hardswish", []),
    ("hardtanh", [-0.5, 2.0]),
    ("relu6", []),
]
ALL = ("contiguous", "transposed", "broadcast", "extreme")
# The input classes and dtype tuples most cases share.
ONLY = ("contiguous",)
SRC_INDEX = ("float32", "int64")
SRC_INDEX_SRC = ("float32", "int64", "float32")
CASES = (
    [(u, u, [(4, 5)], [], None, "float32", DOMAIN.get(u, "normal"), ALL) for u in UNARY]
    + [(b, b, [(4, 5), (4, 5)], [], None, "float32", "normal", ALL) for b in BINARY]
    + [(b, b, [(4, 5)], [1.5], None, "float32", "normal", ONLY) for b in ("add", "mul", "div", "sub")]
    + [
        ("add", "add", [(3, 4)], [2], None, "int32", "normal", ONLY),
        ("logical_not", "logical_not", [(4, 5)], [], None, "bool", "normal", ONLY),
        ("logical_and", "logical_and", [(4, 5), (4, 5)], [], None, "bool", "normal", ONLY),
        ("logical_or", "logical_or", [(4, 5), (4, 5)], [], None, "bool", "normal", ONLY),
        ("matmul", "matmul", [(5, 7), (7, 3)], [], None, "float32", "normal", ("contiguous", "transposed")),
        ("matmul", "matmul", [(2, 5, 7), (7, 3)], [], None, "float32", "normal", ONLY),
        ("sum", "sum", [(6, 9)], [], None, "float32", "normal", ("contiguous", "transposed", "extreme")),
        ("sum", "sum", [(6, 9)], [1, True], None, "float32", "normal", ("contiguous", "transposed")),
        ("mean", "mean", [(6, 9)], [0], None, "float32", "normal", ("contiguous", "transposed")),
        ("amax", "amax", [(6, 9)], [1], None, "float32", "normal", ("contiguous", "extreme")),
        ("amin", "amin", [(6, 9)], [0, True], None, "float32", "normal", ONLY),
        ("argmax", "argmax", [(6, 9)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("argmin", "argmin", [(6, 9)], [], None, "float32", "normal", ONLY),
        ("all", "all", [(4, 5)], [1], None, "bool", "normal", ONLY),
        ("any", "any", [(4, 5)], [], None, "bool", "normal", ONLY),
        ("softmax", "softmax", [(5, 8)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("log_softmax", "log_softmax", [(5, 8)], [1], None, "float32", "normal", ONLY),
        ("logsumexp", "logsumexp", [(5, 8)], [1], None, "float32", "normal", ONLY),
        ("reshape", "reshape", [(4, 6)], [[3, -1]], None, "float32", "normal", ("contiguous", "transposed")),
        ("permute", "permute", [(2, 3, 4)], [[2, 0, 1]], None, "float32", "normal", ONLY),
        ("transpose", "transpose", [(3, 4)], [0, 1], None, "float32", "normal", ONLY),
        ("squeeze", "squeeze", [(3, 1, 4)], [], None, "float32", "normal", ONLY),
        ("unsqueeze", "unsqueeze", [(3, 4)], [1], None, "float32", "normal", ONLY),
        ("flatten", "flatten", [(2, 3, 4)], [], None, "float32", "normal", ONLY),
        ("expand", "expand", [(3, 1)], [[3, 4]], None, "float32", "normal", ONLY),
        ("flip", "flip", [(3, 4)], [[0, 1]], None, "float32", "normal", ("contiguous", "transposed")),
        ("narrow", "narrow", [(5, 4)], [0, 1, 3], None, "float32", "normal", ONLY),
        ("repeat", "repeat", [(2, 3)], [[2, 2]], None, "float32", "normal", ONLY),
        ("contiguous", "contiguous", [(3, 4)], [], None, "float32", "normal", ("transposed",)),
        ("to", "to", [(3, 4)], ["int32"], None, "float32", "wide", ONLY),
        ("to", "to", [(3, 4)], ["float32"], None, "int32", "normal", ONLY),
        ("cat", "list:cat", [(2, 3), (4, 3)], [0], None, "float32", "normal", ONLY),
        ("stack", "list:stack", [(2, 3), (2, 3)], [1], None, "float32", "normal", ONLY),
        ("where", "fn:where", [(3, 4), (3, 4), (3, 4)], [], None, ("bool", "float32", "float32"), "normal", ONLY),
        ("linear", F + "linear", [(4, 6), (5, 6), (5,)], [], None, "float32", "normal", ONLY),
        ("addmm", "fn:addmm", [(4, 5), (4, 3), (3, 5)], [], None, "float32", "normal", ONLY),
        ("addcmul", "fn:addcmul", [(3, 4), (3, 4), (3, 4)], [], None, "float32", "normal", ONLY),
        ("addcdiv", "fn:addcdiv", [(3, 4), (3, 4), (3, 4)], [], None, "float32", "positive", ONLY),
        (
            "conv2d",
            F + "conv2d",
            [(2, 3, 7, 7), (4, 3, 3, 3), (4,)],
            [],
            {"stride": 2, "padding": 1},
            "float32",
            "normal",
            ONLY,
        ),
        (
            "conv1d",
            F + "conv1d",
            [(2, 4, 9), (6, 2, 3), (6,)],
            [],
            {"stride": 2, "padding": 1, "groups": 2},
            "float32",
            "normal",
            ONLY,
        ),
        ("max_pool2d", F + "max_pool2d", [(2, 3, 6, 6)], [2], None, "float32", "normal", ONLY),
        (
            "interpolate",
            F + "interpolate",
            [(2, 3, 4, 5)],
            [],
            {"size": [7, 3], "mode": "bilinear"},
            "float32",
            "normal",
            ONLY,
        ),
        (
            "conv_transpose2d",
            F + "conv_transpose2d",
            [(2, 4, 5, 5), (4, 3, 3, 3), (3,)],
            [],
            {"stride": 2, "padding": 1, "output_padding": 1},
            "float32",
            "normal",
            ONLY,
        ),
        ("avg_pool2d", F + "avg_pool2d", [(2, 3, 6, 6)], [3], {"stride": 1}, "float32", "normal", ONLY),
        (
            "avg_pool2d",
            F + "avg_pool2d",
            [(2, 3, 7, 7)],
            [3],
            {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
            "float32",
            "normal",
            ONLY,
        ),
        ("avg_pool2d", F + "avg_pool2d", [(2, 3, 6, 6)], [2], {"divisor_override": 3}, "float32", "normal", ONLY),
        (
            "max_pool2d",
            F + "max_pool2d",
            [(2, 3, 7, 7)],
            [3],
            {"stride": 2, "padding": 1, "ceil_mode": True},
            "float32",
            "normal",
            ONLY,
        ),
        ("group_norm", F + "group_norm", [(2, 6, 5)], [3], None, "float32", "normal", ONLY),
        ("interpolate", F + "interpolate", [(2, 3, 4)], [], {"scale_factor": 2}, "float32", "normal", ONLY),
        ("unfold", F + "unfold", [(2, 3, 5, 6)], [[2, 3]], {"padding": 1, "stride": [1, 2]}, "float32", "normal", ONLY),
        (
            "fold",
            F + "fold",
            [(2, 18, 36)],
            [[5, 9], [2, 3]],
            {"padding": [1, 2], "stride": [1, 2]},
            "float32",
            "normal",
            ONLY,
        ),
        ("cross_entropy", F + "cross_entropy", [(6, 3), LABELS], [], None, SRC_INDEX, "normal", ONLY),
        (
            "cross_entropy",
            F + "cross_entropy",
            [(6, 3), LABELS],
            [],
            {"label_smoothing": 0.1, "reduction": "sum"},
            SRC_INDEX,
            "normal",
            ONLY,
        ),
        ("nll_loss", F + "nll_loss", [LOGP, LABELS], [], None, SRC_INDEX, "normal", ONLY),
        ("mse_loss", F + "mse_loss", [(4, 5), (4, 5)], [], None, "float32", "normal", ONLY),
        ("layer_norm", F + "layer_norm", [(4, 6)], [[6]], None, "float32", "normal", ("contiguous", "transposed")),
        ("tril", "tril", [(4, 5)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("triu", "triu", [(4, 5)], [-1], None, "float32", "normal", ONLY),
        ("tile", "tile", [(2, 3)], [[2, 1, 2]], None, "float32", "normal", ONLY),
        ("chunk", "chunk", [(5, 4)], [2, 0], None, "float32", "normal", ONLY),
        ("unbind", "unbind", [(3, 4)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("max", "max", [(4, 5)], [], None, "float32", "normal", ("contiguous", "extreme")),
        ("max", "max", [(4, 5)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("min", "min", [(4, 5)], [0, True], None, "float32", "normal", ONLY),
        ("logical_xor", "logical_xor", [(4, 5), (4, 5)], [], None, "bool", "normal", ONLY),
        ("bitwise_and", "bitwise_and", [(4, 5), (4, 5)], [], None, "int32", "normal", ONLY),
        ("bitwise_or", "bitwise_or", [(4, 5)], [6], None, "int32", "normal", ONLY),
        ("bitwise_xor", "bitwise_xor", [(4, 5), (4, 5)], [], None, "bool", "normal", ONLY),
        ("bitwise_not", "bitwise_not", [(4, 5)], [], None, "int32", "normal", ONLY),
        ("getitem", "get", [(4, 5, 6)], ["1:3", 0], None, "float32", "normal", ("contiguous", "transposed")),
        ("getitem", "get", [(4, 5, 6)], ["...", "::2", None], None, "float32", "normal", ONLY),
        ("getitem", "get", [(4, 5)], [-1, "-3:"], None, "float32", "normal", ONLY),
        ("adaptive_avg_pool2d", F + "adaptive_avg_pool2d", [(2, 3, 6, 6)], [3], None, "float32", "normal", ONLY),
        ("log10", "log10", [(4, 5)], [], None, "float32", "positive", ALL),
        ("frac", "frac", [(4, 5)], [], None, "float32", "wide", ALL),
        *[(u, u, [(4, 5)], [], None, "float32", "normal", ("contiguous", "extreme")) for u in CLASSIFY],
        ("nan_to_num", "nan_to_num", [(4, 5)], [], None, "float32", "normal", ("extreme",)),
        *[(a, F + a, [(4, 5)], args, None, "float32", "wide", ALL) for a, args in ACTIVATIONS],
        ("gelu", F + "gelu", [(4, 5)], [], None, "float32", "normal", ALL),
        ("gelu_tanh", F + "gelu", [(4, 5)], [], {"approximate": "tanh"}, "float32", "normal", ONLY),
        *[(b, b, [(4, 5), (4, 5)], [], None, "float32", "normal", ("contiguous", "transposed")) for b in BINARY_MORE],
        ("remainder", "remainder", [(4, 5)], [1.5], None, "float32", "normal", ONLY),
        ("clamp", "clamp", [(4, 5)], [-0.5, 0.5], None, "float32", "normal", ("contiguous", "extreme")),
        ("var", "var", [(5, 7)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("std", "std", [(5, 7)], [0], None, "float32", "normal", ONLY),
        ("mm", "mm", [(5, 7), (7, 3)], [], None, "float32", "normal", ("contiguous", "transposed")),
        ("bmm", "bmm", [(2, 5, 7), (2, 7, 3)], [], None, "float32", "normal", ONLY),
        ("dot", "dot", [(9,), (9,)], [], None, "float32", "normal", ONLY),
        ("outer", "outer", [(4,), (3,)], [], None, "float32", "normal", ONLY),
        ("masked_fill", "masked_fill", [(4, 5), (4, 5)], [2.5], None, ("float32", "bool"), "normal", ONLY),
        ("roll", "roll", [(4, 5)], [[1, -2], [0, 1]], None, "float32", "normal", ("contiguous", "transposed")),
        ("diagonal", "diagonal", [(4, 5)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("diag", "diag", [(4, 5)], [], None, "float32", "normal", ONLY),
        ("diag", "diag", [(4,)], [1], None, "float32", "normal", ONLY),
        ("one_hot", F + "one_hot", [LABELS], [3], None, "int64", "normal", ONLY),
        ("gather", "pre:gather", [(4, 5), IDX], [1], None, SRC_INDEX, "normal", ONLY),
        ("scatter", "pre:scatter", [(4, 5), UNIQUE, (3, 5)], [0], None, SRC_INDEX_SRC, "normal", ONLY),
        ("scatter_add", "pre:scatter_add", [(4, 5), IDX, (4, 5)], [0], None, SRC_INDEX_SRC, "normal", ONLY),
        ("index_select", "pre:index_select", [(4, 5), np.array([3, 0, 3])], [1], None, SRC_INDEX, "normal", ONLY),
        ("take_along_dim", "take_along_dim", [(4, 5), IDX], [0], None, SRC_INDEX, "normal", ONLY),
        (
            "embedding",
            F + "embedding",
            [np.array([[1, 0], [3, 3]]), (4, 5)],
            [],
            None,
            ("int64", "float32"),
            "normal",
            ONLY,
        ),
        ("sort", "sort", [(4, 5)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        (
            "scaled_dot_product_attention",
            F + "scaled_dot_product_attention",
            [(2, 5, 4), (2, 6, 4), (2, 6, 4)],
            [],
            {"scale": 0.4},
            "float32",
            "normal",
            ONLY,
        ),
        ("einsum", "einsum:ij,jk->ik", [(3, 4), (4, 5)], [], None, "float32", "normal", ("contiguous", "transposed")),
        ("einsum", "einsum:bij,bkj->bik", [(2, 3, 4), (2, 5, 4)], [], None, "float32", "normal", ONLY),
        ("cumsum", "cumsum", [(4, 5)], [1], None, "float32", "normal", ("contiguous", "transposed")),
        ("norm", "norm", [(4, 5)], [2, 1], None, "float32", "normal", ("contiguous", "transposed")),
        ("cumprod", "cumprod", [(4, 5)], [0], None, "float32", "unit", ONLY),
        ("prod", "prod", [(4, 5)], [1], None, "float32", "unit", ("contiguous", "transposed")),
        ("pad", F + "pad", [(2, 4, 5)], [[2, 1, -1, 2]], {"value": 0.5}, "float32", "normal", ONLY),
        (
            "pad",
            F + "pad",
            [(2, 4, 5)],
            [[3, 2]],
            {"mode": "reflect"},
            "float32",
            "normal",
            ("contiguous", "transposed"),
        ),
        ("argsort", "argsort", [(4, 5)], [0], None, "float32", "normal", ONLY),
        ("topk", "topk", [(4, 5)], [2], None, "float32", "normal", ONLY),
        ("l1_loss", F + "l1_loss", [(4, 5), (4, 5)], [], None, "float32", "normal", ("contiguous", "transposed")),
        ("smooth_l1_loss", F + "smooth_l1_loss", [(4, 5), (4, 5)], [], {"beta": 0.5}, "float32", "normal", ONLY),
        (
            "huber_loss",
            F + "huber_loss",
            [(4, 5), (4, 5)],
            [],
            {"delta": 0.5, "reduction": "sum"},
            "float32",
            "normal",
            ONLY,
        ),
        ("binary_cross_entropy", F + "binary_cross_entropy", [P45, Q45], [], None, "float32", "normal", ONLY),
        (
            "binary_cross_entropy_with_logits",
            F + "binary_cross_entropy_with_logits",
            [(4, 5), Q45],
            [],
            {"reduction": "none"},
            "float32",
            "normal",
            ONLY,
        ),
        ("kl_div", F + "kl_div", [(4, 5), Q45], [], {"reduction": "batchmean"}, "float32", "normal", ONLY),
        ("group_norm", F + "group_norm", [(2, 4, 3)], [2], None, "float32", "normal", ONLY),
        # Eval mode (running statistics): inputs x, running mean and var, weight, bias, all positive.
        ("batch_norm", F + "batch_norm", [(4, 3), (3,), (3,), (3,), (3,)], [], None, "float32", "positive", ONLY),
    ]
)
GRADS = [
    ("layer_norm", F + "layer_norm", [(4, 6)], [[6]]),
    ("exp", "exp", [(4, 5)], []),
    ("sigmoid", "sigmoid", [(4, 5)], []),
    ("mul", "mul", [(4, 5), (4, 5)], []),
    ("div", "div", [(4, 5), (4, 5)], []),
    ("matmul", "matmul", [(5, 7), (7, 3)], []),
    ("sum", "sum", [(6, 9)], [1]),
    ("softmax", "softmax", [(5, 8)], [1]),
    ("log_softmax", "log_softmax", [(5, 8)], [1]),
    ("linear", F + "linear", [(4, 6), (5, 6), (5,)], []),
    ("conv1d", F + "conv1d", [(2, 3, 8), (4, 3, 3), (4,)], []),
    ("conv2d", F + "conv2d", [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], []),
    ("max_pool2d", F + "max_pool2d", [(2, 3, 6, 6)], [2]),
    ("mse_loss", F + "mse_loss", [(4, 5), (4, 5)], []),
    ("cross_entropy", F + "cross_entropy", [(6, 3), LABELS], []),
    ("smooth_l1_loss", F + "smooth_l1_loss", [(4, 5), (4, 5)], []),
    ("binary_cross_entropy_with_logits", F + "binary_cross_entropy_with_logits", [(4, 5), Q45], []),
]


def enc(a) -> list:
    """Values as JSON: numbers, with "nan", "inf", "-inf" and "-0" spelled out."""
    out = []
    for v in np.asarray(a, np.float64).ravel().tolist():
        if v != v:
            out.append("nan")
        elif v in (float("inf"), float("-inf")):
            out.append("inf" if v > 0 else "-inf")
        elif v == 0 and np.signbit(v):
            out.append("-0")
        else:
            out.append(v)
    return out


def torch_call(call: str, args: list, kw: dict | None, dtypes=()):
    """The lambda of a case, as torch runs it (the JavaScript runner mirrors it). Class targets stay int64 when the
    float64 reference upcasts every input."""
    kw = kw or {}

    def fn(*xs):
        xs = [x.long() if dt == "int64" and x.is_floating_point() else x for x, dt in zip(xs, dtypes)] + list(
            xs[len(dtypes) :]
        )
        if call.startswith("list:"):
            return getattr(torch, call[5:])(list(xs), *args)
        if call.startswith("fn:"):
            return getattr(torch, call[3:])(*xs, *args, **kw)
        if call.startswith(F):
            return getattr(torch.nn.functional, call[len(F) :])(*xs, *args, **kw)
        if call == "to":
            return xs[0].to(getattr(torch, args[0]))
        if call == "get":
            return xs[0][tuple(index_item(a) for a in args)]
        if call.startswith("einsum:"):
            return torch.einsum(call[7:], *xs)
        if call.startswith("pre:"):
            return getattr(xs[0], call[4:])(*args, *xs[1:], **kw)
        return getattr(xs[0], call)(*xs[1:], *args, **kw)

    return fn


def index_item(a):
    """A JavaScript index item as Python writes it: "1:3" is slice(1, 3), "..." Ellipsis, null None."""
    if a == "...":
        return Ellipsis
    if isinstance(a, str):
        return slice(*[int(p) if p.strip() else None for p in a.split(":")])
    return a


def specs_for(shapes, dtypes, cls: str, domain: str, seed: int):
    """Input specs and their JSON: values of the base tensor and the view recipe that both libraries apply."""
    rng = np.random.default_rng(seed)
    specs, inputs = [], []
    for i, (shape, dt) in enumerate(zip(shapes, dtypes)):
        view, base = None, shape
        if isinstance(shape, np.ndarray):
            data = _round(shape, dt)
        else:
            if cls == "transposed" and len(shape) >= 2:
                base = shape[:-2] + (shape[-1], shape[-2])
                view = ["transpose", -1, -2]
            elif cls == "broadcast" and len(shape) >= 2:
                base = tuple(1 if (j + i) % 2 == 0 else d for j, d in enumerate(shape))
                view = ["expand", list(shape)]
            data = _extreme(base, dt, i, rng) if cls == "extreme" else _ordinary(base, dt, domain, rng)
        recipe = (lambda t, v=view: getattr(t, v[0])(*v[1:])) if view else (lambda t: t)
        specs.append(Spec(np.asarray(data), dt, recipe))
        inputs.append({"shape": list(np.shape(data)), "dtype": dt, "data": enc(data), "view": view})
    return specs, inputs


def output_fixture(row: dict, ref: Reference, specs, i: int, unary: bool) -> dict:
    """One output: its shape and dtype, candidate (special, center) pairs, and the bound (0 for exact)."""
    out = ref.same[i]
    dt = str(out.dtype).replace("torch.", "")
    res = {"shape": list(out.shape), "dtype": dt}
    if not (out.is_floating_point()):
        return {**res, "exact": True, "cands": [{"center": enc(ref.same_np(i))}]}
    tol = tolerance(row)
    gpu_flush = bool(tol.get("gpu_flushes_subnormals"))
    if tol["kind"] == "exact":
        cands = [{"center": enc(ref.same_np(i))}]
        if gpu_flush:
            # As helpers._compare: the result flushed, and the result of flushed inputs (flushed again).
            alt = Reference(ref.fn, [s.flushed() for s in specs]).same_np(i)
            cands += [{"center": enc(c), "gpu": True} for c in (flush(ref.same_np(i)), alt, flush(alt))]
        return {**res, "exact": True, "cands": cands}
    special, center, bound = _bound(tol, ref, i, dt, unary)
    cands = [{"special": enc(special), "center": enc(center)}]
    if gpu_flush:
        alt = Reference(ref.fn, [s.flushed() for s in specs])
        s2, c2, _ = _bound(tol, alt, i, dt, unary)
        cands.append({"special": enc(flush(s2)), "center": enc(flush(c2)), "gpu": True})
    return {**res, "exact": False, "cands": cands, "bound": enc(np.broadcast_to(bound, out.shape))}


def forward_cases() -> list:
    cases = []
    for k, (op, call, shapes, args, kw, dtype, domain, classes) in enumerate(CASES):
        name, row = op_row(op)
        dtypes = dtype if isinstance(dtype, tuple) else (dtype,) * len(shapes)
        assert not set(dtypes) & set(HALF), "16-bit inputs need the half-precision rules of helpers._compare"
        for cls in classes:
            specs, inputs = specs_for(shapes, dtypes, cls, domain, seed=k)
            fn = torch_call(call, args, kw, dtypes)
            ref = Reference(fn, specs)
            unary = row.get("kind") == "unary" and len(specs) == 1
            outs = [output_fixture(row, ref, specs, i, unary) for i in range(len(ref.same))]
            case = {"id": f"{name}/{cls}/{call}{args or ''}", "op": name, "call": call, "args": args, "kw": kw or {}}
            cases.append({**case, "inputs": inputs, "outputs": outs})
    return cases


# Layers whose parameters, initialisation and forward are the engine's layouts (RNN, LSTM, GRU, MultiheadAttention)
# or wire them (TransformerEncoderLayer): (contract, class, constructor args, options, data inputs (name, shape),
# call options). Masks are float (0 or −inf), so that the float64 reference keeps their meaning.
NEG = float("-inf")
CAUSAL = np.triu(np.full((4, 5), NEG), 1)
LAYERS = [
    ("lstm", "LSTM", [3, 4], {"num_layers": 2, "bidirectional": True, "batch_first": True}, [("input", (2, 5, 3))], {}),
    ("lstm", "LSTM", [3, 4], {"proj_size": 2}, [("input", (5, 2, 3)), ("h0", (1, 2, 2)), ("c0", (1, 2, 4))], {}),
    ("gru", "GRU", [3, 4], {}, [("input", (5, 2, 3)), ("h0", (1, 2, 4))], {}),
    ("rnn", "RNN", [3, 4], {"num_layers": 2, "nonlinearity": "relu"}, [("input", (5, 3))], {}),
    (
        "multi_head_attention",
        "MultiheadAttention",
        [6, 2],
        {"kdim": 5, "vdim": 3, "add_bias_kv": True, "batch_first": True},
        [("query", (2, 4, 6)), ("key", (2, 3, 5)), ("value", (2, 3, 3)), ("key_padding_mask", [[0, 0, NEG], [0] * 3])],
        {},
    ),
    (
        "multi_head_attention",
        "MultiheadAttention",
        [6, 3],
        {"add_zero_attn": True},
        [("query", (4, 2, 6)), ("key", (5, 2, 6)), ("value", (5, 2, 6)), ("attn_mask", CAUSAL)],
        {"average_attn_weights": False},
    ),
    (
        "transformer_encoder_layer",
        "TransformerEncoderLayer",
        [6, 2],
        {"dim_feedforward": 8, "dropout": 0.0, "activation": "gelu", "norm_first": True},
        [("src", (5, 2, 6))],
        {},
    ),
]


def invoke(kind: str, m, d: dict, call: dict):
    """A layer's forward as the JavaScript runner mirrors it (checks.mjs, `layer`): its outputs as a flat tuple."""
    if kind in ("RNN", "GRU", "LSTM"):
        hx = (d["h0"], d["c0"]) if kind == "LSTM" and "h0" in d else d.get("h0")
        out, h = m(d["input"], hx)
        return (out, *h) if kind == "LSTM" else (out, h)
    if kind == "MultiheadAttention":
        masks = {k: d[k] for k in ("key_padding_mask", "attn_mask") if k in d}
        return m(d["query"], d["key"], d["value"], **masks, **call)
    return m(d["src"], **call)


def layer_cases() -> list:
    cases = []
    for k, (op, kind, args, options, data, call) in enumerate(LAYERS):
        name, row = op_row(op)
        torch.manual_seed(k)
        state = {n: v.detach().numpy() for n, v in getattr(torch.nn, kind)(*args, **options).state_dict().items()}
        rng = np.random.default_rng(300 + k)
        arrays = [
            _round(rng.standard_normal(v), "float32").astype(np.float32) if isinstance(v, tuple) else np.float32(v)
            for _, v in data
        ]
        names = [n for n, _ in data]

        def fn(*xs, kind=kind, args=args, options=options, names=names, call=call, state=state):
            d, ws = dict(zip(names, xs)), xs[len(names) :]
            m = getattr(torch.nn, kind)(*args, **options).to(ws[0].dtype).eval()
            m.load_state_dict(dict(zip(state, ws)))
            with torch.no_grad():
                return invoke(kind, m, d, call)

        specs = [Spec(a, "float32") for a in [*arrays, *state.values()]]
        inputs = [{"shape": list(np.shape(a)), "dtype": "float32", "data": enc(a), "view": None} for a in arrays]
        inputs += [{"shape": list(w.shape), "dtype": "float32", "data": enc(w), "view": None} for w in state.values()]
        ref = Reference(fn, specs)
        outs = [output_fixture(row, ref, specs, i, False) for i in range(len(ref.same))]
        layer = {"kind": kind, "args": args, "options": options, "data": names, "names": list(state), "call": call}
        case = {"id": f"{name}/{kind}{args} {options}", "op": name, "call": "layer", "args": [], "kw": {}}
        cases.append({**case, "layer": layer, "inputs": inputs, "outputs": outs})
    return cases


def grad_cases() -> list:
    cases = []
    for k, (op, call, shapes, args) in enumerate(GRADS):
        name, row = op_row(op)
        dtypes = tuple("int64" if isinstance(s, np.ndarray) and s.dtype == np.int64 else "float32" for s in shapes)
        specs, inputs = specs_for(shapes, dtypes, "contiguous", "normal", seed=100 + k)
        fn = torch_call(call, args, None, dtypes)
        outs = [o for o in [fn(*[s.torch() for s in specs])] if o.is_floating_point()]
        rng = np.random.default_rng(200 + k)
        weights = [_round(rng.standard_normal(tuple(o.shape)), "float32").astype(np.float32) for o in outs]
        refs = grad_references(row["grad"], fn, specs, weights)
        grads = [
            None if r is None else {"ref": enc(r[0]), "bound": enc(np.broadcast_to(r[1], r[0].shape))} for r in refs
        ]
        case = {"id": f"grad {name}/{call}", "op": name, "call": call, "args": args, "kw": {}, "inputs": inputs}
        cases.append({**case, "weights": [{"shape": list(w.shape), "data": enc(w)} for w in weights], "grads": grads})
    return cases


def safetensors_bytes(tensors: dict) -> bytes:
    """A safetensors file written independently of vkml: an 8-byte header length, JSON header, raw little-endian
    data (the format's whole specification)."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        a = np.ascontiguousarray(a, np.float32)
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(blobs)


def mlp(sizes=(6, 5, 3)):
    torch.manual_seed(3)
    return torch.nn.Sequential(torch.nn.Linear(sizes[0], sizes[1]), torch.nn.ReLU(), torch.nn.Linear(*sizes[1:]))


def training_cases() -> dict:
    """A torch MLP's state_dict as safetensors with its outputs, and 5-step trajectories of SGD and Adam."""
    rng = np.random.default_rng(11)
    x = _round(rng.standard_normal((8, 6)), "float32").astype(np.float32)
    y = np.array([0, 1, 2, 1, 0, 2, 2, 1], np.int64)
    model = mlp()
    state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    # The logits of the loaded model under linear's declared contract, taken over the whole two-layer lambda.
    specs = [Spec(a, "float32") for a in [x, *state.values()]]

    def two_layers(x, w1, b1, w2, b2):
        return torch.nn.functional.linear(torch.relu(torch.nn.functional.linear(x, w1, b1)), w2, b2)

    ref = Reference(two_layers, specs)
    special, logits, bound = _bound(tolerance(op_row("linear")[1]), ref, 0, "float32", False)
    runs = []
    for name, options, steps in [
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}, 5),
        ("Adam", {"lr": 0.01, "amsgrad": True}, 5),
        ("AdamW", {"lr": 0.01, "weight_decay": 0.1}, 5),
        ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}, 5),
        ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}, 5),
    ]:
        make = lambda p, name=name, options=options: getattr(torch.optim, name)(p, **options)  # noqa: E731
        finals = {}
        for dt in (torch.float32, torch.float64):
            m = mlp().to(dt)
            m.load_state_dict({k: torch.tensor(v).to(dt) for k, v in state.items()})
            opt = make(m.parameters())
            for _ in range(steps):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(m(torch.tensor(x).to(dt)), torch.tensor(y)).backward()
                opt.step()
            finals[dt] = {k: v.detach().double().numpy() for k, v in m.state_dict().items()}
        drift = model_drift(finals[torch.float32], finals[torch.float64])
        allowed = {k: enc(FACTOR * drift + 2 * U32 * np.abs(ref)) for k, ref in finals[torch.float64].items()}
        ref = {k: enc(v) for k, v in finals[torch.float64].items()}
        runs.append({"optimizer": name, "options": options, "steps": steps, "torch64": ref, "allowed": allowed})
    return {
        "state_dict": base64.b64encode(safetensors_bytes(state)).decode(),
        "names": list(state),
        "x": enc(x),
        "y": y.tolist(),
        "logits": enc(logits),
        "logits_bound": enc(np.broadcast_to(bound, np.shape(logits))),
        "runs": runs,
    }


def schedule_cases() -> list:
    """torch's rates (and cycled momentum) step by step for each scheduler over a one-parameter optimizer."""
    cases = []
    for sched, options, opt, opt_options, steps in [
        ("StepLR", {"step_size": 3, "gamma": 0.5}, "SGD", {"lr": 0.1}, 10),
        ("MultiStepLR", {"milestones": [5, 2], "gamma": 0.1}, "SGD", {"lr": 0.1}, 8),
        ("ExponentialLR", {"gamma": 0.9}, "Adam", {"lr": 0.01}, 8),
        ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}, "RMSprop", {"lr": 0.1}, 10),
        ("OneCycleLR", {"max_lr": 0.5, "total_steps": 12}, "SGD", {"lr": 0.1, "momentum": 0.9}, 12),
        (
            "OneCycleLR",
            {"max_lr": 0.5, "total_steps": 12, "three_phase": True, "anneal_strategy": "linear"},
            "Adam",
            {"lr": 0.1},
            12,
        ),
        ("OneCycleLR", {"max_lr": 0.3, "epochs": 2, "steps_per_epoch": 5, "cycle_momentum": False}, "Adagrad", {}, 10),
    ]:
        o = getattr(torch.optim, opt)([torch.nn.Parameter(torch.zeros(1))], **opt_options)
        s = getattr(torch.optim.lr_scheduler, sched)(o, **options)
        lrs, momenta = [], []
        for _ in range(steps):
            g = o.param_groups[0]
            lrs.append(g["lr"])
            momenta.append(g["betas"][0] if "betas" in g else g.get("momentum"))
            o.step()
            s.step()
        cases.append(
            {
                "id": f"{sched} over {opt} {options}",
                "scheduler": sched,
                "options": options,
                "optimizer": opt,
                "optimizer_options": opt_options,
                "steps": steps,
                "lrs": lrs,
                "momenta": momenta,
            }
        )
    return cases


def data_cases() -> dict:
    """torch's DataLoader batches over a TensorDataset whose labels are the sample indices."""
    n = 10
    ds = torch.utils.data.TensorDataset(torch.arange(n, dtype=torch.float32) * 2, torch.arange(n))
    cases = []
    for options in [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True},
        {"batch_size": 4, "sampler": [7, 1, 8, 2, 9]},
        {"batch_sampler": [[0, 9], [5], [3, 3, 4]]},
    ]:
        batches = [y.tolist() for _, y in torch.utils.data.DataLoader(ds, **options)]
        cases.append({"id": f"DataLoader {options}", "options": options, "batches": batches})
    return {"n": n, "cases": cases}


def module_cases() -> dict:
    """nn modules JavaScript gained beside Python's, from torch's weights: ConvTranspose2d (under
    conv_transpose2d's contract) and Upsample (exact); a state_dict as the zip torch.save writes, and a checkpoint
    whose list and tensor are shared; calculate_gain."""
    rng = np.random.default_rng(5)
    torch.manual_seed(5)
    convt = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)
    x = _round(rng.standard_normal((2, 3, 5, 5)), "float32").astype(np.float32)
    w, b = convt.weight.detach().numpy(), convt.bias.detach().numpy()
    specs = [Spec(a, "float32") for a in (x, w, b)]
    conv = lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)  # noqa: E731
    _, y, bound = _bound(tolerance(op_row("conv_transpose2d")[1]), Reference(conv, specs), 0, "float32", False)
    up_x = _round(rng.standard_normal((1, 2, 3, 4)), "float32").astype(np.float32)
    up_y = torch.nn.Upsample(scale_factor=2)(torch.tensor(up_x)).numpy()
    buf = io.BytesIO()
    torch.save({k: v.detach() for k, v in convt.state_dict().items()}, buf)
    shared, t = [1, 2, 3], torch.ones(2)
    shared_buf = io.BytesIO()
    torch.save({"a": shared, "b": shared, "t": t, "u": [t], "g": [1, 2, 3]}, shared_buf)
    gains = [
        ("linear", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("selu", None),
    ]
    return {
        "conv_transpose": {
            "state_dict": base64.b64encode(safetensors_bytes({"weight": w, "bias": b})).decode(),
            "x": enc(x),
            "y": enc(y),
            "bound": enc(np.broadcast_to(bound, np.shape(y))),
        },
        "upsample": {"x": enc(up_x), "y": enc(up_y)},
        "torch_save": base64.b64encode(buf.getvalue()).decode(),
        "shared_save": base64.b64encode(shared_buf.getvalue()).decode(),
        "gains": [[n, p, torch.nn.init.calculate_gain(n, p)] for n, p in gains],
    }


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/out/web/fixtures.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    fixtures = {
        "forward": forward_cases() + layer_cases(),
        "grads": grad_cases(),
        "training": training_cases(),
        "schedules": schedule_cases(),
        "data": data_cases(),
        "modules": module_cases(),
        # The fuzz's strategies come from the op table: the unary, binary and reduce ops (checks.mjs, fuzzCase).
        "fuzz_ops": [[n, r["kind"]] for n, r in op_table().items() if r["kind"] in ("unary", "binary", "reduce")],
    }
    out.write_text(json.dumps(fixtures))
    ops = sorted({c["op"] for c in fixtures["forward"]})
    print(f"wrote {out}: {len(fixtures['forward'])} forward cases over {len(ops)} ops, {len(fixtures['grads'])} grads")


if __name__ == "__main__":
    main()
