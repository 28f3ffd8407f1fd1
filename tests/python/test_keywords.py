"""torch's keyword names: each case calls torch and vkml with the same keyword arguments (the spelling torch's own
signatures use, e.g. `x.permute(dims=...)`), so a renamed or missing parameter fails here."""

import pytest
from helpers import case, error

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
]

ERRORS = [
    # Sizes both as positional arguments and by keyword: torch refuses the combination.
    error("reshape", [(2, 3)], lambda x: x.reshape(3, 2, shape=(3, 2)), TypeError),
    error("permute", [(2, 3)], lambda x: x.permute(1, 0, dims=(1, 0)), TypeError),
]


@pytest.mark.parametrize("c", CASES)
def test_case(c, device):
    c.run(device)


@pytest.mark.parametrize("c", ERRORS)
def test_error(c, device):
    c.run(device)
