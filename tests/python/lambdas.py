"""The source text of a test's lambda: the body as written (for test ids) and the names it spells (the words a
user would recognise in an error message)."""

from __future__ import annotations

import inspect
import re
from typing import Callable


def fn_text(fn: Callable) -> str:
    """The body of a lambda as written (for test ids), else the function's name."""
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return getattr(fn, "__name__", "fn")
    start = src.find("lambda")
    if fn.__name__ != "<lambda>" or start < 0:
        return fn.__name__
    body, depth, quote = [], 0, None
    for ch in src[src.index(":", start) + 1 :]:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif (ch in ",\n" and depth == 0) or ch == "#":
            break
        body.append(ch)
    return " ".join("".join(body).split())[:70]


def words(fn: Callable) -> tuple[str, ...]:
    """The identifiers a lambda spells (the names a user would recognise in an error message)."""
    return tuple(set(re.findall(r"[A-Za-z_]\w*", fn_text(fn))))
