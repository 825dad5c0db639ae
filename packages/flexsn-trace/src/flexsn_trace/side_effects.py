"""Changes a core makes outside its arguments, which fused kernels do not repeat at every step.

The eager loop calls the core once per step, so a core that counts its calls (``self.calls += 1``), records a
value (``RECORD.append(v)``, ``self.v_list.append(h)``), fills a dict (``STATS["last"] = h``) or rebinds a
``global`` / ``nonlocal`` name changes that state ``T`` times per call. The kernels are generated from one trace of
the step: such a change happens while the core is traced, and never at a call. The outputs and states are right,
but the state the user reads afterwards is not, without a word. :func:`side_effects` finds these statements in the
text of the user functions a core runs (:mod:`flexsn_trace.source`), so that the caller can say so once.

What counts: an assignment (``=``, ``+=``, ``del``) to a name declared ``global`` or ``nonlocal``, or to an
attribute or item of something that is not the function's own local (a global, a closure variable, ``self``); a
call of a container's mutating method (:data:`MUTATORS`) or of a tensor's in-place method (``ACC.add_(s)``) on such
a thing. An item written into an argument (``v[v > 1] = 0``, a tensor written in place) is the step's own tensor
math, which the trace keeps, and is not counted. A local bound to such a thing by a whole statement
(``r = RECORD``, ``cfg = self.cfg``) counts as it does, and so does ``setattr`` / ``delattr`` on one; a state
reached another way (through a call's result, a container's item bound in a loop) is not seen.
"""

from __future__ import annotations

import ast
import types
from typing import Iterable, Iterator

from .kinds import _user_function
from .places import code_names
from .source import Function, own_node

__all__ = ["MUTATORS", "run_by_step", "side_effects"]

#: methods of Python's containers (``list``, ``dict``, ``set``, ``collections.deque``) that change them in place
MUTATORS = frozenset({
    "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "popitem", "remove", "discard",
    "clear", "update", "setdefault", "add", "sort", "reverse", "rotate",
})


def _own_statements(node: Function) -> Iterator[ast.AST]:
    """Every node of ``node``'s body, but not of the functions and classes defined in it (their names are theirs)."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, nested):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def _root(expr: ast.expr) -> str | None:
    """The name an attribute or item chain starts from (``STATS`` for ``STATS["a"].n``); ``None`` for another start."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


