"""torch's keyword names: each case calls torch and vkml with the same keyword arguments (the spelling torch's own
signatures use, e.g. `x.permute(dims=...)`), so a renamed or missing parameter fails here."""

import pytest
import torch
import vkml
from helpers import case, each, error

CASES = [
    case("reshape", [(2, 3, 4)], lambda x: x.reshape(shape=(4, 6))),
    case("view", [(2, 3, 4)], lambda x: x.view(size=(4, 6))),
    case("permute", [(2, 3, 4)], lambda x: x.permute(dims=(2, 0, 1))),
    case("expand", [(1, 3)], lambda x: x.expand(size=(2, 3))),
    case("flip", [(2, 3, 4)], lambda x: x.flip(dims=(1, 2))),
    case("repeat", [(2, 3)], lambda x: x.repeat(repeats=(1, 2))),
    case("tile", [(2, 3)], lambda x: x.tile(dims=(2,))),
    case("expand", [(1, 3)], lambda x: x.broadcast_to(size=(2, 3))),
    case("mm", [(2, 3), (3, 4)], lambda a, b: a.mm(mat2=b)),
    case("bmm", [(2, 2, 3), (2, 3, 4)], lambda a, b: a.bmm(mat2=b)),
    case("dot", [(3,), (3,)], lambda a, b: a.dot(tensor=b)),
    case("outer", [(3,), (4,)], lambda a, b: a.outer(vec2=b)),
    case("pow", [(2, 3)], lambda x: x.pow(exponent=2), domain="positive"),
    case("zeros_like", [(2, 3)], lambda x, lib: lib.zeros_like(input=x)),
    case("ones_like", [(2, 3)], lambda x, lib: lib.ones_like(input=x)),
    case("full_like", [(2, 3)], lambda x, lib: lib.full_like(input=x, fill_value=1.5)),
    case("where", [(2, 3), (2, 3)], lambda a, b, lib: lib.where(condition=a > b, input=a, other=b)),
    # vkml.f(input, ...) by keyword, and torch's out=
    case("add", [(2, 3), (2, 3)], lambda a, b, lib: lib.add(input=a, other=b, alpha=2)),
    case("sub", [(2, 3), (3,)], lambda a, b: a.sub(b, alpha=-0.5)),
    case("add", [(2, 3), (2, 3)], lambda a, b, lib: lib.add(a, b, out=lib.zeros_like(a))),
    case("sum", [(2, 3)], lambda x, lib: lib.sum(x, 1, out=lib.zeros_like(x[:, 0]))),
    case("max", [(2, 3)], lambda x, lib: lib.max(x, 1, out=(x[:, 0] * 0, lib.zeros_like(x[:, 0], dtype=lib.int64)))[0]),
    case("maximum", [(2, 3), (2, 3)], lambda a, b: a.max(other=b)),
    case("mean", [(2, 3)], lambda x: x.mean(1, dtype=x.double().dtype)),
    case("round", [(2, 3)], lambda x: (x * 100).round(decimals=1)),
    case("round", [(2, 3)], lambda x: (x * 100).round(decimals=-1)),
    case("div", [(2, 3), (2, 3)], lambda a, b: (a * 10).div_(b, rounding_mode="floor")),
    case("copy", [(2, 3), (2, 3)], lambda a, b: (a * 1).copy_(other=b, non_blocking=True)),
    case("cast", [(2, 3), (2, 3)], lambda a, b: a.to(b.double(), copy=True)),
    case("zeros", [], lambda lib, dev: lib.zeros(size=(2, 3), layout=lib.strided, pin_memory=False, device=dev)),
    case("full", [], lambda lib, dev: lib.full(size=(2,), fill_value=3.0, names=None, device=dev)),
    # torch's legacy loss flags and the per-element weights of torch 2.11's l1/mse/huber
    case("mse_loss", [(3, 4), (3, 4)], lambda a, b, lib: lib.nn.functional.mse_loss(a, b, size_average=False)),
    case("l1_loss", [(3, 4), (3, 4)], lambda a, b, lib: lib.nn.functional.l1_loss(a, b, reduce=False)),
    case("mse_loss", [(3, 4), (3, 4), (3, 4)], lambda a, b, w, lib: lib.nn.functional.mse_loss(a, b, weight=w.abs())),
    case("l1_loss", [(3, 4), (3, 4), (3, 4)], lambda a, b, w, lib: lib.nn.functional.l1_loss(a, b, weight=w.abs())),
    case(
        "huber_loss",
        [(3, 4), (3, 4), (3, 4)],
        lambda a, b, w, lib: lib.nn.functional.huber_loss(a, b, reduction="sum", weight=w.abs()),
    ),
    case("huber_loss", [(3, 4), (3, 4), (3, 4)], lambda a, b, w, lib: lib.nn.functional.huber_loss(a, b, weight=w)),
    case(
        "nll_loss",
        [(4, 5)],
        lambda x, lib: lib.nn.functional.nll_loss(x, lib.tensor([0, 4, 2, 1]).to(x.device), reduce=False),
    ),
    # avg_pool2d's ceil_mode, count_include_pad and divisor_override
    *[
        case("avg_pool2d", [(2, 3, 7, 6)], lambda x, lib, kw=kw: lib.nn.functional.avg_pool2d(x, 3, **kw))
        for kw in (
            dict(ceil_mode=True),
            dict(stride=2, padding=1, ceil_mode=True),
            dict(padding=1, count_include_pad=False),
            dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            dict(padding=1, divisor_override=4),
        )
    ],
    case("avg_pool2d", [(1, 2, 5, 5)], lambda x, lib: lib.nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False)(x)),
    case("softmax", [(3, 4)], lambda x, lib: lib.nn.functional.softmax(x, _stacklevel=5, dim=1)),
]

