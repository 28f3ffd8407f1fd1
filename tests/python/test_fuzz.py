"""A seeded fuzz over the op table (issue #20): every unary, binary and reduce op that torch spells the same way, on
random shapes (0-d, empty, broadcast, up to 4 dims), input classes, dtypes, dims and keepdim; views, rearrangements
and joins with random dims, sizes and permutations; in-place updates; and gradients. Each is checked by `check_op`
or `check_grad`: a value within the op's contract, torch's exception class, or a refusal the op table declares;
never a panic, an abort or a wrong answer. Then file bytes: mutated checkpoints load or fail with a clean error.
Indexing by tensors draws indices in and out of range, negative ones included: gather, scatter, index_select,
`x[..., index]` and embedding must give torch's values or torch's exception class (RuntimeError for gather and scatter;
IndexError for indexing, embedding and index_select, except where torch's CPU raises RuntimeError: index_select along
dim 1, of an empty tensor or along an empty dim, and embedding of an empty weight). take_along_dim is left out: torch
2.11 returns values for out-of-range indices there (reading past the row), which vkml refuses.

CI runs a fixed sample (`VKML_FUZZ_EXAMPLES`, default 1,000 per device: about 20 s on cpu, lavapipe and the floor);
the long form is
`VKML_FUZZ_EXAMPLES=3000 python -m pytest tests/python/test_fuzz.py -p known_failures`. Each run writes
`tests/out/fuzz.json`: the examples run, the ops reached and the outcomes."""

import json
import os
import pathlib

import numpy as np
import pytest
import torch
import vkml
from coverage_matrix import CLASSES, DTYPES
from gradcheck import check_grad
from helpers import check_op

EXAMPLES = int(os.environ.get("VKML_FUZZ_EXAMPLES", "1000"))
OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "out" / "fuzz.json"
# Reductions torch spells x.op(dim=, keepdim=), and those without keepdim (dim only).
KEEPDIM = {"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "prod", "logsumexp", "std",
           "var"}  # fmt: skip
DIM_ONLY = {"cumsum", "cumprod", "softmax", "log_softmax"}


def _ops():
    """(name, kind) of every op the fuzz can call generically, in table order."""
    out = []
    for r in vkml.op_table():
        name, kind = r["name"], r["kind"]
        if kind == "unary" and hasattr(torch.Tensor, name) and hasattr(vkml.Tensor, name):
            out.append((name, kind))
        elif kind == "binary" and name != "outer" and hasattr(torch, name) and hasattr(vkml, name):
            out.append((name, kind))
        elif kind == "reduce" and name in KEEPDIM | DIM_ONLY:
            out.append((name, kind))
    return out


OPS = _ops()
# The fuzzed ops with a gradient contract (argmax and the like have integer or bool results).
DIFFERENTIABLE = {r["name"] for r in vkml.op_table() if r["grad"]} - {"argmax", "argmin", "all", "any"}


def _shape(rng, rank=None):
    rank = int(rng.integers(0, 5)) if rank is None else rank
    return tuple(int(d) for d in rng.choice([0, 1, 2, 3, 5], size=rank, p=[0.08, 0.22, 0.3, 0.25, 0.15]))


def _broadcast_partner(rng, shape):
    """A shape that broadcasts with `shape` (dims set to 1, leading dims dropped), or now and then one that does
    not (torch's error is then the expectation)."""
    if rng.random() < 0.08:
        return tuple(d + 1 for d in shape) or (2,)
    other = [1 if rng.random() < 0.3 else d for d in shape]
    return tuple(other[int(rng.integers(0, len(other) + 1)) :]) if other and rng.random() < 0.3 else tuple(other)


def example(i):
    """Example `i`: (op, shapes, fn, cls, dtype); the same for an index on every run."""
    rng = np.random.default_rng(1000 + i)
    name, kind = OPS[int(rng.integers(0, len(OPS)))]
    cls = str(rng.choice(CLASSES))
    dtype = str(rng.choice(DTYPES))
    shape = _shape(rng)
    if kind == "unary":
        return name, [shape], (lambda x: getattr(x, name)()), cls if cls != "mixed" else "contiguous", dtype
    if kind == "binary":
        other = _broadcast_partner(rng, shape) if rng.random() < 0.5 else shape
        if cls == "mixed":
            dtype = (dtype, str(rng.choice(DTYPES)))
        return name, [shape, other], (lambda x, y, lib: getattr(lib, name)(x, y)), cls, dtype
    rank = len(shape)
    span = max(rank, 1)  # a 0-d tensor takes dim 0 or -1 too
    dim = None if rng.random() < 0.2 else int(rng.integers(-span, span))
    keepdim = bool(rng.random() < 0.5)
    cls = cls if cls != "mixed" else "strided"
    if name in DIM_ONLY:
        return name, [shape], (lambda x: getattr(x, name)(dim=0 if dim is None else dim)), cls, dtype
    if dim is None:
        return name, [shape], (lambda x: getattr(x, name)()), cls, dtype
    return name, [shape], (lambda x: getattr(x, name)(dim=dim, keepdim=keepdim)), cls, dtype


