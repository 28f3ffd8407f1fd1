"""The modules whose forward is one function of `vkml.nn.functional` applied with the arguments the module was made
with: those `vkml_core::described_modules!` describes (made classes here, as the JavaScript package makes them from
the same rows; `applied.pyi`, which tools/stubs.py writes, declares them) and the few of that kind written in Python
(Softmax, LogSoftmax, Hardtanh)."""

import ast
import inspect

from .. import _vkml
from . import functional as F
from .module import Module

_WORDS = {"true": True, "false": False, "None": None}


class Applied(Module):
    """Applies `F.<_fn>` with the arguments in `_names`, kept as attributes of those names; the repr shows `_shown`
    (all of them where None), `inplace` only when set, as torch."""

    _fn = ""
    _names: tuple = ()
    _shown = None

    def forward(self, input):
        return getattr(F, self._fn)(input, **{k: getattr(self, k) for k in self._names})

    def extra_repr(self):
        names = self._names if self._shown is None else self._shown
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in names if k != "inplace" or getattr(self, k))


class _Same:
    """A default that is another argument's value (a pool's stride is its kernel size unless given)."""

    def __init__(self, name):
        self.name = name


def applied(name, fn, required=(), defaults=None, shown=None, doc=None):
    """A subclass `name` of `Applied` whose __init__ takes `required`, then `defaults`, positionally in that order or
    by keyword, as torch's."""
    defaults = dict(defaults or {})
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in required]
    params += [
        inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None if isinstance(v, _Same) else v)
        for k, v in defaults.items()
    ]
    sig = inspect.Signature(params)

    def __init__(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = dict(list(bound.arguments.items())[1:])
        for k, v in defaults.items():
            if isinstance(v, _Same) and values[k] is None:
                values[k] = values[v.name]
        Module.__init__(self)
        for k, v in values.items():
            setattr(self, k, v)

    __init__.__signature__ = sig
    names = (*required, *defaults)
    body = {"__init__": __init__, "_fn": fn, "_names": names, "_shown": shown, "__doc__": doc, "__module__": __name__}
    return type(name, (Applied,), body)


def _default(text, required):
    """A default as the description writes it (Rust tokens): a word, another argument's name, or a literal."""
    if text in required:
        return _Same(text)
    return _WORDS[text] if text in _WORDS else ast.literal_eval(text)


DESCRIBED = {
    name: applied(
        name,
        fn,
        tuple(required),
        {k: _default(v, required) for k, v in options},
        None if shown is None else tuple(shown),
        doc.strip(),
    )
    for name, fn, doc, required, options, shown in _vkml._modules()
}
globals().update(DESCRIBED)
