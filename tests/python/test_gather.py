"""Indexing by tensors — gather, scatter, scatter_add, index_select, take_along_dim and embedding — against torch on
every device, input class and dtype, with their gradients and torch's errors for bad indices, shapes and dtypes."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

RNG = np.random.default_rng(7)
# Index tables for an input of 5 rows (fewer when the input is empty) and 7 columns.
GATHER = RNG.integers(0, 7, (5, 9))
# Distinct rows per column, so that no two sources meet in one place (torch leaves the winner undefined).
SCATTER = np.stack([RNG.permutation(5)[:3] for _ in range(7)], axis=1)
ADD = RNG.integers(0, 5, (5, 7))  # repeated targets: sums
TAKE = RNG.integers(0, 7, (5, 3))
ROWS = RNG.integers(0, 5, (2, 3))
# Fixed tables for the single cases (drawn once: torch and vkml must see the same).
I0 = RNG.integers(0, 4, (7, 5, 6))
I1 = RNG.integers(0, 6, (2, 3, 9))
I2 = RNG.integers(0, 6, (3, 5))
I3 = RNG.integers(0, 5, (8, 12))
I4 = RNG.integers(0, 6, (4, 20))
I5 = RNG.integers(0, 35, (9,))
I6 = RNG.integers(0, 5, (2, 4))


def rows(x, table):
    """`table` cut to the input's rows and limited to the indices those rows allow."""
    n = x.shape[0]
    return np.minimum(table[:n], max(n - 1, 0)) if n else table[:0]


def ix(lib, dev, values):
    return lib.tensor(np.array(values), dtype=lib.int64, device=dev)


def F(lib):
    return lib.nn.functional


OPS = {
    "gather": lambda x, lib, dev: x.gather(1, ix(lib, dev, rows(x, GATHER))),
    "scatter": lambda x, lib, dev: x.scatter(0, ix(lib, dev, rows(x, SCATTER)[: min(3, x.shape[0])]), x.flip(0)),
    "scatter_add": lambda x, lib, dev: x.scatter_add(0, ix(lib, dev, rows(x, ADD)), x * 1),
    "index_select": lambda x, lib, dev: x.index_select(1, ix(lib, dev, [6, 0, 2, 2])),
    "take_along_dim": lambda x, lib, dev: lib.take_along_dim(x, ix(lib, dev, TAKE[: x.shape[0]]), 1),
    "embedding": lambda x, lib, dev: F(lib).embedding(ix(lib, dev, ROWS if x.shape[0] else ROWS[:, :0]), x),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(OPS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], OPS[op], device, cls, dtype)


