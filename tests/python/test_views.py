"""Views against torch: shapes, strides, contiguity and values of reshape, permute, expand, slicing and friends.

`layout(t)` makes check_op compare `t.stride()` and `t.is_contiguous()` with torch's too. The matrix uses
`layout_loose`, which leaves out strides of dims of size 0 or 1 (arbitrary in any library).
"""

import pytest
from helpers import case, check_op, each, error, layout, layout_loose, matrix

VIEWS = {
    "reshape": lambda x: layout_loose(x.reshape(x.shape[1], -1)),
    "view": lambda x: layout_loose(x.view(-1)),  # torch refuses strided inputs; vkml must too
    "permute": lambda x: layout_loose(x.permute(1, 0)),
    "transpose": lambda x: layout_loose(x.transpose(0, 1)),
    "t": lambda x: layout_loose(x.t()),
    "expand": lambda x: layout_loose(x.unsqueeze(0).expand(3, -1, -1)),
    "squeeze": lambda x: layout_loose(x.unsqueeze(1).squeeze()),
    "unsqueeze": lambda x: layout_loose(x.unsqueeze(-1)),
    "flatten": lambda x: layout_loose(x.flatten()),
    "getitem": lambda x: layout_loose(x[1:, ::2]),
    "contiguous": lambda x: layout_loose(x.contiguous()),
    "clone": lambda x: x.clone(),  # values only: torch's clone keeps a dense input's strides, vkml need not
    "flip": lambda x: x.flip(0, 1),  # values only: a copy's memory format is torch's choice, not a contract
    "narrow": lambda x: layout_loose(x.narrow(1, 2, 3)),
    "repeat": lambda x: layout_loose(x.repeat(2, 1, 3)),
    "tile": lambda x: x.tile((2,)),
    "tril": lambda x: x.tril(),
    "triu": lambda x: x.triu(1),
    "cat": lambda x, lib: lib.cat([x, x[1:], x[:0]], dim=0),
    "stack": lambda x, lib: lib.stack([x, x], dim=1),
    "split": lambda x: x.split(2, dim=1),
    "chunk": lambda x: x.chunk(3),
    "unbind": lambda x: x.unbind(1),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(VIEWS))
def test_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], VIEWS[op], device, cls, dtype)


