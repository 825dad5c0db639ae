"""Reads the place search cannot follow: an attribute under a computed name, a global through ``globals()``, a
module imported inside the core, the process environment.

:mod:`flexsn_trace.places` follows an object's attributes under the names the code can name (an attribute it
loads, a string constant), so that a large object costs nothing it does not read and a counter the core never
reads cannot make every call trace again; it starts from the globals, closure cells, defaults and object the
code names. ``getattr(cfg, cfg.names["thr"])``, ``vars(cfg)[key]``, ``operator.attrgetter(name)``,
``globals()["THR"]``, ``from config import THR`` inside the core and ``environ["THR"]`` of ``os`` read a number the
search never meets: it is traced into the kernels, and a later change to it would not be followed.
:func:`unfollowed_reads` finds such reads in the text of the functions a core runs (a ``def``'s or a
``lambda``'s), so that the caller can say so once instead of computing with a stale number in silence.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import importlib.util
import linecache
import sys
import types
from typing import Iterable

from .kinds import _library, _user_module, is_array, is_number
from .places import MAX_DEPTH, MAX_ITEMS, MAX_NAMED_ITEMS, _class_functions

__all__ = ["unfollowed_reads"]

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


def _environment(node: ast.expr) -> bool:
    """Whether ``node`` is the ``environ`` mapping of ``os`` (named through the module or imported from it)."""
    return _name_of(node) == "environ"


@dataclasses.dataclass(frozen=True)
class _Scope:
    """What a read in ``func``'s text is resolved against: its globals and closure, ``this`` for ``self`` (the core's
    object, in a method of its class; else :data:`_UNKNOWN`), and ``known``: local names that hold only string
    literals (:func:`_literal_loop_names`)."""

    func: types.FunctionType
    known: frozenset[str]
    this: object


def _unfollowed(node: ast.AST, scope: _Scope) -> bool:
    """Whether ``node`` (in ``scope.func``'s source) reads a value the place search cannot follow."""
    func = scope.func
    if isinstance(node, ast.Call):
        if _name_of(node.func) == "getenv":  # a string the trace turns into a constant
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and _environment(node.func.value):
            return True  # environ.get("TH")
        at = _BY_NAME.get(_name_of(node.func) or "")
        return at is not None and len(node.args) > at and not _literal(node.args[at])
    if isinstance(node, ast.Subscript):
        target = node.value
        if _environment(target):  # environ["TH"]
            return True
        if isinstance(target, ast.Call) and _name_of(target.func) == "globals":  # globals()["THR"]: not a root
            return True
        if _literal(node.slice):
            return False
        if isinstance(target, ast.Attribute) and target.attr == "__dict__":  # obj.__dict__[key]
            return True
        if isinstance(target, ast.Call) and _name_of(target.func) == "vars":  # vars(obj)[key]
            return True
        return _unsearched_item(node, scope)
    if isinstance(node, ast.ImportFrom):  # from config import THR: a local bound at every call
        module = _module(node.module or "", node.level, func)
        return any(_may_hold_numbers(_imported(module, node.module or "", node.level, a.name, func)) for a in node.names)
    if isinstance(node, ast.Import):  # import config: followed only where the module is a global too
        return any(
            (a.asname or a.name.split(".")[0]) not in func.__globals__ and _may_hold_numbers(_module(a.name, 0, func))
            for a in node.names
        )
    return False


class _Unknown(Exception):
    """What :func:`_resolve` raises for a value it cannot find without running the core."""


def _resolve(expr: ast.expr, scope: _Scope) -> object:
    """The value ``expr`` (a global or closure name or ``self``, then attributes and literal subscripts) has now, as
    the search reads it; raises :class:`_Unknown` for another local, a call, a computed key, or a read that fails."""
    func = scope.func
    try:
        if isinstance(expr, ast.Name):
            if expr.id == "self" and scope.this is not _UNKNOWN:
                return scope.this
            code = func.__code__
            if expr.id in code.co_varnames or expr.id in code.co_cellvars:
                raise _Unknown
            if expr.id in code.co_freevars:
                return func.__closure__[code.co_freevars.index(expr.id)].cell_contents  # type: ignore[index]
            return func.__globals__[expr.id]
        if isinstance(expr, ast.Attribute):
            return getattr(_resolve(expr.value, scope), expr.attr)
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
            return _resolve(expr.value, scope)[expr.slice.value]  # type: ignore[index]
    except _Unknown:
        raise
    except Exception as e:  # noqa: BLE001 - what the core would raise too; nothing to follow
        raise _Unknown from e
    raise _Unknown


def _unsearched_item(node: ast.Subscript, scope: _Scope) -> bool:
    """Whether ``node`` (``CFG["a"]["b"][key]`` with a key that is not a string literal) reads an item of a
    container reached from a root that :func:`flexsn_trace.places.nested` does not follow under that key.

    The search follows every item only :data:`~flexsn_trace.places.MAX_DEPTH` steps below a root (a global, a
    closure cell, ``self.<name>``) and in containers of at most :data:`~flexsn_trace.places.MAX_ITEMS` entries;
    below, a dict only under the string keys the code spells or a global holds, a sequence only up to
    :data:`~flexsn_trace.places.MAX_NAMED_ITEMS` items. A key computed in the core (``f"{name}_thr"``, a loop
    variable, an ``int``) there reads a number the search never met. A container found now decides (a tensor or a
    NumPy array is no such container: a tensor is lifted, an array watched whole); one that cannot be found
    without running the core (behind a local, a call or another computed key) is taken as one unless the key is a
    literal (``[0]``: most likely a short sequence's item, which the search follows).
    """
    func = scope.func
    steps, base = 1, node.value
    while isinstance(base, (ast.Subscript, ast.Attribute)):
        steps, base = steps + 1, base.value
    if not isinstance(base, ast.Name):
        return False
    if base.id in ("self", "cls"):  # self.cfg is the root: its steps count from there
        steps -= 1
    elif base.id in func.__code__.co_varnames:  # a local (an argument: a tensor): nothing the search reaches
        return False
    key = node.slice
    named = _literal(key) or isinstance(key, ast.Name) and (key.id in scope.known or _holds_str(key, scope))
    try:
        container = _resolve(node.value, scope)
    except _Unknown:
        return steps > MAX_DEPTH and not named and not isinstance(key, ast.Constant)
    size = len(container) if isinstance(container, (dict, list, tuple)) else 0
    if isinstance(container, dict):
        return not named and (steps > MAX_DEPTH or size > MAX_ITEMS)
    if isinstance(container, (list, tuple)):  # a long one of numbers is watched whole (flexsn_trace.constants)
        return steps > MAX_DEPTH and MAX_NAMED_ITEMS < size <= MAX_ITEMS
    return False


_UNKNOWN = object()


def _holds_str(name: ast.Name, scope: _Scope) -> bool:
    """Whether ``name`` is a global or closure name holding a ``str`` (watched, and followed as a key)."""
    try:
        return type(_resolve(name, scope)) is str
    except _Unknown:
        return False


def _literal_loop_names(node: ast.AST) -> frozenset[str]:
    """Names ``node``'s loops and comprehensions bind only to string literals (``for k in ("thr", "tau")``): the
    search follows those strings as it follows any literal the code spells."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
            it = n.iter
            if isinstance(it, (ast.Tuple, ast.List, ast.Set)) and all(_literal(e) for e in it.elts):
                out.add(n.target.id)
    return frozenset(out)


def _module(name: str, level: int, func: types.FunctionType) -> types.ModuleType | None:
    """The module ``import`` would bind (``level``: leading dots), imported if it is not yet; ``None`` if it fails."""
    try:
        full = importlib.util.resolve_name("." * level + name, func.__globals__.get("__package__") or "") if level else name
        return sys.modules.get(full) or importlib.import_module(full)
    except Exception:  # noqa: BLE001 - whatever importing it raises, the core raises too when it runs
        return None


def _imported(module: types.ModuleType | None, name: str, level: int, attr: str, func: types.FunctionType) -> object:
    """What ``from <module> import <attr>`` binds (a submodule included), or ``None`` when it cannot be found."""
    if module is None:
        return None
    if hasattr(module, attr):
        return getattr(module, attr)
    return _module(f"{name}.{attr}", level, func)


def _may_hold_numbers(value: object) -> bool:
    """Whether a value a core imports inside its body can bring a number the search does not watch: anything but
    library code (a function, class or module of torch, NumPy, the standard library, an installed package, ours),
    so a user module, function or class, a number, a container, or what could not be found."""
    if value is None:
        return True
    if isinstance(value, types.ModuleType):
        return _user_module(value)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        module = sys.modules.get(getattr(value, "__module__", "") or "")
        return module is not None and _user_module(module)
    return is_number(value) or is_array(value) or isinstance(value, (list, tuple, dict, types.SimpleNamespace)) or not _library(type(value).__module__)


_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@functools.lru_cache(maxsize=8)
def _functions_by_line(source: str) -> dict[int, list[_Function]]:
    """The ``def``\\ s and ``lambda``\\ s of ``source`` (a whole file's text) by the line their code starts on (a
    ``def``'s first decorator, a lambda's keyword); empty when it does not parse. Cached, and walked once: one file
    holds many cores and helpers."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, list[_Function]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(min([node.lineno, *(d.lineno for d in node.decorator_list)]), []).append(node)
        elif isinstance(node, ast.Lambda):
            out.setdefault(node.lineno, []).append(node)
    return out


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _own_node(func: types.FunctionType) -> _Function | None:
    """The ``def`` or ``lambda`` of ``func`` in its file's text (``linecache``: a notebook cell's too), or ``None``.

    A ``def`` is the one of ``func``'s name starting (at its first decorator) on its code's first line; a
    ``lambda`` the innermost one on that line whose text holds every position its code's instructions carry
    (``co_positions``: two lambdas on one line are told apart). A function whose file's text is not its own (made
    by ``exec`` under a file's name, a file edited since) matches nothing, or the node its positions point at.
    """
    code = func.__code__
    text = "".join(linecache.getlines(code.co_filename, func.__globals__))
    here = _functions_by_line(text).get(code.co_firstlineno, [])
    if func.__name__ != "<lambda>":
        return next((n for n in here if not isinstance(n, ast.Lambda) and n.name == func.__name__), None)
    # the text each instruction comes from; zero-width positions are the interpreter's own (RESUME at column 0)
    spans = {
        ((line, col), (end_line, end_col)) for line, end_line, col, end_col in code.co_positions()
        if line is not None and end_line is not None and col is not None and end_col is not None
        and (end_line, end_col) > (line, col)
    }
    best: ast.Lambda | None = None
    for node in here:
        if isinstance(node, ast.Lambda):
            start, end = _span(node)
            if all(start <= a and b <= end for a, b in spans) and (best is None or _span(best)[0] < start):
                best = node
    return best


def _reads_in(func: types.FunctionType, this: object) -> list[str]:
    node = _own_node(func)
    if node is None:  # no text to read (a function made by exec, a REPL's): nothing can be said
        return []
    where = func.__code__.co_filename
    scope = _Scope(func, _literal_loop_names(node), this)
    found = [n for n in ast.walk(node) if isinstance(n, (ast.expr, ast.stmt)) and _unfollowed(n, scope)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))  # in reading order (ast.walk goes breadth first)
    return [f"{ast.unparse(n)} in {func.__qualname__} ({where}:{n.lineno})" for n in found]


