"""The one test helper: the same lambda on torch (CPU) and on vkml per device, compared under the op table's contract.

`check_op(op, shapes, fn, device, cls, dtype)` builds seeded inputs with NumPy, creates the same tensors in torch and in
vkml (through the same view recipe, so vkml gets genuinely strided or expanded views), applies `fn` to both, asserts
shape, dtype and device, and compares values under the tolerance that `vkml.op_table()` declares for `op`. On a Vulkan
device it also compares against vkml's CPU result, the oracle. No test carries a tolerance of its own.

`fn` takes the inputs positionally; a parameter named `lib` receives the library (`torch` or `vkml`) and one named
`dev` the device string (`"cpu"` for torch), so creation ops and functional forms share one lambda too.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest
import torch
import vkml
from coverage_matrix import CLASSES, DTYPES, FLOATS, INTS, REG, device_matches, static_reason  # noqa: F401
from lambdas import fn_text as _fn_text
from lambdas import words
from measured import record as _record

DEVICES: list[str] = []  # filled once per session by conftest.pytest_configure
# The oracle every other vkml device is also checked against (beside torch); both CPU devices compute float64.
ORACLE = "cpu:reference"
CPUS = ("cpu", ORACLE)

HALF = ("float16", "bfloat16")
# Pairs for the "mixed" class; the cell is the promoted dtype (torch.result_type), so every column but bool is reached.
MIXED = (
    ("float16", "float32"),
    ("int32", "float32"),
    ("bfloat16", "float16"),
    ("float16", "int32"),
    ("bfloat16", "bool"),
    ("int32", "bool"),
    ("bool", "int64"),
    ("int32", "int64"),
    ("float64", "float32"),
)
NP = {
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": np.float32,  # NumPy has no bfloat16: staged as float32 holding bf16-representable values
    "float64": np.float64,
    "int32": np.int32,
    "int64": np.int64,
    "bool": np.bool_,
}
INF, NAN = float("inf"), float("nan")
SPECIALS = {
    "float32": [0.0, -0.0, 1e-40, -1e-40, 1e38, -1e38, INF, -INF, NAN],
    "bfloat16": [0.0, -0.0, 1e-40, -1e-40, 1e38, -1e38, INF, -INF, NAN],
    "float16": [0.0, -0.0, 1e-5, -1e-5, 65504.0, -65504.0, INF, -INF, NAN],
    "float64": [0.0, -0.0, 1e-310, -1e-310, 1e308, -1e308, INF, -INF, NAN],
    "int32": [0, -1, 1, 2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1, 123456789],
    "int64": [0, -1, 1, 2**63 - 1, -(2**63), 2**53 + 1, -(2**53) - 1, 2**31],
}
# Ops that create a test's inputs: a NotImplementedError may come from them before the op under test runs.
CREATION = ("tensor", "zeros", "ones", "full", "arange", "to", "copy")
TINY32 = float(np.finfo(np.float32).tiny)  # the GPU flushes below this (f16 values never are; bf16 shares the range)
# Names an op may have in the table; the first present wins. Edit here when the table names an op differently.
ALIASES = {
    "to": ("to", "cast"),
    "cast": ("cast", "to"),
    "copy": ("copy", "to_device", "to"),
    "getitem": ("getitem", "__getitem__", "slice", "index"),
    "t": ("t", "transpose", "permute"),
    "from_numpy": ("from_numpy", "tensor"),
    **{f"{op}_": (f"{op}_", op) for op in ("add", "sub", "mul", "div")},
    "setitem": ("setitem", "__setitem__", "copy_", "index_put"),
    "zero_": ("zero_", "fill_", "zeros"),
    "fill_": ("fill_", "full"),
    "copy_": ("copy_", "copy"),
    "clone": ("clone", "contiguous"),
    **{f"{op}_like": (f"{op}_like", op) for op in ("zeros", "ones", "full", "rand", "randn")},
}
# The exception classes the tests tell apart, most specific first: vkml raises the first of these that torch's
# exception is (a subclass of it passes, as `except` would catch it).
ERROR_CLASSES = (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError)


def torch_class(exc: BaseException) -> type:
    """The class vkml must raise where torch raised `exc`."""
    return next((k for k in ERROR_CLASSES if isinstance(exc, k)), Exception)


# --- the op table ---------------------------------------------------------------------------------------------------


@functools.cache
def op_table() -> dict[str, dict]:
    return {row["name"]: row for row in vkml.op_table()}


def op_row(op: str) -> tuple[str, dict]:
    """(table name, row) for `op`, trying its aliases."""
    table = op_table()
    names = ALIASES.get(op, (op,))
    for name in names:
        if name in table:
            return name, table[name]
    raise AssertionError(
        f"vkml.op_table() has no row for {op!r} (tried {names}); its rows are {sorted(table)}. "
        "Add the row (every public op has one) or an alias in helpers.ALIASES."
    )


def declared_unsupported(row: dict, device: str, dtypes: set[str]) -> str | None:
    """The op table's reason when `row` declares one of `dtypes` unsupported on `device`, else None."""
    for entry in row.get("unsupported") or []:
        if device_matches(entry.get("device"), device) and (
            entry.get("dtype") in dtypes or entry.get("dtype") in (None, "*")
        ):
            return entry.get("reason") or f"declared unsupported on {entry.get('device')} for {entry.get('dtype')}"
    return None


