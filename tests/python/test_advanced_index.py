"""Advanced indexing against torch on every device: integer tensors, lists and arrays (broadcast together, negative
positions, adjacent or separated dims), bool masks and True/False, mixed with ints, slices, None and Ellipsis —
reading (with gradients) and writing, with torch's errors."""

import numpy as np
import pytest
from gradcheck import check_grad
from helpers import case, check_op, each, error, matrix

R = np.random.default_rng(11)
I2 = R.integers(-4, 4, (2, 3))
MASK = R.random((5, 7)) > 0.6


def t(lib, dev, v):
    return lib.tensor(np.array(v), device=dev)


GET = {
    "getitem": lambda x, lib, dev: x[t(lib, dev, [3, 0, -1, 3]), 1:],
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(GET))
def test_matrix(op, cls, dtype, device):
    # A stepped view's rows: at least 4 in every class but empty, whose rows the index cannot reach.
    fn = GET[op] if cls != "empty" else (lambda x, lib, dev: x[t(lib, dev, np.zeros(0, np.int64)), 1:])
    check_op(op, [(5, 7)], fn, device, cls, dtype)


CASES = [
    case("getitem", [(5, 7)], lambda x: x[[0, 4, 4]]),  # a list
    case("getitem", [(5, 7)], lambda x: x[:, np.array([6, -7, 2])]),  # an array, negative positions
    case("getitem", [(5, 7)], lambda x, lib, dev: x[t(lib, dev, I2)]),  # a 2-d index: its shape first
    case("getitem", [(5, 7)], lambda x, lib, dev: x[t(lib, dev, [0, 1, 2]), t(lib, dev, [6, 5, 4])]),  # pairs
    case("getitem", [(5, 7)], lambda x, lib, dev: x[t(lib, dev, [[0], [4]]), t(lib, dev, [1, 2, 3])]),  # broadcast
    case("getitem", [(3, 4, 5, 6)], lambda x: x[0, :, [1, 2]]),  # the int applies first, as torch
    case("getitem", [(3, 4, 5, 6)], lambda x: x[:, [1, 2], :, [0, 5]]),  # separated: the index dims go first
    case("getitem", [(3, 4, 5, 6)], lambda x: x[:, [1, 2], [0, 4]]),  # adjacent: they stay in place
    case("getitem", [(3, 4, 5, 6)], lambda x: x[..., [5, 0]]),
    case("getitem", [(3, 4, 5, 6)], lambda x: x[None, :, [2]]),
    case("getitem", [(3, 4, 5, 6)], lambda x: x[[1, 0], None]),
    case("getitem", [(3, 4, 5, 6)], lambda x, lib, dev: x[t(lib, dev, [2, 0]).int(), 1::2]),  # int32
    case("getitem", [(5, 7)], lambda x: x[x > 0]),  # a full mask, from the device
    case("getitem", [(5, 7)], lambda x: x[:, x[0] > 0]),  # a 1-d mask on dim 1
    case("getitem", [(3, 4, 5)], lambda x: x[x.sum(2) > 0]),  # a 2-d mask of a 3-d tensor
    case("getitem", [(5, 7)], lambda x: x[x > 1e9]),  # nothing selected
    case("getitem", [(5, 7)], lambda x: x[[True, False, True, True, False], 2]),  # a list of bools
    case("getitem", [(5, 7)], lambda x: x[True]),
    case("getitem", [(5, 7)], lambda x: x[False]),
    case("getitem", [(5, 7)], lambda x: x[[]]),
    case("getitem", [(6, 5)], lambda x: x[x.argmax(0)]),  # computed positions
    case("getitem", [(5, 7)], lambda x: x.t()[[1, 1, 6]][:, ::2]),
    # A one-element tensor indexes as a tensor (it also converts to an int through __index__): the dim stays.
    case("getitem", [(5, 7)], lambda x, lib, dev: x[:, t(lib, dev, [3])]),
    case("getitem", [(5, 7)], lambda x, lib, dev: x[t(lib, dev, True)]),
    # An empty result checks no position (torch's kernel checks each as it reads it), unless the picked dim is empty.
    case("getitem", [(0, 3)], lambda x: x[:, [5, -9]]),
    case("getitem", [(3, 0)], lambda x: x[[7]]),
]


test_case = each(CASES)


def cols(x, lib, dev):
    return (slice(None), t(lib, dev, [6, 1]))


def first_col(x, lib, dev):
    return x[:, :1]


def setter(key, value):
    def f(x, lib, dev):
        x[key(x, lib, dev)] = value(x, lib, dev) if callable(value) else value
        return x

    return f


SETS = [
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: x > 0, 0.0)),  # the common mask write
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: x < 0, lambda x, lib, dev: x[x < 0] * 2)),
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: t(lib, dev, [4, 0]), lambda x, lib, dev: x[1:3] + 1)),
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: (t(lib, dev, [0, 1]), t(lib, dev, [-1, 2])), 7.0)),
    case("setitem", [(5, 7)], setter(cols, first_col)),
    case("setitem", [(3, 4, 5)], setter(lambda x, lib, dev: (slice(None), [1, 2], [0, 4]), lambda x, *_: x[:, 0, :2])),
    case("setitem", [(3, 4, 5)], setter(lambda x, lib, dev: (0, slice(None), [1, 3]), 5.0)),
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: x > 0, 3), dtype="int32"),
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: x.sum(1) > 0, 1.5), dtype="float16"),
    case("setitem", [(5, 7)], setter(lambda x, lib, dev: (slice(None), t(lib, dev, [2])), -1.0)),
    case("setitem", [(0, 3)], setter(lambda x, lib, dev: (slice(None), [1, 5]), 2.0)),  # nothing to write
]


test_setitem = each(SETS)


ERRORS = [
    error("getitem", [(3, 4)], lambda x: x[[3]], IndexError, match="out of bounds"),
    error("getitem", [(3, 4)], lambda x: x[:, [-5]], IndexError, match="out of bounds"),
    error("getitem", [(0, 4)], lambda x: x[[0]], IndexError, match="out of bounds"),  # the picked dim is empty
    error("getitem", [(3, 4)], lambda x, lib, dev: x[t(lib, dev, np.zeros(1, np.float32))], IndexError, match="long"),
    error("getitem", [(3, 4)], lambda x: x[[True, False]], IndexError, match="mask"),
    error("getitem", [(3, 4)], lambda x: x[[0, 1], [0, 1, 2]], IndexError, match="broadcast"),
    error("getitem", [(3, 4)], lambda x: x[[0], [0], [0]], IndexError, match="too many"),
    error("setitem", [(3, 4)], lambda x: x.__setitem__([0, 1], x[:3]), RuntimeError, match="shape mismatch"),
]


test_error = each(ERRORS)


GRADS = {
    "pairs": lambda x, lib, dev: x[t(lib, dev, [0, 1, 1, 4]), t(lib, dev, [6, 5, 5, 0])],  # a repeated pair: sums
    "mask": lambda x, lib, dev: x[t(lib, dev, MASK)] * 2,
    "separated": lambda x: x[[1, 0, 1], :, [2, 2, 0]],
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(GRADS))
def test_grad(name, dtype, device):
    shape = (5, 7) if name != "separated" else (3, 4, 5)
    check_grad("getitem", [shape], GRADS[name], device, "contiguous", dtype)
