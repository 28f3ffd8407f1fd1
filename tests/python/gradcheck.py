"""Gradient checks for the shared helper: the same lambda and inputs as `check_op`, differentiated on torch and on
vkml, compared under the op table's gradient contract (`vkml.op_table()` row `grad`)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
import torch
import vkml
from helpers import (
    HALF,
    ORACLE,
    Case,
    _call,
    _fn_text,
    _round,
    as_tuple,
    bound_ok,
    flat,
    make_inputs,
    materialize,
    op_row,
    round_to,
    tname,
    to_numpy,
    torch_class,
    ulp_of,
)

UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
# Elementwise roundings in the gradient's dtype along one term of a chain-rule product (mask, multiply, cast, add).
CHAIN = 4


def _gamma32(n: int) -> float:
    """γ(n) for float32 accumulation: every sum, including those of 16-bit gradients, accumulates in float32."""
    u = UNIT_ROUNDOFF["float32"]
    return n * u / (1 - n * u)


def _grad_run(lib, fn, specs, values, weights, device, double=False):
    """(inputs' base leaves, outputs) after backward of Σ⟨w_i, out_i⟩; `values` replaces each spec's data."""
    bases, inputs = [], []
    for s, v in zip(specs, values):
        if lib is torch:
            base = torch.tensor(v.copy())
            base = base.double() if double and s.dtype != "bool" and not s.dtype.startswith("int") else base
            if s.dtype == "bfloat16" and not double:
                base = base.to(torch.bfloat16)
            if base.is_floating_point():
                base.requires_grad_(True)
        else:
            base = vkml.tensor(v.copy(), dtype=getattr(vkml, s.dtype), device=device)
            if base.dtype.is_floating_point:
                base.requires_grad_(True)
        bases.append(base)
        inputs.append(s.view(base))
    outs = [o for o in flat(_call(fn, inputs, lib, "cpu" if lib is torch else device)) if o.dtype.is_floating_point]
    ws = []
    for o, w in zip(outs, weights or [np.ones(tuple(o.shape), np.float32) for o in outs]):
        wt = torch.tensor(w) if lib is torch else vkml.tensor(w, device=device)
        ws.append(wt.to(o.dtype))
    if lib is torch:
        torch.autograd.backward(outs, ws)
    else:
        vkml.backward(outs, ws)
    return bases, outs


def check_grad(
    op: str, shapes, fn: Callable, device: str, cls: str = "contiguous", dtype=None, *, domain="normal", seed=0
):
    """Backward of `fn` on vkml (on `device`) against torch: the gradients of Σ_i ⟨w_i, out_i⟩ (fixed random weights
    w_i, one per floating-point output) with respect to every floating-point input, compared with torch's float64
    gradients under the op's declared gradient contract (`op_table()` row `grad`), and on a GPU also with vkml's CPU
    gradients (twice the bound). Same inputs and view recipes as `check_op`; no test carries a tolerance of its own."""
    name, row = op_row(op)
    tol = row.get("grad")
    assert tol, f"{name}: the op table declares no gradient contract"
    specs = make_inputs(shapes, cls, dtype, domain, seed)
    data = [s.data for s in specs]
    rng = np.random.default_rng(seed + 99)
    try:
        probe = [o for o in flat(_call(fn, [s.torch() for s in specs], torch, "cpu")) if o.dtype.is_floating_point]
        # Weights representable in each output's dtype, so the float64 reference sees the same upstream gradient.
        weights = [_round(rng.standard_normal(tuple(o.shape)), tname(o.dtype)).astype(np.float32) for o in probe]
        t_bases, _ = _grad_run(torch, fn, specs, data, weights, "cpu")
    except Exception as exc:  # noqa: BLE001 - torch rejecting the case is itself the expectation
        with pytest.raises(torch_class(exc)):
            bases, _ = _grad_run(vkml, fn, specs, data, None, device)
            materialize([b.grad for b in bases if b.grad is not None])
        return
    refs = grad_references(tol, fn, specs, weights)
    ours, _ = _grad_run(vkml, fn, specs, data, weights, device)
    oracle = _grad_run(vkml, fn, specs, data, weights, ORACLE)[0] if device != ORACLE else None
    for i, (tb, ob) in enumerate(zip(t_bases, ours)):
        what = f"{name} gradient of input {i} on {device}"
        if not tb.is_floating_point():
            continue
        if tb.grad is None:
            assert ob.grad is None, f"{what}: torch gives no gradient, vkml gives one"
            continue
        assert ob.grad is not None, f"{what}: vkml gives no gradient, torch does"
        g = ob.grad
        assert tuple(g.shape) == tuple(tb.grad.shape), f"{what}: shape {tuple(g.shape)}, torch {tuple(tb.grad.shape)}"
        assert g.dtype.name == tname(tb.grad.dtype), f"{what}: dtype {g.dtype.name}, torch {tname(tb.grad.dtype)}"
        dt = g.dtype.name
        ref, bound = refs[i]
        got = to_numpy(g).astype(np.float64)
        ok = bound_ok(got, round_to(ref, dt), ref, bound)
        assert ok.all(), _grad_explain(ok, got, ref, bound, f"{what} vs torch float64 ({tol['kind']}: {tol['reason']})")
        if oracle is not None:
            cpu = to_numpy(oracle[i].grad).astype(np.float64)
            ok = bound_ok(got, cpu, cpu, 2 * bound)
            assert ok.all(), _grad_explain(ok, got, cpu, 2 * bound, f"{what} vs the vkml cpu oracle")


def grad_references(tol: dict, fn: Callable, specs: list, weights: list) -> list:
    """Per input: (torch's float64 gradient, the contract's bound) for Σ_i ⟨w_i, out_i⟩, or None where torch gives no
    floating-point gradient. Shared by `check_grad` and the JavaScript suites' fixtures."""
    data = [s.data for s in specs]
    t_bases, _ = _grad_run(torch, fn, specs, data, weights, "cpu")
    d_bases, d_outs = _grad_run(torch, fn, specs, data, weights, "cpu", double=True)
    a1, _ = _grad_run(torch, fn, specs, data, [np.abs(w) for w in weights], "cpu", double=True)
    absolute = [np.abs(v) if v.dtype != bool else v for v in data]
    a2, _ = _grad_run(torch, fn, specs, absolute, [np.abs(w) for w in weights], "cpu", double=True)
    n = max([v.size for v in data] + [o.numel() for o in d_outs] + [1]) + 4
    refs = []
    for i, (tb, db) in enumerate(zip(t_bases, d_bases)):
        if not tb.is_floating_point() or tb.grad is None:
            refs.append(None)
            continue
        ref = db.grad.numpy()
        mag = np.maximum(np.abs(a1[i].grad.numpy()), np.abs(a2[i].grad.numpy()))
        x_abs = np.abs(data[i]).astype(np.float64) if len(data) == 1 else None
        refs.append((ref, _grad_bound(tol, ref, mag, tname(tb.grad.dtype), n, x_abs)))
    return refs


def _grad_bound(tol: dict, ref, mag, dt: str, n: int, x_abs):
    r = round_to(ref, dt)
    half = ulp_of(r, dt) if dt in HALF else 0.0
    kind = tol["kind"]
    if kind == "backward":
        return (CHAIN * UNIT_ROUNDOFF[dt] + _gamma32(n)) * mag + ulp_of(r, dt)
    if kind == "ulp":
        # The contract holds per term; a gradient that sums terms (an input broadcast to several outputs) adds up
        # their errors, so the units are taken at the size of Σ|terms| (`mag`, ≥ |ref|), plus the sum's own γ(n).
        xa = 0.0
        if x_abs is not None:
            xa = x_abs if x_abs.shape == np.shape(ref) else (x_abs.max() if x_abs.size else 0.0)
            xa = np.where(np.isfinite(xa), xa, 0.0)
        bound = (tol["ulp"] + tol["ulp_per_abs_x"] * xa) * ulp_of(mag, dt) + _gamma32(n) * mag + half
        return np.maximum(bound, tol["abs"]) if tol["abs"] > 0 else bound
    if kind == "absolute":
        return tol["abs"] + half
    if kind == "relative":
        return tol["rel"] * np.abs(ref) + half
    return 0.0


def _grad_explain(ok, got, ref, bound, what) -> str:
    lines = [f"{what}: {int((~ok).sum())} of {ok.size} elements outside the contract"]
    bound = np.broadcast_to(bound, np.shape(ok))
    for idx in [tuple(j) for j in np.argwhere(~ok)[:8]] if ok.ndim else [()]:
        lines.append(f"  at {idx}: ours {got[idx]!r}, reference {ref[idx]!r}, bound {bound[idx]!r}")
    return "\n".join(lines)


def grad_case(op, shapes, fn, cls="contiguous", dtype=None, **kw):
    """One check_grad case for a parametrize table."""
    tag = (f"-{cls}" if cls != "contiguous" else "") + (f"-{'+'.join(as_tuple(dtype))}" if dtype else "")
    return pytest.param(Case(check_grad, op, shapes, fn, (cls, dtype), kw), id=f"grad-{op}{tag}:{_fn_text(fn)}")
