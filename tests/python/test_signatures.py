"""Every vkml function, Tensor method, nn module, optimizer, scheduler, initialiser and data class that torch also
has accepts the keyword names torch's accepts. torch's names come from torch itself: the signature of its Python
functions and classes, and for its compiled functions the stubs torch generates from its argument parser's tables
(`torch/_C/_VariableFunctions.pyi`, `torch/_C/__init__.pyi`, `torch/_C/_nn.pyi`) or, where no stub has the name,
the signature line of torch's docstring. Where those texts name a keyword torch's parser refuses (or spell it
otherwise), ERRATA says so, and a test checks it against torch."""

import ast
import functools
import inspect
import pathlib
import re

import pytest
import torch
import vkml

_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_C = pathlib.Path(torch.__file__).parent / "_C"


@functools.cache
def _stubs(file, cls=None):
    """name -> the overloads' `def` nodes of a torch stub file (of class `cls` there, when given)."""
    body = ast.parse((_C / file).read_text()).body
    if cls is not None:
        body = next(n.body for n in body if isinstance(n, ast.ClassDef) and n.name == cls)
    defs = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, []).append(node)
    return defs


def _named_dims(arg):
    """Overloads taking dimension names (torch's named tensors, a prototype vkml does not have)."""
    return arg.annotation is not None and "EllipsisType" in ast.unparse(arg.annotation)


def _from_stub(defs):
    names = set()
    for d in defs:
        args = d.args.posonlyargs + d.args.args + d.args.kwonlyargs
        if not any(_named_dims(a) for a in args):
            names |= {a.arg for a in d.args.args + d.args.kwonlyargs if a.arg != "self"}
    return names


def _from_doc(fn):
    """The keyword names in the first line of a torch docstring that reads `name(a, b=1, *, c=None) -> T`."""
    line = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    m = re.match(r"[\w.]*?(\w+)\((.*?)\)\s*->", line)
    if m is None:
        return None
    tree = ast.parse(f"def f({m.group(2)}): pass").body[0].args
    return {a.arg for a in tree.args + tree.kwonlyargs}


def _python(fn):
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    return {n for n, p in ps.items() if p.kind in _KINDS and n != "self"}


def torch_keywords(where, name):
    """The keywords torch's `where.name` accepts, `where` one of the namespaces below."""
    fn = getattr(NAMESPACES[where][1], name)
    if inspect.isclass(fn):
        return _python(fn.__init__)
    if inspect.isfunction(fn):
        return _python(fn)
    stub = {"torch": ("_VariableFunctions.pyi", None), "Tensor": ("__init__.pyi", "TensorBase")}.get(
        where, ("_nn.pyi", None)
    )
    defs = _stubs(*stub).get(name)
    names = _from_stub(defs) if defs else _from_doc(fn)
    assert names is not None, f"torch gives no signature for {where}.{name}"
    return names


NAMESPACES = {
    "torch": (vkml, torch),
    "Tensor": (vkml.Tensor, torch.Tensor),
    "F": (vkml.nn.functional, torch.nn.functional),
    "linalg": (vkml.linalg, torch.linalg),
    "nn": (vkml.nn, torch.nn),
    "init": (vkml.nn.init, torch.nn.init),
    "optim": (vkml.optim, torch.optim),
    "lr_scheduler": (vkml.optim.lr_scheduler, torch.optim.lr_scheduler),
    "data": (vkml.data, torch.utils.data),
}

# Module, optimizer and scheduler methods whose keywords are compared too.
METHODS = "forward step zero_grad state_dict load_state_dict named_parameters named_modules parameters to".split()


def _x():
    return torch.ones(2)


