"""Errors: every mistake is a Python exception of torch's kind whose message names what was wrong; never a crash."""

import numpy as np
import pytest
import vkml
from helpers import CPUS, DEVICES, check_unsupported, each, error, shapes_re

VULKAN = [d for d in DEVICES if d not in CPUS]
ZERO_SIZE = r"sizes should be greater than 0, but got input \(H: 4, W: 4\) output \(H: 0, W: 0\)"


def F(lib):
    return lib.nn.functional


def bn_stats(x, lib, dev):
    return F(lib).batch_norm(x, lib.zeros(5, device=dev), lib.ones(5, device=dev))


def bn_weight(x, lib, dev):
    return F(lib).batch_norm(x, None, None, lib.ones(5, device=dev), training=True)


CASES = [
    # shapes that do not fit -> RuntimeError naming both shapes
    error("add", [(2, 3), (3, 2)], lambda a, b: a + b, RuntimeError, shapes_re((2, 3), (3, 2))),
    error("mul", [(4, 5), (3, 1)], lambda a, b: a * b, RuntimeError, shapes_re((4, 5), (3, 1))),
    error("eq", [(4,), (5,)], lambda a, b: a == b, RuntimeError, shapes_re((4,), (5,))),
    error("where", [(2, 3), (3, 2)], lambda a, b, lib: lib.where(a > 0, a, b), RuntimeError, shapes_re((2, 3), (3, 2))),
    error("matmul", [(2, 3), (2, 3)], lambda a, b: a @ b, RuntimeError, shapes_re((2, 3))),
    error("matmul", [(2, 3, 4), (5, 4, 2)], lambda a, b: a @ b, RuntimeError),
    error("matmul", [(), (3,)], lambda a, b: a @ b, RuntimeError),
    error("reshape", [(2, 3)], lambda x: x.reshape(4, 2), RuntimeError, shapes_re((4, 2))),
    error("expand", [(2, 3)], lambda x: x.expand(4, 3), RuntimeError),
    error("add_", [(1, 3), (2, 3)], lambda a, b: a.add_(b), RuntimeError),  # the result would not fit in `a`
    # dims and indices out of range -> IndexError
    error("sum", [(2, 3)], lambda x: x.sum(dim=5), IndexError),
    error("amax", [(2, 3)], lambda x: x.amax(dim=-3), IndexError),
    error("argmax", [(2, 3)], lambda x: x.argmax(dim=2), IndexError),
    error("max", [(2, 3)], lambda x: x.max(dim=2), IndexError),
    error("mean", [(2, 3)], lambda x: x.mean(dim=(0, 4)), IndexError),
    error("transpose", [(2, 3)], lambda x: x.transpose(0, 2), IndexError),
    error("getitem", [(2, 3)], lambda x: x[2], IndexError),
    error("getitem", [(2, 3)], lambda x: x[:, 3], IndexError),
    error("getitem", [(2, 3)], lambda x: x[1.5], IndexError),
    error("setitem", [(2, 3)], lambda x: x.__setitem__(5, 1.0), IndexError),
    # bad arguments -> TypeError / ValueError / RuntimeError as torch raises them; torch's RuntimeError for these
    # dtype and value errors is kept (docs/python-api.md, Errors)
    error("masked_fill", [(3,)], lambda x, lib: x.masked_fill(lib.tensor([1, 0, 1]).to(x.device), 0.0), RuntimeError),
    error("index_select", [(3,)], lambda x, lib: x.index_select(0, lib.tensor([0.0]).to(x.device)), RuntimeError),
    error("zeros", [], lambda lib: lib.zeros(2, dtype=5), TypeError),
    error("zeros", [], lambda lib: lib.zeros(2, dtype="float32"), TypeError),
    error("zeros", [], lambda lib: lib.zeros(-1), RuntimeError),
    error("full", [], lambda lib: lib.full((2,), "a"), TypeError),
    error("arange", [], lambda lib: lib.arange(0, 10, 0), RuntimeError),
    error("arange", [], lambda lib: lib.arange(5, 0), RuntimeError),
    error("tensor", [], lambda lib: lib.tensor([[1, 2], [3]]), ValueError),
    error("tensor", [], lambda lib: lib.tensor("abc"), TypeError),
    error("tensor", [], lambda lib: lib.tensor([1, "a"]), TypeError),
    error("getitem", [(4,)], lambda x: x[::-1], ValueError),
    error("getitem", [(4,)], lambda x: x[::0], ValueError),
    error("permute", [(2, 3)], lambda x: x.permute(0), RuntimeError),
    error("reshape", [(2, 3)], lambda x: x.reshape(-1, -1), RuntimeError),
    error("sum", [(2, 3)], lambda x: x.sum(dim=(1, 1)), RuntimeError),
    # dtypes torch refuses -> torch's class (a subclass passes: vkml's relu of bool is NotImplementedError)
    error("neg", [(3,)], lambda x: -x, RuntimeError, dtype="bool"),
    error("sub", [(3,), (3,)], lambda a, b: a - b, RuntimeError, dtype="bool"),
    error("relu", [(3,)], lambda x: x.relu(), RuntimeError, dtype="bool"),
    error("mean", [(3,)], lambda x: x.mean(), RuntimeError, dtype="int64"),
    error("matmul", [(2, 3), (3, 2)], lambda a, b: a @ b, RuntimeError, dtype=("float16", "float32")),
    error("add_", [(3,), (3,)], lambda a, b: a.add_(b), RuntimeError, dtype=("int32", "float32")),
    error("where", [(3,), (3,)], lambda c, x, lib: lib.where(c, x, x), RuntimeError, "boolean", dtype="float32"),
    # operands that are neither tensors nor numbers: Python's TypeError, as torch's (issue #20)
    error("add", [(3,)], lambda x: x + "a", TypeError, "unsupported operand"),
    error("mul", [(3,)], lambda x: x * None, TypeError, "unsupported operand"),
    error("add", [(3,)], lambda x: x + [1, 2, 3], TypeError, "unsupported operand"),
    error("sub", [(3,)], lambda x: {} - x, TypeError, "unsupported operand"),
    error("matmul", [(3,)], lambda x: x @ "a", TypeError, "unsupported operand"),
    # shapes of batch_norm's statistics and interpolate's sizes, with torch's RuntimeError and message
    error("batch_norm", [(2, 3, 4, 4)], bn_stats, RuntimeError, "running_mean should contain 3 elements not 5"),
    error("batch_norm", [(2, 3, 4, 4)], bn_weight, RuntimeError, "weight should contain 3 elements not 5"),
    error("interpolate", [(1, 1, 4, 4)], lambda x, lib: F(lib).interpolate(x, size=0), RuntimeError, ZERO_SIZE),
    error("interpolate", [(1, 1, 4, 4)], lambda x, lib: F(lib).interpolate(x, scale_factor=-1.0), RuntimeError,
          r"output \(H: -4, W: -4\)"),
    error("interpolate", [(1, 2, 5)], lambda x, lib: F(lib).interpolate(x, scale_factor=0.1), RuntimeError,
          r"input \(W: 5\) output \(W: 0\)"),
    # Python conversions of tensors with more than one element, as torch
    error(None, [(2, 3)], lambda x: x.item(), RuntimeError),
    error(None, [(2, 3)], lambda x: bool(x), RuntimeError),
    error(None, [(2, 3)], lambda x: float(x), ValueError),
    error(None, [(2, 3)], lambda x: int(x), ValueError),
    error(None, [()], lambda x: len(x), TypeError),
]