def matrix(ops, classes=CLASSES, dtypes=DTYPES, shapes_for=None) -> list:
    """pytest params (op, cls, dtype) for every cell of `ops` that no static rule declares not applicable.

    For the mixed class the dtype is a pair from MIXED (its cell is the promoted dtype)."""
    params = []
    for op in ops:
        kind = op_table().get(op, {}).get("kind")
        for cls in classes:
            for dt in MIXED if cls == "mixed" else dtypes:
                if static_reason(op, kind, cls, promote(dt)) is None:
                    params.append(pytest.param(op, cls, dt, id=f"{op}-{cls}-{'+'.join(as_tuple(dt))}"))
    return params


# --- dtypes ---------------------------------------------------------------------------------------------------------


def as_tuple(dtype) -> tuple:
    return dtype if isinstance(dtype, tuple) else (dtype,)


def tname(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def promote(dtypes) -> str:
    """torch's promotion of dtype names (tensors of equal rank), e.g. ('int32', 'float16') -> 'float16'."""
    names = tuple(dtypes) if isinstance(dtypes, (list, tuple)) else (dtypes,)
    return tname(functools.reduce(torch.promote_types, [getattr(torch, n) for n in names]))


def is_float(name: str) -> bool:
    return name in FLOATS


# --- inputs ---------------------------------------------------------------------------------------------------------


def _round(values, dtype: str) -> np.ndarray:
    """`values` as the staging array of `dtype` (exactly representable in `dtype`)."""
    if dtype == "bfloat16":
        return torch.tensor(np.asarray(values, np.float32)).to(torch.bfloat16).float().numpy()
    return np.asarray(values).astype(NP[dtype])


def _ordinary(shape, dtype: str, domain: str, rng) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype in INTS:
        lo, hi = (1, 10) if domain == "positive" else (-5, 6)
        return rng.integers(lo, hi, shape).astype(NP[dtype])
    if domain == "positive":
        v = rng.uniform(0.1, 4.0, shape)
    elif domain == "grid":  # few distinct values, so equality and ties happen
        v = rng.integers(-3, 4, shape) / 2
    elif domain == "wide":
        v = rng.standard_normal(shape) * 20
    elif domain == "unit":
        v = rng.uniform(-1.0, 1.0, shape)
    elif domain == "above1":
        v = rng.uniform(1.0, 5.0, shape)
    else:
        v = rng.standard_normal(shape)
    return _round(v, dtype)


def _extreme(shape, dtype: str, index: int, rng) -> np.ndarray:
    """Ordinary values in [-1, 1] with every special of `dtype` placed twice: once at positions shared by all inputs
    in the same order (inf - inf, 0 / 0), once rotated by the input's index (inf + 1e38, 0 * inf, -0 vs 0)."""
    flat = _ordinary(int(np.prod(shape)), dtype, "unit", rng)
    if dtype not in SPECIALS:
        return flat.reshape(shape)
    specials = _round(SPECIALS[dtype], dtype) if is_float(dtype) else np.array(SPECIALS[dtype], NP[dtype])
    m, n = len(specials), flat.size
    perm = np.random.default_rng(1000 + n).permutation(n)  # same positions for every input of this size
    same, rotated = perm[:m], perm[m : 2 * m]
    flat[same] = specials[: len(same)]
    flat[rotated] = np.roll(specials, index)[: len(rotated)]
    return flat.reshape(shape)


def _identity(t):
    return t


@dataclass
class Spec:
    """One input: base values, dtype, and the view recipe applied to the base tensor of either library."""

    data: np.ndarray
    dtype: str
    view: Callable = _identity

    def torch(self) -> torch.Tensor:
        t = torch.tensor(self.data.copy())
        return self.view(t.to(torch.bfloat16) if self.dtype == "bfloat16" else t)

    def vkml(self, device: str):
        return self.view(vkml.tensor(self.data.copy(), dtype=getattr(vkml, self.dtype), device=device))

    def flushed(self) -> Spec:
        """Subnormals (of float32) replaced by sign-preserving zero, as a GPU that flushes reads them."""
        if self.dtype not in ("float32", "bfloat16"):
            return self
        return Spec(flush(self.data).astype(self.data.dtype), self.dtype, self.view)


def flush(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    tiny = (a != 0) & (np.abs(a) < TINY32)
    return np.where(tiny, np.copysign(0.0, a), a) if tiny.any() else a


def _strided(nd: int) -> Callable:
    """Every other element from index 1 of a bigger base, with the dims reversed: offset, steps and a permutation."""
    index = (slice(1, None, 2),) * nd
    if nd == 1:
        return lambda t: t[index]
    return lambda t: t[index].permute(*reversed(range(nd)))


def make_inputs(shapes, cls: str = "contiguous", dtype=None, domain: str = "normal", seed: int = 0) -> list[Spec]:
    """Input specs for `shapes` (a shape, or an ndarray used as the values) in input class `cls`.

    strided: a view with offset, steps and permuted dims of a bigger base; broadcast: with identical shapes, each input
    gets size 1 in alternating dims (one input: a stride-0 `expand` view), distinct shapes are used as given; empty:
    dim 0 becomes 0 unless a shape already has a zero; extreme: specials of the dtype among ordinary values; mixed:
    `dtype` is a tuple with one dtype per input."""
    rng = np.random.default_rng(seed)
    dtypes = as_tuple(dtype or "float32")
    if len(dtypes) == 1:
        dtypes = dtypes * len(shapes)
    assert len(dtypes) == len(shapes), f"{len(shapes)} inputs but dtypes {dtypes}"
    shapes = [s if isinstance(s, np.ndarray) else tuple(s) for s in shapes]
    plain = [s for s in shapes if isinstance(s, tuple)]
    if cls == "empty" and not any(0 in s for s in plain):
        shapes = [(0,) + s[1:] if isinstance(s, tuple) and s else s for s in shapes]
    same = len(set(plain)) == 1 and len(plain) == len(shapes)
    specs = []
    for i, (shape, dt) in enumerate(zip(shapes, dtypes)):

        def values(s, dt=dt, i=i):
            return _extreme(s, dt, i, rng) if cls == "extreme" else _ordinary(s, dt, domain, rng)

        if isinstance(shape, np.ndarray):
            specs.append(Spec(_round(shape, dt), dt))
        elif cls == "strided" and shape:
            base = tuple(2 * d + 1 for d in reversed(shape))
            specs.append(Spec(values(base), dt, _strided(len(shape))))
        elif cls == "broadcast" and same and shape:
            small = tuple(1 if (j + i) % 2 == 0 else d for j, d in enumerate(shape))
            view = (lambda t, s=shape: t.expand(*s)) if len(shapes) == 1 else _identity
            specs.append(Spec(values(small), dt, view))
        else:
            specs.append(Spec(values(shape), dt))
    return specs


def make(shape, cls: str = "contiguous", dtype: str = "float32", device: str = "cpu", seed: int = 0, domain="normal"):
    """(torch tensor, vkml tensor on `device`) with the same values, built by the same view recipe."""
    (spec,) = make_inputs([shape], cls, dtype, domain, seed)
    return spec.torch(), spec.vkml(device)


# --- running and reading --------------------------------------------------------------------------------------------


def _call(fn: Callable, inputs: list, lib, dev: str):
    params = inspect.signature(fn).parameters
    kw = {k: v for k, v in (("lib", lib), ("dev", dev)) if k in params}
    return fn(*inputs, **kw)


def is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor) or (hasattr(x, "dtype") and hasattr(x, "shape") and hasattr(x, "tolist"))


def flat(out) -> list:
    """The outputs of a lambda as a flat list: tensors, (values, indices) pairs and tuples are opened."""
    if is_tensor(out):
        return [out]
    if hasattr(out, "values") and hasattr(out, "indices") and not isinstance(out, dict):
        return [out.values, out.indices]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in flat(o)]
    return [out]


