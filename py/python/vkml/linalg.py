"""`vkml.linalg`: torch.linalg's vector norm (matrix functions are not implemented)."""

from . import _keywords, _vkml


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ord-norm over `dim` (all dims by default): ord 0, 1, 2, inf or -inf."""
    if dtype is not None:
        x = x.to(dtype)
    return _keywords.write_out(_vkml._norm(x, float(ord), dim, keepdim), out, "vector_norm")