class _Scope:
    """Which names of ``func`` are its own: parameters and locals (``co_varnames``, ``co_cellvars``), less the
    names its text declares ``global`` or ``nonlocal``; ``this`` is the first parameter of a method (``self``)."""

    def __init__(self, func: types.FunctionType, node: Function) -> None:
        code = func.__code__
        declared: set[str] = set()
        for n in _own_statements(node):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
        self.declared = frozenset(declared)
        self.params = frozenset(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        self.local = frozenset(code.co_varnames) | frozenset(code.co_cellvars)
        self.this = code.co_varnames[0] if code.co_argcount and code.co_varnames[0] in ("self", "cls") else None
        self.globals = func.__globals__
        #: locals bound, as a whole statement, to another name for outside state (``r = RECORD``, ``cfg = self.cfg``),
        #: in the order written (an alias of an alias counts)
        self.aliases: set[str] = set()
        for n in sorted(_own_statements(node), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, (ast.Name, ast.Attribute, ast.Subscript)) and self.outside(_root(n.value)) \
                    and not self.module(_root(n.value)):
                self.aliases.add(n.targets[0].id)

    def module(self, name: str | None) -> bool:
        """Whether ``name`` is a global naming a module (``torch``, ``F``): its functions are not state."""
        return isinstance(self.globals.get(name or ""), types.ModuleType)

    def outside(self, name: str | None) -> bool:
        """Whether ``name`` is state the function does not own: a global, a closure variable, ``self``, or a local
        alias of one of them."""
        return name is not None and (
            name in self.declared or name not in self.local or name == self.this or name in self.aliases
        )


def _changed(target: ast.expr, scope: _Scope) -> bool:
    """Whether assigning to ``target`` changes state outside the function."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_changed(t, scope) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _changed(target.value, scope)
    if isinstance(target, ast.Name):
        return target.id in scope.declared
    root = _root(target)
    if isinstance(target, ast.Subscript) and root in scope.params and root != scope.this:
        return False  # v[mask] = 0: the step's own tensor written in place, which the trace keeps
    return scope.outside(root)


def _changes_in(func: types.FunctionType) -> list[str]:
    node = own_node(func)
    if node is None:  # no text to read (made by exec, typed at a REPL): nothing can be said
        return []
    scope = _Scope(func, node)
    found: list[ast.AST] = []
    for n in _own_statements(node):
        if isinstance(n, ast.Assign) and any(_changed(t, scope) for t in n.targets):
            found.append(n)
        elif isinstance(n, ast.AugAssign) and _changed(n.target, scope):
            found.append(n)
        elif isinstance(n, ast.AnnAssign) and n.value is not None and _changed(n.target, scope):  # not a bare annotation
            found.append(n)
        elif isinstance(n, ast.Delete) and any(_changed(t, scope) for t in n.targets):
            found.append(n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr") and n.args \
                and scope.outside(_root(n.args[0])):  # setattr(self, "calls", n)
            found.append(n)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            method = n.func.attr
            in_place = method in MUTATORS or (method.endswith("_") and not method.startswith("_"))
            root = _root(n.func.value)
            # torch.relu_(h), F.dropout_: a module's function, called on the step's tensors
            if in_place and not scope.module(root) and scope.outside(root):
                found.append(n)
    found.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    where = func.__code__.co_filename
    return [f"{ast.unparse(n)} in {func.__qualname__} ({where}:{getattr(n, 'lineno', '?')})" for n in found]


def _method(fn: types.FunctionType) -> bool:
    """Whether ``fn`` is defined in a class body (``K.fire``, ``Outer.<locals>.K.fire``), not in a function."""
    parts = fn.__qualname__.split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


#: what calling an object runs (``self.fire(h)`` on a user module or callable object), and what autograd runs of a
#: ``torch.autograd.Function`` the step applies (its ``backward``, at every step of the loop's backward pass): taken
#: without being named
_CALLED = frozenset({"__call__", "forward", "backward"})


def run_by_step(func: types.FunctionType, called: Iterable[types.FunctionType]) -> list[types.FunctionType]:
    """``func`` and the functions of ``called`` (:func:`flexsn_trace.places.helpers`) a step may run: a function as
    it is, a method of a class only when a function already taken names it (``self.charge(h)``, ``HOLDER.fire(h)``)
    or calling its object runs it (``forward``, ``__call__``; an autograd.Function's ``backward``); not ``__init__``,
    nor a ``reset`` the step never calls, whose changes are not the step's."""
    called = list(called)
    taken = [func, *(h for h in called if not _method(h))]
    methods = [h for h in called if _method(h) and h is not func]
    while True:
        names = code_names(*(f.__code__ for f in taken)) | _CALLED
        more = [m for m in methods if m.__name__ in names and all(m is not t for t in taken)]
        if not more:
            return taken
        taken += more


def side_effects(funcs: Iterable[types.FunctionType]) -> list[str]:
    """The statements of the user functions among ``funcs`` that change state outside their arguments (see the
    module docstring), each as ``"<statement> in <function> (<file>:<line>)"``, in the order met, each once.

    Library functions (torch's, FlexSN's own neurons') are not read. A function without source text gives nothing.
    """
    out: list[str] = []
    seen: set[int] = set()
    for fn in funcs:
        if id(fn.__code__) not in seen and _user_function(fn):
            seen.add(id(fn.__code__))
            out += _changes_in(fn)
    return list(dict.fromkeys(out))
