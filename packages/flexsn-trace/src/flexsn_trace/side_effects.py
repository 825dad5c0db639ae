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
a thing. ``add`` and ``sort`` count only as a whole statement (``SEEN.add(k)``): a tensor's ``add`` / ``sort``
return their result (``BIAS.add(x)`` changes nothing). An item written into an argument (``v[v > 1] = 0``, a tensor
written in place) is the step's own tensor math, which the trace keeps, and is not counted. A local bound to such a
thing by a whole statement (``r = RECORD``, ``cfg = self.cfg``) counts as it does, and so does ``setattr`` /
``delattr`` on one; so does a loop's item over such a thing (``for log in LOGS: log.append(h)``, a comprehension's
too, also through ``.items()`` / ``.values()``, ``enumerate`` and ``zip``), and the result of a user function that returns such a thing
(``get_log().append(h)`` where ``get_log`` returns ``LOGS[0]``, or returns ``pick()`` that does, up to
:data:`RETURN_DEPTH` calls deep; a method of a global object or of the step's own class likewise). A state reached
another way (deeper calls, a function without source text) is not seen.
"""

from __future__ import annotations

import ast
import types
from typing import Iterable, Iterator

from .kinds import _user_function
from .places import code_names
from .source import Function, own_node

__all__ = ["MUTATORS", "RETURN_DEPTH", "run_by_step", "side_effects"]

#: methods of Python's containers (``list``, ``dict``, ``set``, ``collections.deque``) that change them in place
MUTATORS = frozenset({
    "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "popitem", "remove", "discard",
    "clear", "update", "setdefault", "add", "sort", "reverse", "rotate",
})
#: of :data:`MUTATORS`, the names a tensor's out-of-place methods share (``t.add(x)``, ``t.sort()`` return a result):
#: counted only as a whole statement, where a container's (``None``-returning) call stands
_SHARED_WITH_TENSORS = frozenset({"add", "sort"})
#: how many calls deep a helper's result is followed to outside state (``get_log()`` returning ``pick()`` returning
#: ``LOGS[0]`` is two); a longer chain is not seen
RETURN_DEPTH = 3
#: builtins whose result holds the items of their arguments (a loop over ``enumerate(LOGS)`` binds LOGS's items)
_PASSING_ITEMS = frozenset({"enumerate", "zip", "reversed", "list", "tuple", "iter", "sorted"})


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


def _base(expr: ast.expr) -> ast.expr:
    """What an attribute or item chain starts from (the call in ``get_log()[0].items``)."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr


class _Scope:
    """Which names of ``func`` are its own: parameters and locals (``co_varnames``, ``co_cellvars``), less the
    names its text declares ``global`` or ``nonlocal``; ``this`` is the first parameter of a method (``self``)."""

    def __init__(
        self, func: types.FunctionType, node: Function, depth: int = RETURN_DEPTH,
        memo: dict[tuple[types.FunctionType, int], bool] | None = None,
    ) -> None:
        code = func.__code__
        #: how many more calls a helper's result may be followed through (a helper's own scope has one less)
        self.depth = depth
        #: :meth:`returns_outside`'s answers by helper and depth, shared by the scopes of one search (a helper
        #: called from many places is read once per depth, not once per call: the search stays linear)
        self.memo: dict[tuple[types.FunctionType, int], bool] = {} if memo is None else memo
        declared: set[str] = set()
        for n in _own_statements(node):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
        self.declared = frozenset(declared)
        self.params = frozenset(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        # a comprehension's variables are its own (Python 3.11 keeps them out of co_varnames, 3.12 inlines them)
        comprehended = {t.id for n in _own_statements(node) if isinstance(n, ast.comprehension)
                        for t in ast.walk(n.target) if isinstance(t, ast.Name)}
        self.local = frozenset(code.co_varnames) | frozenset(code.co_cellvars) | comprehended
        self.this = code.co_varnames[0] if code.co_argcount and code.co_varnames[0] in ("self", "cls") else None
        self.globals = func.__globals__
        self.func = func
        cells = func.__closure__ or ()
        #: the closure variables' values (a helper a step calls may be one)
        self.free = {name: cell for name, cell in zip(code.co_freevars, cells)}
        #: locals bound, as a whole statement, to another name for outside state (``r = RECORD``, ``cfg = self.cfg``,
        #: ``r = get_log()``, ``r = all_logs()[1]``), or as a loop's item over outside state, in the order written (an
        #: alias of an alias counts)
        self.aliases: set[str] = set()
        for n in sorted(_own_statements(node), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and self.gives_outside(n.value):
                self.aliases.add(n.targets[0].id)
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and self.items_outside(n.iter):
                self.aliases.update(t.id for t in ast.walk(n.target) if isinstance(t, ast.Name))

    def module(self, name: str | None) -> bool:
        """Whether ``name`` is a global naming a module (``torch``, ``F``): its functions are not state."""
        return isinstance(self.globals.get(name or ""), types.ModuleType)

    def outside(self, name: str | None) -> bool:
        """Whether ``name`` is state the function does not own: a global, a closure variable, ``self``, or a local
        alias of one of them."""
        return name is not None and (
            name in self.declared or name not in self.local or name == self.this or name in self.aliases
        )

    def held(self, expr: ast.expr) -> bool:
        """Whether ``expr`` is a name, attribute or item of outside state (not of a module: ``torch.float32``)."""
        root = _root(expr) if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript)) else None
        return self.outside(root) and not self.module(root)

    def items_outside(self, expr: ast.expr) -> bool:
        """Whether a loop over ``expr`` binds items of outside state: ``LOGS``, ``self.logs.values()``,
        ``enumerate(LOGS)``, ``(LOG_A, LOG_B)``."""
        if isinstance(expr, (ast.Tuple, ast.List)):
            return any(self.held(e) for e in expr.elts)
        if isinstance(expr, ast.Call):
            f = expr.func
            if isinstance(f, ast.Attribute) and f.attr in ("items", "values"):
                return self.held(f.value)
            if isinstance(f, ast.Name) and f.id in _PASSING_ITEMS and f.id not in self.local:
                return any(self.items_outside(a) for a in expr.args)
            return False
        return self.held(expr)

    def _resolve(self, expr: ast.expr) -> object:
        """The object a callee names: a global or closure function, a method of a global object or of the step's
        own class (``self.get_log``); ``None`` when it cannot be told from here."""
        if isinstance(expr, ast.Name) and expr.id not in self.local:
            cell = self.free.get(expr.id)
            if cell is not None:
                try:
                    return cell.cell_contents
                except ValueError:  # an empty cell
                    return None
            return self.globals.get(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            name = expr.value.id
            if name == self.this:  # the step's own class, when it is a module-level one (``K.forward``)
                owner: object = self.globals.get(self.func.__qualname__.split(".")[0]) if _method(self.func) else None
            elif name in self.local or self.module(name):
                return None
            else:
                owner = self.globals.get(name)
            if owner is None:
                return None
            return getattr(owner if isinstance(owner, type) else type(owner), expr.attr, None)
        return None

    def returns_outside(self, call: ast.Call) -> bool:
        """Whether ``call`` calls a user function whose every ``return`` gives outside state of its own
        (``def get_log(): return LOGS[0]``; ``def log(self): return self.records``), or the result of a call that
        does (``return pick()``, ``return pick()[0]``; :data:`RETURN_DEPTH` calls at most): its result is that state."""
        if self.depth <= 0:
            return False
        fn = self._resolve(call.func)
        fn = getattr(fn, "__func__", fn)  # a classmethod / staticmethod found on the class
        if not isinstance(fn, types.FunctionType) or not _user_function(fn):
            return False
        key = (fn, self.depth)
        if key not in self.memo:
            self.memo[key] = False  # a helper returning its own call's result (recursion) gives nothing found
            node = own_node(fn)
            if node is not None and not isinstance(node, ast.Lambda):
                returns = [n for n in _own_statements(node) if isinstance(n, ast.Return)]
                scope = _Scope(fn, node, self.depth - 1, self.memo)
                self.memo[key] = bool(returns) and all(r.value is not None and scope.gives_outside(r.value) for r in returns)
        return self.memo[key]

    def gives_outside(self, expr: ast.expr) -> bool:
        """Whether ``expr`` is outside state: held (:meth:`held`), or an attribute, item or whole result of a call
        returning such state (:meth:`returns_outside`)."""
        base = _base(expr)
        return self.held(expr) or isinstance(base, ast.Call) and self.returns_outside(base)


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


def _changes_in(func: types.FunctionType, memo: dict[tuple[types.FunctionType, int], bool]) -> list[str]:
    node = own_node(func)
    if node is None:  # no text to read (made by exec, typed at a REPL): nothing can be said
        return []
    scope = _Scope(func, node, RETURN_DEPTH, memo)
    found: list[ast.AST] = []
    statements = {id(n.value) for n in _own_statements(node) if isinstance(n, ast.Expr)}  # calls standing alone
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
            if method in _SHARED_WITH_TENSORS and id(n) not in statements:
                continue  # BIAS.add(x), h.sort(): a tensor's result, used; a container's add / sort stands alone
            # held: not torch.relu_(h), F.dropout_ (a module's function, called on the step's tensors)
            if in_place and scope.gives_outside(n.func.value):  # RECORD.append(h), get_log().append(h)
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
    memo: dict[tuple[types.FunctionType, int], bool] = {}
    for fn in funcs:
        if id(fn.__code__) not in seen and _user_function(fn):
            seen.add(id(fn.__code__))
            out += _changes_in(fn, memo)
    return list(dict.fromkeys(out))