def _perm(rng, rank):
    return tuple(int(d) for d in rng.permutation(rank))


def _dim(rng, rank):
    """A dim of a tensor of `rank` dims, now and then one out of range (torch's IndexError is then expected)."""
    span = max(rank, 1)
    return int(rng.integers(-span - 1, span + 1)) if rng.random() < 0.1 else int(rng.integers(-span, span))


def movement(i):
    """Example `i` of the views, rearrangements, joins and in-place writes: (op, shapes, fn, cls, dtype)."""
    rng = np.random.default_rng(5000 + i)
    shape = _shape(rng, int(rng.integers(1, 4)))
    rank, n = len(shape), int(np.prod(shape))
    dtype = str(rng.choice(DTYPES))
    cls = str(rng.choice([c for c in CLASSES if c != "mixed"]))
    d = _dim(rng, rank)
    size = shape[d] if -rank <= d < rank else 1
    start, length = int(rng.integers(-1, size + 1)), int(rng.integers(-1, size + 2))
    # Every argument is drawn here, once: check_op calls a lambda on torch, on the device and on the oracle.
    perm, other, shift = _perm(rng, rank), int(rng.integers(-rank, rank)), int(rng.integers(-7, 8))
    reps, offset = [int(r) for r in rng.integers(0, 3, size=rank)], int(rng.integers(-3, 4))
    cases = [
        ("reshape", lambda x: x.reshape(-1, *shape[rank - 1 :]) if n else x.reshape(0, -1)),
        ("permute", lambda x: x.permute(*perm)),
        ("transpose", lambda x: x.transpose(d, other)),
        ("narrow", lambda x: x.narrow(d, start, length)),
        ("flip", lambda x: x.flip(d)),
        ("roll", lambda x: x.roll(shift, d)),
        ("repeat", lambda x: x.repeat(*reps)),
        ("unsqueeze", lambda x: x.unsqueeze(d)),
        ("squeeze", lambda x: x.squeeze(d)),
        ("flatten", lambda x: x.flatten(d % rank, -1)),
        ("diagonal", lambda x: x.diagonal(offset)),
        ("tril", lambda x: x.tril(offset)),
        ("cat", lambda x, lib: lib.cat([x, x], d)),
        ("stack", lambda x, lib: lib.stack([x, x], d)),
    ]
    if rng.random() < 0.15:
        op = str(rng.choice(["add_", "mul_", "sub_"]))
        other = shape[d:] if -rank <= d < rank else shape
        return op, [shape, other], (lambda x, y: getattr(x.clone(), op)(y)), cls, dtype
    op, fn = cases[int(rng.integers(0, len(cases)))]
    return op, [shape], fn, cls, dtype


def indexing(i):
    """Example `i` of indexing by a tensor whose values reach past the dim on either side now and then (all of them
    when the dim is empty): (op, shapes, fn, cls, dtype)."""
    rng = np.random.default_rng(7000 + i)
    rank = int(rng.integers(1, 4))
    shape = _shape(rng, rank)
    dtype = str(rng.choice(DTYPES))
    cls = str(rng.choice([c for c in CLASSES if c != "mixed"]))
    d = int(rng.integers(-rank, rank))
    size = shape[d]
    index_dtype = str(rng.choice(["int64", "int32"]))

    def values(shape_):
        return (
            rng.integers(-size - 2, size + 2, size=shape_)
            if rng.random() < 0.5
            else rng.integers(0, max(size, 1), size=shape_)
        )

    # gather's and scatter's index: any length along d, at most x's length along the others.
    fitted = [int(rng.integers(0, 4)) if j == d % rank else int(rng.integers(0, n + 1)) for j, n in enumerate(shape)]
    flat_values, fitted_values = values(int(rng.integers(0, 5))), values(tuple(fitted))
    lead = (slice(None),) * (d % rank)

    def ix(lib, dev, v):
        return lib.tensor(v, dtype=getattr(lib, index_dtype), device=dev)

    cases = [
        ("index_select", lambda x, lib, dev: x.index_select(d, ix(lib, dev, flat_values))),
        ("gather", lambda x, lib, dev: x.gather(d, ix(lib, dev, fitted_values))),
        ("scatter", lambda x, lib, dev: x.scatter(d, ix(lib, dev, fitted_values), 1.5)),
        ("getitem", lambda x, lib, dev: x[(*lead, ix(lib, dev, flat_values))]),
    ]
    if rank == 2 and dtype in ("float32", "float16", "bfloat16"):
        cases.append(("embedding", lambda x, lib, dev: lib.nn.functional.embedding(ix(lib, dev, fitted_values), x)))
    op, fn = cases[int(rng.integers(0, len(cases)))]
    return op, [shape], fn, cls, dtype