# (where, name, keyword): a keyword torch's stubs or docs name that torch's parser refuses, with a call that shows it.
ERRATA = {
    # The TensorBase stubs give Tensor methods the `out=` of the functions; the methods refuse it.
    ("Tensor", "add", "out"): lambda: _x().add(_x(), out=_x()),
    ("Tensor", "sub", "out"): lambda: _x().sub(_x(), out=_x()),
    ("Tensor", "mul", "out"): lambda: _x().mul(_x(), out=_x()),
    ("Tensor", "floor_divide", "out"): lambda: _x().floor_divide(_x(), out=_x()),
    # The stub's `mode`: torch's parser names it `requires_grad`.
    ("Tensor", "requires_grad_", "mode"): lambda: _x().requires_grad_(mode=True),
    # to(other, ...) takes the tensor positionally only.
    ("Tensor", "to", "other"): lambda: _x().to(other=_x()),
    # from_numpy takes its array positionally only.
    ("torch", "from_numpy", "ndarray"): lambda: torch.from_numpy(ndarray=__import__("numpy").ones(2)),
    # torch.save's private switches of its pickle format; vkml.save writes safetensors.
    ("torch", "save", "_use_new_zipfile_serialization"): None,
    ("torch", "save", "_disable_byteorder_record"): None,
}


def _pairs():
    """(where, name, method-or-None) for everything vkml and torch both have."""
    out = []
    for where, (vns, tns) in NAMESPACES.items():
        for name in sorted(dir(vns)):
            v, t = getattr(vns, name), getattr(tns, name, None)
            if name.startswith("_") or t is None or not callable(v) or inspect.isclass(v) != inspect.isclass(t):
                continue
            out.append((where, name, None))
            if inspect.isclass(t):
                out += [(where, name, m) for m in METHODS if m in vars(t) and hasattr(v, m)]
    return out


PAIRS = _pairs()


def _expected(where, name, method):
    if method is not None:
        return _python(getattr(getattr(NAMESPACES[where][1], name), method))
    names = torch_keywords(where, name)
    return {k for k in names if (where, name, k) not in ERRATA}


@pytest.mark.parametrize("where,name,method", PAIRS, ids=[f"{w}.{n}{'.' + m if m else ''}" for w, n, m in PAIRS])
def test_accepts_torch_keywords(where, name, method):
    v = getattr(NAMESPACES[where][0], name)
    if method is not None:
        v = getattr(v, method)
    elif inspect.isclass(v):
        v = v.__init__
    ours = _python(v)
    assert ours is not None, f"vkml's {where}.{name} has no signature"
    missing = sorted(_expected(where, name, method) - ours)
    assert not missing, f"{where}.{name}{'.' + method if method else ''} lacks torch's keywords {missing}"


def _hidden_defaults():
    """`where.name(param)` for each public vkml callable whose signature shows a default as `...` (pyo3 writes a
    negative default so unless the binding declares its text signature)."""
    out = []
    for where, (vns, _) in NAMESPACES.items():
        for name in sorted(n for n in dir(vns) if not n.startswith("_")):
            v = getattr(vns, name)
            try:
                ps = inspect.signature(v.__init__ if inspect.isclass(v) else v).parameters
            except (TypeError, ValueError):
                continue
            out += [f"{where}.{name}({p})" for p, d in ps.items() if d.default is Ellipsis]
    return out


def test_defaults_are_shown():
    """Every default reads as its value in `inspect.signature` (and so in help() and the stubs)."""
    assert not _hidden_defaults()


def test_walk_covers_the_api():
    """The walk reaches the bulk of the API: a namespace that stopped matching would pass every case above."""
    counts = {w: sum(1 for p in PAIRS if p[0] == w) for w in NAMESPACES}
    assert counts["torch"] >= 150 and counts["Tensor"] >= 150 and counts["F"] >= 40 and counts["nn"] >= 60, counts


@pytest.mark.parametrize("key", [k for k, v in ERRATA.items() if v is not None], ids=lambda k: ".".join(k))
def test_errata_hold_in_torch(key):
    """Each erratum is a keyword torch's parser refuses today."""
    with pytest.raises(TypeError):
        ERRATA[key]()