CASES = [
    # An index computed on the device (argmax): its range is read back before the gather runs.
    case("gather", [(6, 5)], lambda x: x.gather(1, x.argmax(1, keepdim=True))),
    # An empty index: torch checks neither its shape nor its rank, nor (scatter) writes anything.
    case("gather", [(0, 5)], lambda x, lib, dev: x.gather(1, ix(lib, dev, np.zeros((2, 0), np.int64)))),
    case("gather", [(2, 3)], lambda x, lib, dev: x.gather(1, ix(lib, dev, np.zeros(0, np.int64)))),
    case("scatter", [(0, 5)], lambda x, lib, dev: x.scatter(1, ix(lib, dev, np.zeros((2, 0), np.int64)), 1.5)),
    case("scatter", [(2, 3)], lambda x, lib, dev: x.scatter(1, ix(lib, dev, np.zeros((5, 0), np.int64)), 1.5)),
    case("gather", [(4, 5, 6)], lambda x, lib, dev: lib.gather(x, 0, ix(lib, dev, I0))),
    case("gather", [(4, 5, 6)], lambda x, lib, dev: x.gather(-1, ix(lib, dev, I1))),
    case("gather", [(5, 6)], lambda x, lib, dev: x.t().gather(0, ix(lib, dev, I2))),
    case("gather", [(5,)], lambda x, lib, dev: x.gather(0, ix(lib, dev, [4, 4, 0]))),
    case("gather", [()], lambda x, lib, dev: x.gather(0, ix(lib, dev, 0))),
    case("gather", [(5, 7)], lambda x, lib, dev: x.gather(1, ix(lib, dev, GATHER).to(lib.int32))),
    # A stepped, transposed index view.
    case("gather", [(5, 7)], lambda x, lib, dev: x.gather(0, ix(lib, dev, I3)[::2, ::3].t())),
    case("scatter", [(4, 6)], lambda x, lib, dev: x.scatter(1, ix(lib, dev, [[5, 0], [1, 2]]), -2.5)),
    case("scatter", [(4, 6)], lambda x, lib, dev: lib.scatter(x, 1, ix(lib, dev, [[5], [1]]), value=3.0)),
    case("scatter", [(4, 6)], lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[3, 0, 1]]), x[1:3, 2:6])),
    case("scatter", [(4, 6)], lambda x, lib, dev: x.scatter(0, ix(lib, dev, np.zeros((0, 6))), x)),
    case("scatter_add", [(4, 6)], lambda x, lib, dev: x.scatter_add(1, ix(lib, dev, I4), x.repeat(1, 4))),
    case("scatter_add", [(4, 6)], lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[0, 0, 0]]), x[:1, :3], reduce="add")),
    case("scatter_add", [(4, 6)], lambda x, lib, dev: lib.scatter_add(x, -1, ix(lib, dev, [[1, 1]]), x), dtype="int64"),
    case("index_select", [(4, 5, 6)], lambda x, lib, dev: lib.index_select(x, 2, ix(lib, dev, [5, 5, 0, 3, 1]))),
    case("index_select", [(4, 5)], lambda x, lib, dev: x.index_select(0, ix(lib, dev, 2))),
    case("index_select", [(4, 5)], lambda x, lib, dev: x.index_select(0, ix(lib, dev, np.zeros(0)))),
    case("index_select", [(4, 5)], lambda x, lib, dev: x.t().index_select(1, ix(lib, dev, [3, 1]).to(lib.int32))),
    case("take_along_dim", [(5, 7)], lambda x, lib, dev: x.take_along_dim(ix(lib, dev, I5))),
    case("take_along_dim", [(5, 7)], lambda x, lib, dev: lib.take_along_dim(x, ix(lib, dev, [[0, 6]]), 1)),
    case("take_along_dim", [(5, 1)], lambda x, lib, dev: lib.take_along_dim(x, ix(lib, dev, I6), 0)),
    case("take_along_dim", [(5, 7)], lambda x: x.take_along_dim(x.argmax(0, keepdim=True), 0)),
    case(
        "embedding",
        [(6, 4)],
        lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [[5, 0, 5], [2, 2, 1]]), w, padding_idx=2),
    ),
    case(
        "embedding",
        [(6, 4)],
        lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [1, 3]).to(lib.int32), w, padding_idx=-1),
    ),
    case("embedding", [(6, 4)], lambda w, lib, dev: F(lib).embedding(ix(lib, dev, 4), w)),
]


test_case = each(CASES)


# index_select outside its dim, (shape, dim, index, class, words): torch's CPU raises from three kernels, IndexError
# except along dim 1 or of an empty tensor of two or more dims ("out of DATA bounds") or along an empty dim ("axis").
SELECT_OUTSIDE = [
    ((3, 4), 1, [0, 4], RuntimeError, "out of DATA bounds"),
    ((2, 3, 4), -2, [-1], RuntimeError, "out of DATA bounds"),
    ((2, 3, 4), 2, [4], IndexError, "out of range"),
    ((3, 0), 0, [5], RuntimeError, "out of DATA bounds"),
    ((0, 3), 0, [0], RuntimeError, "axis dim should be positive"),
]