def unfollowed_reads(funcs: Iterable[types.FunctionType], owner: object = None) -> list[str]:
    """The reads in ``funcs``' source that the place search cannot follow, each as
    ``"<expression> in <function> (<file>:<line>)"``, in the order met (each function once).

    Looks for ``getattr`` / ``hasattr`` / ``operator.attrgetter`` with a name that is not a string literal,
    ``vars(obj)[key]`` / ``obj.__dict__[key]`` with a key that is not one, ``globals()[...]``, the process
    environment (``os``'s ``environ[...]``, ``environ.get`` and ``getenv``), an item under a key the code computes
    where the search does not follow every key (:func:`_unsearched_item`: ``CFG["a"]["b"][f"{name}_thr"]``), and
    imports inside the function that can bring a number (``from m import x``; ``import m`` where ``m`` is not also
    a global of its module; not library code: ``from torch.nn import functional`` is silent). ``owner``: the core's
    object, what ``self`` is in the methods of its class. A function without source text gives nothing; the same
    read twice is named once. Python's ``ast`` module parses the text.
    """
    out: list[str] = []
    seen: set[int] = set()
    mine = {id(fn) for fn in _class_functions(type(owner), users_only=False)} if owner is not None else set()
    for fn in funcs:
        if id(fn.__code__) not in seen:
            seen.add(id(fn.__code__))
            out += _reads_in(fn, owner if id(fn) in mine else _UNKNOWN)
    return list(dict.fromkeys(out))