def to_numpy(t) -> np.ndarray:
    """Values of a torch or vkml tensor; bfloat16 comes back as float32 (vkml's through tolist: numpy has no bf16)."""
    if isinstance(t, torch.Tensor):
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    if t.dtype.name == "bfloat16":
        return np.array(t.tolist(), dtype=np.float32).reshape(tuple(t.shape))
    return np.asarray(t.numpy())


def materialize(out) -> list:
    """Observe every tensor among the outputs (realizes lazy work, so deferred errors surface here)."""
    return [to_numpy(o) if is_tensor(o) else o for o in flat(out)]


def ulp_of(v, dtype: str) -> np.ndarray:
    """The spacing of `dtype` at |v| (at the smallest normal exponent for subnormals and zero)."""
    mant, emin = {"float64": (52, -1022), "float32": (23, -126), "float16": (10, -14), "bfloat16": (7, -126)}[dtype]
    a = np.abs(np.asarray(v, np.float64))
    _, k = np.frexp(np.where(np.isfinite(a), a, 1.0))
    e = np.where(a == 0, emin, k - 1)
    return np.ldexp(1.0, (np.maximum(e, emin) - mant).astype(np.int64))


def round_to(v: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values rounded once to `dtype`, back in float64."""
    if dtype == "bfloat16":
        return torch.tensor(np.asarray(v, np.float64)).to(torch.bfloat16).double().numpy()
    return np.asarray(v, np.float64).astype(NP[dtype]).astype(np.float64)


def exact_ok(ours: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Bit equality up to NaN payload: equal values with equal sign (so ±0 by sign), or both NaN."""
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    return ((ours == ref) & (np.signbit(ours) == np.signbit(ref))) | (np.isnan(ours) & np.isnan(ref))


def bound_ok(ours, special_ref, center, bound) -> np.ndarray:
    """Within `bound` of `center` where `special_ref` is finite; exactly `special_ref` where it is nan or ±inf."""
    ours = np.asarray(ours, np.float64)
    special = ~np.isfinite(special_ref)
    with np.errstate(invalid="ignore"):
        close = np.isfinite(ours) & (np.abs(ours - center) <= bound)
    return np.where(special, exact_ok(ours, special_ref), close)


class Reference:
    """torch's results for one set of inputs: in the op's own dtype, and from inputs upcast to float64."""

    def __init__(self, fn: Callable, specs: list[Spec]):
        self.fn, self.specs = fn, specs
        inputs = [s.torch() for s in specs]
        views = [s.torch() for s in specs]  # untouched copies: in-place lambdas mutate `inputs`
        self.same = flat(_call(fn, inputs, torch, "cpu"))
        self.n = max([v.numel() for v in views] + [1])
        self.x = to_numpy(views[0]).astype(np.float64) if len(views) == 1 and views[0].dtype != torch.bool else None
        floats = [o.dtype for o in self.same if isinstance(o, torch.Tensor) and o.dtype.is_floating_point]
        self.float_out = floats[0] if floats else torch.float64

    def same_np(self, i: int) -> np.ndarray:
        return to_numpy(self.same[i]).astype(np.float64)

    def _upcast(self, t: torch.Tensor) -> torch.Tensor:
        # Integer inputs convert to the result dtype first, as torch's kernels do; only the arithmetic becomes f64.
        return t.double() if t.is_floating_point() else t.to(self.float_out).double()

    @functools.cached_property
    def r64(self) -> list:
        return [to_numpy(o) for o in flat(_call(self.fn, [self._upcast(s.torch()) for s in self.specs], torch, "cpu"))]

    @functools.cached_property
    def a64(self) -> list:
        ins = [self._upcast(s.torch()).abs() for s in self.specs]
        return [to_numpy(o) for o in flat(_call(self.fn, ins, torch, "cpu"))]

    def x_abs(self, i: int):
        """|x| at each element of output i: per element when the shapes agree, else the largest |x| (looser)."""
        if self.x is None:
            return 0.0
        x = np.where(np.isfinite(self.x), np.abs(self.x), 0.0)  # the |x| term of a bound is meant for finite x
        if x.shape == np.shape(self.r64[i]):
            return x
        return x.max() if x.size else 0.0


def tolerance(row: dict) -> dict:
    tol = dict(row.get("tolerance") or {})
    assert tol.get("kind") in ("exact", "ulp", "absolute", "relative", "backward"), f"bad tolerance {tol} in {row}"
    return tol


def _bound(tol: dict, ref: Reference, i: int, dt: str, unary: bool):
    """(special reference, center, allowed |ours - center|) for float output i under `tol`."""
    kind = tol["kind"]
    if kind == "ulp":
        r = round_to(ref.r64[i], dt)
        units = tol.get("ulp", 0) + tol.get("ulp_per_abs_x", 0) * (ref.x_abs(i) if unary else 0.0)
        bound = units * ulp_of(r, dt) + (ulp_of(r, dt) if dt in HALF else 0.0)
        if tol.get("abs", 0) > 0:
            bound = np.maximum(bound, tol["abs"])
        return r, r, bound
    r64 = np.asarray(ref.r64[i], np.float64)
    half = ulp_of(r64, dt) if dt in HALF else 0.0  # both sides compute in f32 and round once more
    if kind == "absolute":
        return round_to(r64, dt), r64, tol["abs"] + half
    if kind == "relative":
        return round_to(r64, dt), r64, tol["rel"] * np.abs(r64) + half
    # backward: gamma(n) * (fn of |inputs|) + one rounding to the output, n bounding any reduction length from above.
    u = 2.0**-53 if dt == "float64" else 2.0**-24
    gamma = ref.n * u / (1 - ref.n * u)
    return ref.same_np(i), r64, gamma * np.abs(np.asarray(ref.a64[i], np.float64)) + ulp_of(r64, dt)


def _mask(tol: dict, ref: Reference, i: int, dt: str, ours, unary: bool, flush_out=False, against=None):
    """Elements of `ours` within the contract of float output i against `ref` (outputs optionally flushed as a GPU
    may); `against` replaces torch by another implementation's values (the CPU oracle), allowed twice the bound."""
    if tol["kind"] == "exact":
        center = ref.same_np(i) if against is None else against
        cands = [center] + ([flush(center)] if flush_out else [])
        return np.logical_or.reduce([exact_ok(ours, c) for c in cands])
    special, center, bound = _bound(tol, ref, i, dt, unary)
    if against is not None:
        special, center, bound = against, against, 2 * bound
    cands = [(special, center)] + ([(flush(special), flush(center))] if flush_out else [])
    return np.logical_or.reduce([bound_ok(ours, s, c, bound) for s, c in cands])


def _explain(ok, ours, ref: Reference, i: int, what: str, oracle=None) -> str:
    ok = np.asarray(ok)
    lines = [f"{what}: {int((~ok).sum())} of {ok.size} elements outside the contract"]
    try:
        r64 = np.asarray(ref.r64[i], np.float64)
    except Exception:  # noqa: BLE001 - only for the message
        r64 = None
    for idx in [tuple(j) for j in np.argwhere(~ok)[:8]] if ok.ndim else [()]:
        parts = [f"ours {np.asarray(ours)[idx]!r}", f"torch {ref.same_np(i)[idx]!r}"]
        parts += [f"torch f64 {r64[idx]!r}"] if r64 is not None and r64.shape == ok.shape else []
        parts += [f"vkml {ORACLE} {np.asarray(oracle)[idx]!r}"] if oracle is not None else []
        lines.append(f"  at {idx}: " + ", ".join(parts))
    return "\n".join(lines)


# --- the checks -----------------------------------------------------------------------------------------------------


def check_op(
    op: str, shapes, fn: Callable, device: str, cls: str = "contiguous", dtype=None, *, domain="normal", seed=0
):
    """Compare `fn` on vkml (on `device`) with torch for op `op` under its declared contract; record the cell.

    shapes: one shape (or ndarray of values) per input; cls: the input class; dtype: a dtype name for every input or a
    tuple of one per input (for creation ops without inputs it only labels the cell); domain: "normal", "positive",
    "unit", "above1", "wide" or "grid" for the ordinary values.

    Two rules keep the bounds sound: a lambda for a `backward` op must not enlarge its inputs before reducing (n, the
    bound on any reduction length, is the largest input's numel: use the broadcast class for stride-0 inputs), and a
    lambda for a unary op with an |x|-dependent bound applies the op to its input elementwise, views allowed (the |x|
    term is read at the output's index when the shapes agree, else the largest |x| is used)."""
    name, row = op_row(op)
    specs = make_inputs(shapes, cls, dtype, domain, seed)
    key = [name, device, cls, promote([s.dtype for s in specs]) if specs else dtype]
    try:
        outcome, reason = _check(name, row, specs, fn, device, key)
    except BaseException:
        REG.add(tuple(key[:3] + [key[3] or "float32"]), "fail")
        raise
    REG.add(tuple(key), outcome, reason)


def _check(name, row, specs, fn, device, key):
    try:
        ref = Reference(fn, specs)
        torch_exc = None
    except Exception as exc:  # noqa: BLE001 - torch rejecting the case is itself the expectation
        ref, torch_exc = None, exc
    outs = [] if ref is None else [o for o in ref.same if isinstance(o, torch.Tensor)]
    if key[3] is None:
        key[3] = tname(outs[0].dtype) if outs else "float32"
    involved = {key[3]} | {tname(o.dtype) for o in outs}
    unsupported = declared_unsupported(row, device, involved)
    if device not in CPUS and "float64" in involved and not unsupported:
        pytest.fail(f"{name} on {device} with float64: the op table must declare it unsupported (vulkan has no f64)")
    if torch_exc is not None:
        allowed = (torch_class(torch_exc),) + ((NotImplementedError,) if unsupported else ())
        with pytest.raises(allowed) as info:
            materialize(_call(fn, [s.vkml(device) for s in specs], vkml, device))
        assert str(info.value), f"{type(info.value).__name__} without a message"
        return "error", None
    if unsupported:
        check_unsupported(
            name,
            device,
            key[3],
            lambda: _call(fn, [s.vkml(device) for s in specs], vkml, device),
            key[2],
            record=False,
            dtypes=involved,
            also=words(fn),
        )
        return "unsupported", unsupported
    ours = _run(name, fn, specs, device)
    _compare(row, ref, specs, ours, device, f"{name} on {device} vs torch")
    if device != ORACLE:
        oracle = _run(name, fn, specs, ORACLE)
        _compare(row, ref, specs, ours, device, f"{name} on {device} vs the vkml oracle ({ORACLE})", oracle)
    return "pass", None


def _run(name, fn, specs, device) -> list:
    try:
        return flat(_call(fn, [s.vkml(device) for s in specs], vkml, device))
    except NotImplementedError as exc:
        pytest.fail(f"{name} raised NotImplementedError on {device} without the op table declaring it: {exc}")


def _compare(row: dict, ref: Reference, specs: list[Spec], ours: list, device: str, what: str, oracle=None):
    tol = tolerance(row)
    flush_ok = device not in CPUS and bool(tol.get("gpu_flushes_subnormals"))
    refs = [ref] + ([Reference(ref.fn, [s.flushed() for s in specs])] if flush_ok else [])
    unary = row.get("kind") == "unary" and len(specs) == 1
    assert len(ours) == len(ref.same), f"{what}: {len(ours)} outputs, torch gives {len(ref.same)}"
    for i, (o, r) in enumerate(zip(ours, ref.same)):
        if not isinstance(r, torch.Tensor):
            assert not is_tensor(o), f"{what}: output {i} is a tensor, torch gives {r!r}"
            assert o == r or (o != o and r != r), f"{what}: output {i} is {o!r}, torch gives {r!r}"
            continue
        assert is_tensor(o), f"{what}: output {i} is {o!r}, torch gives a tensor"
        assert tuple(o.shape) == tuple(r.shape), f"{what}: shape {tuple(o.shape)}, torch {tuple(r.shape)}"
        assert o.dtype.name == tname(r.dtype), f"{what}: dtype {o.dtype.name}, torch {tname(r.dtype)}"
        assert str(o.device) == device, f"{what}: result on {o.device}, expected {device}"
        dt, values = tname(r.dtype), to_numpy(o)
        against = None if oracle is None else to_numpy(oracle[i])
        assert against is None or against.shape == values.shape, f"{what}: oracle shape {against.shape}"
        if not is_float(dt):  # integer and bool results compare exactly, always
            ok = values == (to_numpy(r) if against is None else against)
            for alt in refs[1:]:
                ok |= values == to_numpy(alt.same[i])
        else:
            against = None if against is None else against.astype(np.float64)
            ok = _mask(tol, ref, i, dt, values, unary, against=against)
            for alt in refs if flush_ok else []:
                ok |= _mask(tol, alt, i, dt, values, unary, flush_out=True)
        detail = f"{what} (output {i}, {dt}, {tol['kind']}: {tol.get('reason')})"
        assert np.all(ok), _explain(ok, values, ref, i, detail, against)
        if against is None:
            _measure(row, tol, ref, i, dt, values, unary, device)


def _measure(row: dict, tol: dict, ref: Reference, i: int, dt: str, values, unary: bool, device: str) -> None:
    """Record the largest error of float output i against torch, among elements the unflushed contract covers (an
    element a GPU got right only by flushing a subnormal is not an error of the formula)."""
    if tol["kind"] == "exact" or not is_float(dt):
        err_ulp = share = 0.0
    else:
        special, center, bound = _bound(tol, ref, i, dt, unary)
        values = np.asarray(values, np.float64)
        covered = bound_ok(values, special, center, bound) & np.isfinite(special) & np.isfinite(values)
        if not covered.any():
            return
        err = np.abs(values - center)
        with np.errstate(divide="ignore", invalid="ignore"):
            units = np.where(covered, err / ulp_of(special, dt), 0.0)
            shares = np.where(covered & (np.broadcast_to(bound, err.shape) > 0), err / bound, 0.0)
        err_ulp, share = float(np.nanmax(units)), float(np.nanmax(shares))
    _record(row["name"], device, err_ulp, share)


def _measure_random(row: dict, tol: dict, values, cpu, dt: str, device: str) -> None:
    """A random op's largest difference from vkml's CPU values for the same seed (torch's generator differs)."""
    bound = 2 * _self_bound(tol, cpu, dt)
    err = np.abs(np.asarray(values, np.float64) - cpu)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(np.broadcast_to(bound, err.shape) > 0, err / bound, 0.0)
        units = err / ulp_of(cpu, dt) if is_float(dt) else err
    _record(row["name"], device, float(np.max(units, initial=0.0)), float(np.max(shares, initial=0.0)))


def names_device(message: str, device: str) -> bool:
    """Whether `message` names `device` itself ("vulkan:0" inside "vulkan:0:floor" does not count)."""
    return re.search(re.escape(device) + r"(?![\w:])", message) is not None


def check_unsupported(
    op: str, device: str, dtype: str, fn: Callable, cls="contiguous", *, record=True, dtypes=None, also=()
):
    """`fn()` (vkml work on `device`) raises NotImplementedError naming op, dtype and device, as the op table declares.

    The message may name a creation op (CREATION) instead: the input may not even be created on the device. `also`
    adds names the caller spelled (a method such as `double` for a cast)."""
    name, row = op_row(op)
    with pytest.raises(NotImplementedError) as info:
        materialize(fn())
    msg = str(info.value)
    dtypes = dtypes or {dtype}
    assert any(d in msg for d in dtypes), f"NotImplementedError must name the dtype ({dtypes}): {msg!r}"
    assert names_device(msg, device), f"NotImplementedError must name the device {device}: {msg!r}"
    ops = "|".join(re.escape(n) for n in (name, op, *CREATION, *also))
    assert re.search(rf"\b({ops})\b", msg), f"NotImplementedError must name the op {name}: {msg!r}"
    reason = declared_unsupported(row, device, dtypes)
    assert reason, f"{name} on {device} for {dtypes} raised NotImplementedError but vkml.op_table() does not declare it"
    if record:
        REG.add((name, device, cls, dtype), "unsupported", reason)


def check_error(
    op, shapes, fn: Callable, device: str, exc, match=None, cls="contiguous", dtype=None, *, torch_raises=True, seed=0
):
    """vkml raises `exc` (message matching the regex `match`) on `device` where torch raises too (on its CPU)."""
    specs = make_inputs(shapes, cls, dtype, "normal", seed)
    name = op_row(op)[0] if op else None
    if torch_raises:
        with pytest.raises(Exception):  # noqa: B017 - only that torch rejects it; vkml's type is checked below
            materialize(_call(fn, [s.torch() for s in specs], torch, "cpu"))
    with pytest.raises(exc, match=match):
        materialize(_call(fn, [s.vkml(device) for s in specs], vkml, device))
    if name:
        REG.add((name, device, cls, promote([s.dtype for s in specs]) if specs else (dtype or "float32")), "error")


def shapes_re(*shapes) -> str:
    """A regex that finds every shape in a message, in any order, written (2, 3), [2, 3] or 2x3."""
    parts = []
    for s in shapes:
        listed = r"[\[(]\s*" + r",\s*".join(str(d) for d in s) + r",?\s*[\])]"
        parts.append(f"(?:{listed}|\\b{'x'.join(str(d) for d in s)}\\b)" if len(s) > 1 else listed)
    return "(?s)" + "".join(f"(?=.*{p})" for p in parts)


def record(op: str, device: str, cls: str, dtype: str, outcome: str = "pass") -> None:
    """Count a case of a hand-written test in the matrix, under the op table's name for `op` when it has one."""
    try:
        name = op_row(op)[0]
    except AssertionError:
        return
    REG.add((name, device, cls, dtype), outcome)


# --- one line per case ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    check: Callable
    op: str
    shapes: Any
    fn: Callable
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def run(self, device: str) -> None:
        self.check(self.op, self.shapes, self.fn, device, *self.args, **self.kwargs)


def case(op, shapes, fn, cls="contiguous", dtype=None, **kw):
    """One check_op case for a table that `each` runs."""
    tag = (f"-{cls}" if cls != "contiguous" else "") + (f"-{'+'.join(as_tuple(dtype))}" if dtype else "")
    return pytest.param(Case(check_op, op, shapes, fn, (cls, dtype), kw), id=f"{op}{tag}:{_fn_text(fn)}")


def error(op, shapes, fn, exc, match=None, **kw):
    """One check_error case for a parametrize table."""
    names = "+".join(e.__name__ for e in (exc if isinstance(exc, tuple) else (exc,)))
    return pytest.param(Case(check_error, op, shapes, fn, (exc, match), kw), id=f"{op}-{names}:{_fn_text(fn)}")


def each(cases):
    """The test of a table of cases: one pytest item a case and device (`test_case = each(CASES)`)."""

    @pytest.mark.parametrize("c", cases)
    def test(c, device):
        c.run(device)

    return test


def check_pipeline(device: str, run: Callable, op: str, want: str) -> None:
    """`run()` realizes one `op` kernel: on a GPU (the floor included) it runs on pipeline `want`; the CPU devices
    have one pipeline, "cpu", for every kernel."""
    with vkml.profile() as p:
        run()
    if device in CPUS:
        assert {k["pipeline"] for k in p.kernels} == {"cpu"}, p.kernels
    else:
        assert [k["pipeline"] for k in p.kernels if k["op"] == op] == [want], p.kernels


def layout(t):
    """A view's observable layout, compared with torch's by check_op: the tensor, its strides and contiguity."""
    return t, tuple(t.stride()), t.is_contiguous()


def layout_loose(t):
    """As `layout`, but strides only for dims of size > 1 (the others are arbitrary) and none for empty tensors."""
    strides = tuple(s if d > 1 else None for d, s in zip(t.shape, t.stride())) if t.numel() else ()
    return t, strides, t.is_contiguous()


# --- random ops -----------------------------------------------------------------------------------------------------


def _self_bound(tol: dict, ref: np.ndarray, dt: str):
    """The declared bound around one implementation's result, for comparing two implementations of a random op."""
    if not is_float(dt):
        return 0.0
    half = ulp_of(ref, dt) if dt in HALF else 0.0
    kind = tol["kind"]
    if kind == "ulp":
        return (tol.get("ulp", 0) + tol.get("ulp_per_abs_x", 0) * np.abs(ref)) * ulp_of(ref, dt) + half
    if kind == "absolute":
        return tol.get("abs", 0) + half
    if kind == "relative":
        return tol.get("rel", 0) * np.abs(ref) + half
    return 0.0 if kind == "exact" else ulp_of(ref, dt)


def check_random(op: str, fn: Callable, device: str, cls: str = "contiguous", dtype=None, seed: int = 1234):
    """A seeded random op: shape, dtype and device as torch's (whose values differ: another generator); the same
    seed gives the same bits on every device (Philox-4x32-10); uniform values are exact, others within twice the
    declared bound of vkml's CPU result. `fn(lib, dev)` builds the tensor."""
    name, row = op_row(op)
    key = [name, device, cls, dtype]
    try:
        torch.manual_seed(seed)
        expect = _call(fn, [], torch, "cpu")
    except Exception as exc:  # noqa: BLE001 - torch rejecting it (e.g. an integer dtype) is the expectation
        with pytest.raises(torch_class(exc)):
            vkml.manual_seed(seed)
            materialize(_call(fn, [], vkml, device))
        REG.add((name, device, cls, dtype or "float32"), "error")
        return
    dt = tname(expect.dtype)
    key[3] = key[3] or dt
    involved = {dt} | ({dtype} if isinstance(dtype, str) else set())  # multinomial: float weights, int64 out
    if declared_unsupported(row, device, involved) or (device not in CPUS and "float64" in involved):
        check_unsupported(
            name,
            device,
            dtype if isinstance(dtype, str) else dt,
            lambda: _call(fn, [], vkml, device),
            cls,
            also=words(fn),
        )
        return
    try:
        vkml.manual_seed(seed)
        ours = _call(fn, [], vkml, device)
        assert tuple(ours.shape) == tuple(expect.shape), f"shape {tuple(ours.shape)}, torch {tuple(expect.shape)}"
        assert ours.dtype.name == dt, f"dtype {ours.dtype.name}, torch {dt}"
        assert str(ours.device) == device, f"on {ours.device}, expected {device}"
        values = to_numpy(ours).astype(np.float64)
        assert np.isfinite(values).all(), f"{name} gave non-finite values"
        if name in ("rand", "rand_like"):
            assert ((values >= 0) & (values < 1)).all(), f"{name} left [0, 1): {values[(values < 0) | (values >= 1)]}"
        vkml.manual_seed(seed)
        again = to_numpy(_call(fn, [], vkml, device)).astype(np.float64)
        assert exact_ok(values, again).all(), f"{name} on {device}: the same seed gave different values"
        if device != ORACLE:
            vkml.manual_seed(seed)
            cpu = to_numpy(_call(fn, [], vkml, ORACLE)).astype(np.float64)
            tol = tolerance(row)
            if name in ("rand", "rand_like"):  # uniform bits come from integer math: identical everywhere
                ok = exact_ok(values, cpu)
            else:
                ok = bound_ok(values, cpu, cpu, 2 * _self_bound(tol, cpu, dt))
            bad = np.argwhere(~ok)[:8]
            assert ok.all(), f"{name} on {device} vs vkml {ORACLE}, same seed: " + ", ".join(
                f"at {tuple(i)}: {values[tuple(i)]!r} vs {cpu[tuple(i)]!r}" for i in bad
            )
            _measure_random(row, tol, values, cpu, dt, device)
    except BaseException:
        REG.add(tuple(key), "fail")
        raise
    REG.add(tuple(key), "pass")