SEEN: dict = {"examples": 0, "ops": {}, "outcomes": {}}


def _counted(op, check):
    """Run `check`, counting its op and outcome in tests/out/fuzz.json."""
    try:
        check()
    except BaseException:
        _note(op, "failed")
        raise
    _note(op, "checked")


def _note(op, outcome):
    SEEN["examples"] += 1
    SEEN["ops"][op] = SEEN["ops"].get(op, 0) + 1
    SEEN["outcomes"][outcome] = SEEN["outcomes"].get(outcome, 0) + 1


@pytest.fixture(scope="module", autouse=True)
def _summary():
    """Write tests/out/fuzz.json once, after the module's examples ran."""
    yield
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # "ops" counts each op, its view or in-place form and its gradient ("op (grad)") under its own label.
    summary = {**SEEN, "labels_reached": len(SEEN["ops"]), "unary_binary_reduce_ops": len(OPS)}
    OUT.write_text(json.dumps(summary, indent=1))


@pytest.mark.parametrize("i", range(EXAMPLES))
def test_ops(i, device):
    op, shapes, fn, cls, dtype = example(i)
    _counted(op, lambda: check_op(op, shapes, fn, device, cls, dtype, domain="wide", seed=i))


@pytest.mark.parametrize("i", range(EXAMPLES // 2))
def test_views_and_inplace(i, device):
    op, shapes, fn, cls, dtype = movement(i)
    domain = "wide" if op.endswith("_") else "grid"
    _counted(op, lambda: check_op(op, shapes, fn, device, cls, dtype, domain=domain, seed=i))


@pytest.mark.parametrize("i", range(EXAMPLES // 4))
def test_indexing(i, device):
    op, shapes, fn, cls, dtype = indexing(i)
    _counted(op, lambda: check_op(op, shapes, fn, device, cls, dtype, domain="grid", seed=i))


@pytest.mark.parametrize("i", range(EXAMPLES // 5))
def test_gradients(i, device):
    """Backward of the fuzzed unary, binary and reduce ops on random float shapes, against torch's float64
    gradients."""
    rng = np.random.default_rng(9000 + i)
    while True:
        op, shapes, fn, cls, _ = example(int(rng.integers(0, 1 << 30)))
        if op in DIFFERENTIABLE:
            break
    # float32 on ordinary values: the gradient contracts state their bounds there (std's for std ≥ 1/8, say).
    cls = cls if cls not in ("mixed", "extreme") else "contiguous"
    _counted(f"{op} (grad)", lambda: check_grad(op, shapes, fn, device, cls, "float32", seed=i))


def _checkpoints(tmp_path):
    """A torch .pt of a small model's state_dict and a vkml safetensors file: the files the mutations start from."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    torch.save(model.state_dict(), tmp_path / "m.pt")
    vkml.save({"w": vkml.ones(3, 2), "b": vkml.arange(4)}, tmp_path / "m.safetensors")
    return [(tmp_path / "m.pt").read_bytes(), (tmp_path / "m.safetensors").read_bytes()]


@pytest.mark.parametrize("which", ["pt", "safetensors"])
def test_file_bytes(tmp_path, which):
    """Random byte flips, truncations and splices of a valid file: each loads or raises a clean error."""
    base = _checkpoints(tmp_path)[0 if which == "pt" else 1]
    rng = np.random.default_rng(7)
    path = tmp_path / f"fuzzed.{which}"
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(max(20, EXAMPLES)):
        data = bytearray(base)
        how = rng.integers(0, 3)
        if how == 0:
            for at in rng.integers(0, len(data), size=int(rng.integers(1, 8))):
                data[at] = int(rng.integers(0, 256))
        elif how == 1:
            data = data[: int(rng.integers(0, len(data)))]
        else:
            at = int(rng.integers(0, len(data)))
            data[at:at] = bytes(rng.integers(0, 256, size=int(rng.integers(1, 64)), dtype=np.uint8))
        path.write_bytes(bytes(data))
        try:
            vkml.load(path)
            outcomes["loaded"] += 1
        except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
            assert str(exc), f"{type(exc).__name__} without a message"
            outcomes["refused"] += 1
    assert sum(outcomes.values()) == max(20, EXAMPLES)