ERRORS = [
    # An index outside its dim: torch's RuntimeError for gather and scatter (index_select: SELECT_OUTSIDE).
    error(
        "gather", [(3, 4)], lambda x, lib, dev: x.gather(1, ix(lib, dev, [[4]])), RuntimeError, match="out of bounds"
    ),
    error(
        "gather", [(3, 4)], lambda x, lib, dev: x.gather(0, ix(lib, dev, [[-1]])), RuntimeError, match="out of bounds"
    ),
    error(
        "gather", [(3, 4)], lambda x, lib, dev: x.gather(0, ix(lib, dev, [[0]]).float()), RuntimeError, match="int64"
    ),
    error("gather", [(3, 4)], lambda x, lib, dev: x.gather(0, ix(lib, dev, [0])), RuntimeError, match="dimensions"),
    error(
        "gather", [(3, 4)], lambda x, lib, dev: x.gather(0, ix(lib, dev, [[0] * 5])), RuntimeError, match="no larger"
    ),
    error("gather", [(3, 4)], lambda x, lib, dev: x.gather(2, ix(lib, dev, [[0]])), IndexError, match="range"),
    # The device path: a computed index out of range is read back and refused.
    error(
        "gather", [(3, 4)], lambda x: x.gather(1, x.argmax(1, keepdim=True) + 4), RuntimeError, match="out of bounds"
    ),
    error(
        "scatter",
        [(3, 4)],
        lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[3]]), x),
        RuntimeError,
        match="out of bounds",
    ),
    error(
        "scatter",
        [(3, 4)],
        lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[0]]), x.double()),
        RuntimeError,
        match="dtype",
    ),
    error(
        "scatter", [(3, 4)], lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[0] * 5]), x), RuntimeError, match="smaller"
    ),
    error(
        "scatter",
        [(3, 4)],
        lambda x, lib, dev: x.scatter(0, ix(lib, dev, [[0]]), x, reduce="multiply"),
        (ValueError, RuntimeError),
        torch_raises=False,
    ),
    error(
        "scatter_add",
        [(3, 4)],
        lambda x, lib, dev: x.scatter_add(1, ix(lib, dev, [[-5]]), x),
        RuntimeError,
        match="out of bounds",
    ),
    error(
        "index_select",
        [(3, 4)],
        lambda x, lib, dev: x.index_select(0, ix(lib, dev, [3])),
        IndexError,
        match="out of range",
    ),
    *(
        error("index_select", [shape], lambda x, lib, dev, d=d, v=v: x.index_select(d, ix(lib, dev, v)), exc, match=m)
        for shape, d, v, exc, m in SELECT_OUTSIDE
    ),
    error(
        "embedding", [(0, 3)], lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [0]), w), RuntimeError, match="axis"
    ),
    error(
        "index_select",
        [(3, 4)],
        lambda x, lib, dev: x.index_select(0, ix(lib, dev, [[0]])),
        RuntimeError,
        match="vector",
    ),
    error(
        "index_select",
        [(3, 4)],
        lambda x, lib, dev: x.index_select(0, ix(lib, dev, [0]).float()),
        RuntimeError,
        match="int",
    ),
    error(
        "take_along_dim",
        [(3, 4)],
        lambda x, lib, dev: x.take_along_dim(ix(lib, dev, [0]), 0),
        RuntimeError,
        match="dimensions",
    ),
    error(
        "embedding",
        [(3, 4)],
        lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [3]), w),
        IndexError,
        match="out of range",
    ),
    error(
        "embedding", [(3, 4)], lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [0]), w[0]), RuntimeError, match="2-D"
    ),
    error(
        "embedding",
        [(3, 4)],
        lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [0]).float(), w),
        RuntimeError,
        match="Long, Int",
    ),
]


test_error = each(ERRORS)


GRADS = {
    "gather": ([(5, 7)], OPS["gather"]),
    # src of the index's shape: torch's own backward fails for a larger src.
    "scatter": ([(5, 7), (3, 7)], lambda x, s, lib, dev: x.scatter(0, ix(lib, dev, rows(x, SCATTER)[: s.shape[0]]), s)),
    "scatter_add": ([(5, 7), (5, 7)], lambda x, s, lib, dev: x.scatter_add(0, ix(lib, dev, rows(x, ADD)), s)),
    "index_select": ([(5, 7)], lambda x, lib, dev: x.index_select(1, ix(lib, dev, [6, 0, 2, 2, 6]))),
    "take_along_dim": ([(5, 7)], OPS["take_along_dim"]),
    "embedding": (
        [(5, 7)],
        lambda w, lib, dev: F(lib).embedding(ix(lib, dev, [[4, 1, 1], [0, 4, 3]]), w, padding_idx=1),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty"])
@pytest.mark.parametrize("op", list(GRADS))
def test_grad_matrix(op, cls, dtype, device):
    shapes, f = GRADS[op]
    if cls == "empty" and op in ("scatter", "scatter_add", "embedding"):
        shapes = [(0, 7)] * len(shapes) if op in ("scatter", "scatter_add") else [(5, 0)]
    check_grad(op, shapes, f, device, cls, dtype)


def test_embedding_module_matches_torch_and_loads_its_state(device):
    import torch
    import vkml

    torch.manual_seed(0)
    ref = torch.nn.Embedding(10, 3, padding_idx=4)
    ours = vkml.nn.Embedding(10, 3, padding_idx=4).to(device)
    assert repr(ours) == repr(ref)
    assert ours.weight.shape == ref.weight.shape
    assert np.all(ours.weight.numpy()[4] == 0), "the padding row starts at zero, as torch"
    ours.load_state_dict(ref.state_dict())
    x = [[1, 4, 9], [0, 0, 2]]
    out = ours(vkml.tensor(x, device=device))
    np.testing.assert_array_equal(out.numpy(), ref(torch.tensor(x)).detach().numpy())
    out.sum().backward()
    ref(torch.tensor(x)).sum().backward()
    np.testing.assert_array_equal(ours.weight.grad.numpy(), ref.weight.grad.numpy())
    frozen = vkml.nn.Embedding.from_pretrained(vkml.tensor(np.eye(3, dtype=np.float32)))
    assert not frozen.weight.requires_grad