test_error = each(CASES)


def test_comparing_with_none_or_a_string_is_false_as_torch():
    t = vkml.ones(3)
    assert (t == None) is False and (t != None) is True and (t == "a") is False  # noqa: E711


@pytest.mark.parametrize("op", ["add", "exp", "sum", "matmul", "to"])
@pytest.mark.parametrize("device", VULKAN)
def test_float64_on_vulkan_is_not_implemented(op, device):
    """float64 on a device without it: NotImplementedError naming op, dtype and device (the input may already fail
    while being created there: then the message names `tensor`)."""
    fn = {
        "add": lambda x: x + x,
        "exp": lambda x: x.exp(),
        "sum": lambda x: x.sum(),
        "matmul": lambda x: x @ x,
        "to": lambda x: x.to(vkml.float32),
    }[op]
    check_unsupported(op, device, "float64", lambda: fn(vkml.tensor(np.ones((3, 3)), device=device)))


@pytest.mark.parametrize("device", VULKAN)
def test_float64_copy_to_vulkan_is_not_implemented(device):
    check_unsupported("copy", device, "float64", lambda: vkml.ones(3, dtype=vkml.float64).to(device), also=("to",))


def test_errors_leave_the_module_usable(device):
    """After a burst of errors the same process still computes correctly (no poisoned device, no abort)."""
    x = vkml.ones(2, 3, device=device)
    for bad in (lambda: x + vkml.ones(3, 2, device=device), lambda: x.sum(dim=7), lambda: x[9]):
        with pytest.raises((RuntimeError, IndexError)):
            bad().numpy()
    assert (np.asarray((x * 2).numpy()) == 2).all()


@pytest.mark.parametrize(
    "make",
    [
        lambda: vkml.zeros(0, 2**62, 4),
        lambda: vkml.ones(0).reshape(0, 2**62, 4),
        lambda: vkml.ones(3).narrow(0, 1, 2**63 - 1),
        lambda: vkml.ones(2).repeat(2**62),
    ],
    ids=["zeros", "reshape", "narrow", "repeat"],
)
def test_huge_sizes_give_an_answer_or_an_exception_never_a_panic(make):
    """Size arithmetic is checked: a PanicException (a BaseException, which `except Exception` misses) fails here
    (issue #20, item 5)."""
    try:
        make()
    except Exception as e:
        assert isinstance(e, (RuntimeError, IndexError, ValueError)), e


@pytest.mark.parametrize(
    "make",
    [lambda: vkml.zeros(10**12).sum().item(), lambda: vkml.arange(2**40), lambda: vkml.linspace(0, 1, 2**40)],
    ids=["zeros", "arange", "linspace"],
)
def test_memory_past_the_machine_is_torchs_runtime_error_not_an_abort(make):
    """On the CPU the bytes are reserved before they are filled, and more than the machine's memory and swap is
    refused before asking, so it is refused on a system that overcommits too (issue #20, item 1)."""
    with pytest.raises(RuntimeError, match="can't allocate memory.*more than this machine's memory and swap"):
        make()
