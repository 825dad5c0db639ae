"""Reads the place search cannot follow: an attribute whose name the code computes.

:mod:`flexsn_trace.places` follows an object's attributes under the names the code can name (an attribute it
loads, a string constant), so that a large object costs nothing it does not read and a counter the core never
reads cannot make every call trace again. ``getattr(cfg, cfg.names["thr"])``, ``vars(cfg)[key]`` or
``operator.attrgetter(name)`` read an attribute under a name known only when the code runs: a number read that way
is traced into the kernels, and a later change to it would not be followed. :func:`computed_name_reads` finds such
reads in the source of the functions a core runs, so that the caller can say so once instead of computing with a
stale number in silence.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from typing import Iterable

__all__ = ["computed_name_reads"]

#: builtins and ``operator`` functions that take an attribute name as their argument 1 (``attrgetter``: 0)
_BY_NAME = {"getattr": 1, "hasattr": 1, "attrgetter": 0}


def _name_of(node: ast.expr) -> str | None:
    """``getattr`` for ``getattr(...)``, ``attrgetter`` for ``operator.attrgetter(...)``; else ``None``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _computed(node: ast.AST) -> bool:
    """Whether ``node`` reads an attribute under a name that is not a string literal."""
    if isinstance(node, ast.Call):
        at = _BY_NAME.get(_name_of(node.func) or "")
        return at is not None and len(node.args) > at and not _literal(node.args[at])
    if isinstance(node, ast.Subscript) and not _literal(node.slice):
        target = node.value
        if isinstance(target, ast.Attribute) and target.attr == "__dict__":  # obj.__dict__[key]
            return True
        return isinstance(target, ast.Call) and _name_of(target.func) == "vars"  # vars(obj)[key]
    return False


def _reads_in(func: types.FunctionType) -> list[str]:
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):  # no source to read (a function made by exec, a REPL's): nothing can be said
        return []
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:  # a lambda cut out of a longer line
        return []
    where = func.__code__.co_filename
    found = [n for n in ast.walk(tree) if isinstance(n, ast.expr) and _computed(n)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))  # in reading order (ast.walk goes breadth first)
    return [f"{ast.unparse(node)} in {func.__qualname__} ({where}:{first + node.lineno - 1})" for node in found]


def computed_name_reads(funcs: Iterable[types.FunctionType]) -> list[str]:
    """The reads of an attribute under a computed name in ``funcs``' source, each as
    ``"<expression> in <function> (<file>:<line>)"``, in the order met (each function once).

    Looks for ``getattr`` / ``hasattr`` / ``operator.attrgetter`` with a name that is not a string literal, and
    ``vars(obj)[key]`` / ``obj.__dict__[key]`` with a key that is not one. A function without source gives
    nothing. Python's ``ast`` module parses the source.
    """
    out: list[str] = []
    seen: set[int] = set()
    for fn in funcs:
        if id(fn.__code__) not in seen:
            seen.add(id(fn.__code__))
            out += _reads_in(fn)
    return out