ERRORS = [
    # Sizes both as positional arguments and by keyword: torch refuses the combination.
    error("reshape", [(2, 3)], lambda x: x.reshape(3, 2, shape=(3, 2)), TypeError),
    error("permute", [(2, 3)], lambda x: x.permute(1, 0, dims=(1, 0)), TypeError),
    # out= of the wrong shape, or of a narrower kind than the result, or beside inputs that require grad
    # torch resizes an out= of another shape (deprecated, with a warning); vkml refuses it, naming both shapes
    error(
        "add",
        [(2, 3), (2, 3)],
        lambda a, b, lib: lib.add(a, b, out=lib.zeros_like(a[0])),
        ValueError,
        match=r"\(3,\).*\(2, 3\)",
        torch_raises=False,
    ),
    error(
        "add",
        [(2, 3), (2, 3)],
        lambda a, b, lib: lib.add(a, b, out=lib.zeros_like(a, dtype=lib.int64)),
        RuntimeError,
        match="can't be cast",
    ),
    error(
        "add",
        [(2, 3), (2, 3)],
        lambda a, b, lib: lib.add(a.requires_grad_(), b, out=lib.zeros_like(a)),
        RuntimeError,
        match="automatic differentiation",
    ),
    error(
        "mse_loss", [(3, 4), (3, 4), (4,)], lambda a, b, w, lib: lib.nn.functional.mse_loss(a, b, weight=w), ValueError
    ),
]


def _grads_into(lib, which):
    a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
    (a * b * 2).sum().backward(inputs=[a] if which == "a" else b)
    return a.grad, b.grad


def test_backward_inputs():
    """backward(inputs=...) fills only the listed tensors' .grad, as torch."""
    for which in ("a", "b"):
        got = _grads_into(vkml, which)
        want = _grads_into(torch, which)
        for g, w in zip(got, want):
            assert (g is None) == (w is None)
            if g is not None:
                assert g.tolist() == w.tolist()
    with pytest.raises(RuntimeError, match="empty"):
        vkml.ones(1, requires_grad=True).sum().backward(inputs=[])


def test_load_state_dict_assign_and_tied_names():
    src = vkml.nn.Linear(3, 2)
    dst = vkml.nn.Linear(3, 2)
    dst.load_state_dict(src.state_dict(), assign=True)
    assert dst.weight.tolist() == src.weight.tolist() and dst.weight.requires_grad
    tied = vkml.nn.Sequential(src, vkml.nn.ReLU(), src)
    assert len(list(tied.named_parameters())) == 2
    assert len(list(tied.named_parameters(remove_duplicate=False))) == 4


def test_data_loader_samplers_and_torch_order():
    ds = vkml.data.TensorDataset(vkml.arange(10))
    order = [int(b[0].item()) for b in vkml.data.DataLoader(ds, 1, False, [3, 1, 4])]
    assert order == [3, 1, 4]
    batches = [b[0].tolist() for b in vkml.data.DataLoader(ds, batch_sampler=[[0, 9], [5]], num_workers=2)]
    assert batches == [[0, 9], [5]]
    with pytest.raises(ValueError, match="mutually exclusive"):
        vkml.data.DataLoader(ds, shuffle=True, sampler=[0])


def test_mm_out_dtype(device):
    """torch's out_dtype (CUDA-only in torch): float16 operands, an unrounded float32 product."""
    a = vkml.randn(3, 4, device=device).half()
    b = vkml.randn(4, 2, device=device).half()
    got = vkml.mm(a, b, out_dtype=vkml.float32)
    assert got.dtype == vkml.float32
    assert got.tolist() == (a.float() @ b.float()).tolist()
    assert vkml.bmm(a[None], b[None], out_dtype=vkml.float16).dtype == vkml.float16
    with pytest.raises(RuntimeError, match="out_dtype"):
        vkml.mm(a.float(), b.float(), out_dtype=vkml.float16)


def test_randint_and_result_type_keywords():
    vkml.manual_seed(0)
    r = vkml.randint(low=2, high=5, size=(100,))
    assert r.dtype == vkml.int64 and 2 <= int(r.min()) and int(r.max()) < 5
    assert vkml.randint(3, (4,)).shape == (4,)
    x = vkml.ones(2, dtype=vkml.int32)
    assert vkml.result_type(tensor=x, other=1.5) == vkml.float32
    assert vkml.result_type(scalar1=1, scalar2=2) == vkml.int64


test_case = each(CASES)


test_error = each(ERRORS)