CASES = [
    # reshape and view, with -1; reshape copies only when it must
    case("reshape", [(4, 6)], lambda x: layout(x.reshape(2, 3, 4))),
    case("reshape", [(4, 6)], lambda x: layout(x.reshape(-1))),
    case("reshape", [(4, 6)], lambda x: layout(x.reshape(3, -1, 2))),
    case("reshape", [(4, 6)], lambda x: layout(x.reshape((8, 3)))),
    case("reshape", [(4, 6)], lambda x: layout(x.t().reshape(24))),  # must copy
    case("reshape", [(4, 6)], lambda x: layout(x[:, :3].reshape(2, 2, 3))),  # can stay a view
    case("reshape", [()], lambda x: layout(x.reshape(1, 1))),
    case("reshape", [(0, 3)], lambda x: x.reshape(3, 0, 2)),
    case("view", [(4, 6)], lambda x: layout(x.view(2, 12))),
    case("view", [(4, 6)], lambda x: layout(x.view(-1, 3))),
    case("view", [(4, 6)], lambda x: layout(x.view(6, 4).view(24))),
    case("view", [(2, 3, 4)], lambda x: layout(x.transpose(0, 1).view(3, 2, 2, 2))),  # splits a dim of a view
    error("view", [(4, 6)], lambda x: x.t().view(24), RuntimeError),
    error("view", [(4, 6)], lambda x: x[:, :3].view(12), RuntimeError),
    error("reshape", [(4, 6)], lambda x: x.reshape(5, 5), RuntimeError),
    error("reshape", [(4, 6)], lambda x: x.reshape(-1, -1), RuntimeError),
    # permute, transpose, t, T, mT
    case("permute", [(2, 3, 4)], lambda x: layout(x.permute(2, 0, 1))),
    case("permute", [(2, 3, 4)], lambda x: layout(x.permute((1, 2, 0)))),
    case("permute", [(2, 3, 4)], lambda x: layout(x.permute(-1, 0, -2))),
    case("permute", [(2, 3, 4)], lambda x: layout(x.permute(1, 0, 2).permute(2, 1, 0))),  # a view of a view
    case("transpose", [(2, 3, 4)], lambda x: layout(x.transpose(0, 2))),
    case("transpose", [(2, 3, 4)], lambda x: layout(x.transpose(-1, -2))),
    case("t", [(3, 4)], lambda x: layout(x.t())),
    case("t", [(4,)], lambda x: layout(x.t())),
    case("t", [(3, 4)], lambda x: layout(x.T)),
    case("t", [(2, 3, 4)], lambda x: layout(x.mT)),
    error("permute", [(2, 3)], lambda x: x.permute(0, 0), RuntimeError),
    error("permute", [(2, 3)], lambda x: x.permute(0, 2), IndexError),
    error("transpose", [(2, 3)], lambda x: x.transpose(0, 2), IndexError),
    # expand, expand_as, broadcast_to: stride 0, no copy
    case("expand", [(3, 1)], lambda x: layout(x.expand(3, 4))),
    case("expand", [(3, 1)], lambda x: layout(x.expand(2, 3, 4))),
    case("expand", [(3, 1)], lambda x: layout(x.expand(-1, 5))),
    case("expand", [(3, 1), (3, 6)], lambda x, y: layout(x.expand_as(y))),
    case("expand", [(3, 1)], lambda x, lib: layout(lib.broadcast_to(x, (2, 3, 4)))),
    case("expand", [(3, 1)], lambda x: layout(x.broadcast_to((3, 2)))),
    case("expand", [(3, 1)], lambda x: layout(x.expand(3, 4).t().contiguous())),
    error("expand", [(3, 2)], lambda x: x.expand(3, 3), RuntimeError),
    # squeeze, unsqueeze, flatten
    case("squeeze", [(1, 3, 1, 4)], lambda x: layout(x.squeeze())),
    case("squeeze", [(1, 3, 1, 4)], lambda x: layout(x.squeeze(2))),
    case("squeeze", [(1, 3, 1, 4)], lambda x: layout(x.squeeze(-4))),
    case("squeeze", [(1, 3, 1, 4)], lambda x: layout(x.squeeze(1))),  # not size 1: unchanged
    case("unsqueeze", [(3, 4)], lambda x: layout(x.unsqueeze(0))),
    case("unsqueeze", [(3, 4)], lambda x: layout(x.unsqueeze(2))),
    case("unsqueeze", [(3, 4)], lambda x: layout(x.unsqueeze(-2))),
    case("flatten", [(2, 3, 4)], lambda x: layout(x.flatten())),
    case("flatten", [(2, 3, 4)], lambda x: layout(x.flatten(1))),
    case("flatten", [(2, 3, 4, 5)], lambda x: layout(x.flatten(1, 2))),
    case("flatten", [(2, 3, 4)], lambda x: layout(x.flatten(start_dim=0, end_dim=-2))),
    case("flatten", [(2, 3, 4)], lambda x: layout(x.transpose(0, 1).flatten())),  # must copy
    error("squeeze", [(2, 3)], lambda x: x.squeeze(5), IndexError),
    error("unsqueeze", [(2, 3)], lambda x: x.unsqueeze(4), IndexError),
    error("flatten", [(2, 3)], lambda x: x.flatten(0, 5), IndexError),
    # indexing: ints, slices with steps, negative indices, None, Ellipsis
    case("getitem", [(5, 6, 7)], lambda x: layout(x[1])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[-1])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[1:4])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[::2])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[1::3, ::2, 1:5])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[-3:, -4:-1])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[:, 2])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[..., -1])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[1, ..., 2])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[None])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[:, None, 1:3, None])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[None, ..., None])),
    case("getitem", [(5, 6, 7)], lambda x: layout(x[2, 3, 4])),  # a 0-d view
    case("getitem", [(5, 6, 7)], lambda x: layout(x[10:])),  # an empty slice
    case("getitem", [(5, 6, 7)], lambda x: layout(x[:, ::2][1:, 1][::2])),  # views of views
    case("getitem", [(5, 6, 7)], lambda x: layout(x.transpose(0, 2)[1:3, ::2])),
    case("getitem", [(5, 6)], lambda x: layout(x[1:, ::2].t()[::2])),
    error("getitem", [(5, 6)], lambda x: x[5], IndexError),
    error("getitem", [(5, 6)], lambda x: x[-6], IndexError),
    error("getitem", [(5, 6)], lambda x: x[0, 0, 0], IndexError),
    error("getitem", [(5, 6)], lambda x: x[::-1], ValueError),  # torch has no negative steps
    # contiguous and clone
    case("contiguous", [(4, 6)], lambda x: layout(x.contiguous())),
    case("contiguous", [(4, 6)], lambda x: layout(x.t().contiguous())),
    case("contiguous", [(4, 6)], lambda x: layout(x[::2, 1::2].contiguous())),
    case("contiguous", [(4, 1)], lambda x: layout(x.expand(4, 3).contiguous())),
    case("clone", [(4, 6)], lambda x: x.t().clone()),
    case("clone", [(4, 6)], lambda x: layout(x.detach())),
    case("flip", [(2, 3, 4)], lambda x: x.flip(-1)),
    case("flip", [(5, 6)], lambda x: x.t().flip(0)[::2]),
    case("narrow", [(5, 6)], lambda x: layout(x.narrow(0, -3, 2))),
    case("repeat", [(2, 3)], lambda x: x.repeat(2, 2)),
    case("tril", [(3, 4, 5)], lambda x: x.tril(-1)),
    case("triu", [(4, 4)], lambda x: x.triu(2), dtype="bool"),
    case("cat", [(2, 3), (4, 3)], lambda a, b, lib: lib.cat((a, b))),
    case("cat", [(2, 3), (2, 5)], lambda a, b, lib: lib.cat([a, b], dim=-1), dtype=("int32", "float16")),
    case("stack", [(2, 3), (2, 3)], lambda a, b, lib: lib.stack([a, b], dim=-1)),
    case("split", [(7, 3)], lambda x: x.split([2, 5])),
    case("chunk", [(7, 3)], lambda x: x.chunk(4, dim=0)),
    error("cat", [(2, 3), (2, 4)], lambda a, b, lib: lib.cat([a, b]), RuntimeError),
    error("narrow", [(2, 3)], lambda x: x.narrow(1, 2, 5), (IndexError, RuntimeError)),
]


test_case = each(CASES)


def test_views_share_data(device):
    """A view is no copy: writing through the base shows in every view, as in torch (checked with values)."""
    check_op("getitem", [(4, 6)], _write_through, device)


def _write_through(x):
    v, w = x[1:3], x.t()
    x.zero_()
    return v, w
