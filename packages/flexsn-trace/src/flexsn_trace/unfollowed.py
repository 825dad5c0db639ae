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
import importlib
import importlib.util
import sys
import types
from typing import Callable, Iterable, Mapping, Sequence

from .kinds import (
    MAPPINGS, NAMESPACES, _library, _user_module, is_array, is_number, served_dynamically, unsearched_attribute, unsearched_object,
)
from .places import MAX_DEPTH, MAX_ITEMS, MAX_NAMED_ITEMS, _class_functions
from .source import Function, own_node

__all__ = ["unfollowed_reads"]

#: builtins that read a value out of the object they are given (``next(COUNTER)``, ``float(SETTING)``)
_BUILTIN_READS = frozenset({"next", "float", "int", "bool", "round", "abs", "min", "max", "sum", "len"})

#: builtins and ``operator`` functions that take an attribute name as their argument 1 (``attrgetter``: 0)
_BY_NAME = {"getattr": 1, "hasattr": 1, "attrgetter": 0}


def _name_of(node: ast.expr) -> str | None:
    """``getattr`` for ``getattr(...)``, ``attrgetter`` for ``operator.attrgetter(...)``; else ``None``."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _namespace(node: ast.expr) -> bool:
    """Whether ``node`` is an object's attributes as a dict: ``vars(obj)`` or ``obj.__dict__``."""
    return isinstance(node, ast.Call) and _name_of(node.func) == "vars" or isinstance(node, ast.Attribute) and node.attr == "__dict__"


def _environment(node: ast.expr) -> bool:
    """Whether ``node`` is the ``environ`` mapping of ``os`` (named through the module or imported from it)."""
    return _name_of(node) == "environ"


@dataclasses.dataclass(frozen=True)
class _Scope:
    """What a read in ``func``'s text is resolved against: its globals and closure, ``this`` for ``self`` (the core's
    object, in a method of its class; else :data:`_UNKNOWN`), ``known``: local names that hold only string
    literals (:func:`_literal_loop_names`), and ``aliases``: locals bound once to an expression
    (:func:`_aliases`: ``d = CFG["a"]["b"]``), read as that expression."""

    func: types.FunctionType
    known: frozenset[str]
    this: object
    aliases: Mapping[str, ast.expr] = dataclasses.field(default_factory=dict)
    #: ids of the ``getattr(self, k)`` calls in loops of ``k`` over ``self.<attr>`` (:func:`_listed_reads`)
    listed: frozenset[int] = frozenset()
    #: ids of the calls whose result is dropped (``LOG.debug(...)`` as a statement): they bring no number
    discarded: frozenset[int] = frozenset()


def _unfollowed(node: ast.AST, scope: _Scope) -> bool:
    """Whether ``node`` (in ``scope.func``'s source) reads a value the place search cannot follow."""
    func = scope.func
    if isinstance(node, ast.Call):
        if _name_of(node.func) == "getenv":  # a string the trace turns into a constant
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and _environment(node.func.value):
            return True  # environ.get("TH")
        if id(node) not in scope.discarded and (  # a value used, read out of an object the search does not look into:
            isinstance(node.func, ast.Attribute) and _first_unsearched(node.func.value, scope)  # THR.get(), CP.getfloat(...)
            or isinstance(node.func, ast.Name) and node.func.id in _BUILTIN_READS  # next(COUNTER)
            and any(_first_unsearched(a, scope) for a in node.args)
        ):
            return True
        item = _as_item(node)
        if item is not None:  # CFG["a"].get(key), CFG["a"].values(): an item read as a subscript is
            return _unsearched_item(item, scope)
        if any(k.arg is None and _namespace(k.value) for k in node.keywords):  # f(**vars(cfg)): every attribute
            return True
        at = _BY_NAME.get(_name_of(node.func) or "")
        if id(node) in scope.listed:
            return False  # getattr(self, k) for k in self.names: the search follows the attributes a list names
        if at is not None and len(node.args) > at:  # a computed name, or a literal one the target lacks now
            return not _literal(node.args[at]) or at == 1 and _absent_attribute(node.args[0], node.args[1], scope)
        return any(_unsearched_item(_every_item(it), scope) for it in _iterated(node))
    if isinstance(node, (ast.For, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return any(_unsearched_item(_every_item(it), scope) for it in _iterated(node))
    if isinstance(node, ast.Compare) and _literal(node.left) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return _unsearched_item(ast.Subscript(value=node.comparators[0], slice=node.left, ctx=ast.Load()), scope)
    if isinstance(node, ast.Subscript):
        target = node.value
        if _environment(target):  # environ["TH"]
            return True
        if isinstance(target, ast.Call) and _name_of(target.func) == "globals":  # globals()["THR"]: not a root
            return True
        if _first_unsearched(target, scope):  # CP["lif"] of a ConfigParser: a mapping the search does not read
            return True
        if _literal(node.slice):
            return False
        if _namespace(target):  # vars(obj)[key], obj.__dict__[key]
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
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):  # CFG.model of an OmegaConf config,
        # LOCAL.thr of a threading.local
        name = node.attr
        return _resolves(node.value, scope, lambda v: served_dynamically(v, name) or unsearched_attribute(v, name))
    return False


def _first_unsearched(expr: ast.expr, scope: _Scope) -> bool:
    """Whether ``expr`` is a standard-library object the search does not look into (:func:`unsearched_object`)
    reached from one that it does (``CP``, not ``CP["lif"]`` below it: a chain is told once, where it leaves)."""
    try:
        if not unsearched_object(_resolve(expr, scope)):
            return False
        return not isinstance(expr, (ast.Attribute, ast.Subscript)) or not unsearched_object(_resolve(expr.value, scope))
    except _Unknown:
        return False


def _resolves(expr: ast.expr, scope: _Scope, test: Callable[[object], bool]) -> bool:
    """``test`` of the value ``expr`` has now (:func:`_resolve`); ``False`` when it cannot be found."""
    try:
        return test(_resolve(expr, scope))
    except _Unknown:
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
            alias = _alias(expr, scope)
            if alias is not None:
                return _resolve(*alias)
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
    variable, an ``int``) there reads a number the search never met. A local bound once (``d = CFG["a"]["b"]``,
    ``key = NAME + "_thr"``) is read as what it was bound to. A container found now decides (a tensor or a NumPy
    array is no such container: a tensor is lifted, an array watched whole). One that cannot be found without
    running the core (an argument, what a call returns, ``self`` of another object's class) decides by the key:
    a string the code builds (an f-string, ``+``, ``%`` or ``.format`` on a string literal) is an item of a
    mapping the search did not follow under it; another computed key is taken as unfollowed only past
    :data:`~flexsn_trace.places.MAX_DEPTH` steps counted from the name or call the chain starts at, and a literal
    (``[0]``: most likely a short sequence's item, which the search follows) never.
    """
    steps, base = _chain(node, scope)
    key = node.slice
    built = _built_string(key, scope)
    if base is _ARGUMENT:  # most likely a tensor the core was given (x[t]): only a key only a mapping takes
        return built
    named = _named(key, scope)
    try:  # behind a call or another object's self, as behind a local: _Unknown
        container = _resolve(node.value, scope)
    except _Unknown:
        return built or steps > MAX_DEPTH and not named and not isinstance(key, ast.Constant)
    size = len(container) if isinstance(container, (dict, list, tuple)) else 0
    if isinstance(container, dict):
        if named and _literal(key) and key.value not in container:  # type: ignore[attr-defined]
            # absent now (d.get("thr", 1.0), "thr" in d): a key added later is seen only where the dict's length is
            # watched (every key followed: flexsn_trace.constants)
            return steps > MAX_DEPTH or size > MAX_ITEMS
        return not named and (steps > MAX_DEPTH or size > MAX_ITEMS)
    if isinstance(container, (list, tuple)):  # a long one of numbers is watched whole (flexsn_trace.constants)
        return steps > MAX_DEPTH and MAX_NAMED_ITEMS < size <= MAX_ITEMS
    return False


#: what :func:`_chain` gives for a chain starting at an argument or a local bound more than once
_ARGUMENT = ast.Name(id="<argument>", ctx=ast.Load())


def _chain(node: ast.expr, scope: _Scope) -> tuple[int, ast.Name | None]:
    """``(steps, base)``: the attribute and item steps from the global, closure name or ``self`` that ``node``'s
    chain starts at (through the locals it was bound from, :attr:`_Scope.aliases`); ``base`` is ``None`` where the
    chain starts at a call or at ``self`` of another object's class, :data:`_ARGUMENT` at an argument or a local
    bound more than once."""
    steps, expr = 0, node
    while True:
        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            steps, expr = steps + 1, expr.value
        if not isinstance(expr, ast.Name):
            return steps, None
        alias = _alias(expr, scope)
        if alias is None:
            base: ast.Name = expr
            break
        expr, scope = alias
    if base.id in ("self", "cls"):  # self.cfg is the root: its steps count from there
        return steps - 1, base if scope.this is not _UNKNOWN else None
    if base.id in scope.func.__code__.co_varnames:  # an argument or a local bound more than once
        return steps, _ARGUMENT
    return steps, base


def _named(key: ast.expr, scope: _Scope) -> bool:
    """Whether ``key`` is a name the search follows: a string literal, a loop name over literals, a global or
    closure name holding a ``str`` (watched, and followed as a key), or a local bound once to one of these."""
    if _literal(key):
        return True
    if not isinstance(key, ast.Name):
        return False
    alias = _alias(key, scope)
    if alias is not None:
        return _named(*alias)
    return key.id in scope.known or _holds_str(key, scope)


def _built_string(key: ast.expr, scope: _Scope) -> bool:
    """Whether ``key`` is a string the code builds: an f-string with a value in it, ``+`` or ``%`` with a string
    literal, ``"...".format(...)``, or a local bound once to one of these (never a tensor's index)."""
    if isinstance(key, ast.Name):
        alias = _alias(key, scope)
        return alias is not None and _built_string(*alias)
    if isinstance(key, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in key.values)
    if isinstance(key, ast.BinOp) and isinstance(key.op, (ast.Add, ast.Mod)):
        return _literal(key.left) or _literal(key.right) or _built_string(key.left, scope) or _built_string(key.right, scope)
    if isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "format":
        return _literal(key.func.value)
    return False


#: builtins that read every item of their argument
_READ_ALL = frozenset({"sum", "max", "min", "sorted", "list", "tuple", "set", "frozenset", "enumerate", "zip", "reversed", "any", "all", "map", "filter"})


def _iterated(node: ast.AST) -> list[ast.expr]:
    """The containers ``node`` reads every item of: a ``for`` loop's or a comprehension's iterable, the arguments of
    ``sum`` / ``max`` / ``zip`` and the like."""
    if isinstance(node, ast.For):
        return [node.iter]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [g.iter for g in node.generators]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _READ_ALL:
        return list(node.args)
    return []


def _every_item(container: ast.expr) -> ast.Subscript:
    """``container[<every key>]``: a read of all its items, as a key the code computes would read any one."""
    return ast.Subscript(value=container, slice=ast.Name(id="<every key>", ctx=ast.Load()), ctx=ast.Load())


def _absent_attribute(target: ast.expr, name: ast.expr, scope: _Scope) -> bool:
    """Whether ``hasattr(target, "name")`` / ``getattr(target, "name", default)`` asks for an attribute ``target``
    has not now: one set later is not followed (attributes are watched where they exist)."""
    try:
        return not hasattr(_resolve(target, scope), name.value)  # type: ignore[attr-defined]
    except _Unknown:
        return False


#: what an item read through a method call is taken as: ``d.get(key)`` reads ``d[key]``; ``d.values()`` and
#: ``d.items()`` read every item, as a key the code computes would
_ITEM_METHODS = {"get": 1, "values": 0, "items": 0}


def _as_item(node: ast.Call) -> ast.Subscript | None:
    """``d[key]`` for ``d.get(key, ...)``, ``d[<computed>]`` for ``d.values()`` / ``d.items()``; else ``None``."""
    f = node.func
    if not isinstance(f, ast.Attribute) or _ITEM_METHODS.get(f.attr) != min(len(node.args), 1) or _environment(f.value):
        return None
    return ast.Subscript(value=f.value, slice=node.args[0], ctx=ast.Load()) if node.args else _every_item(f.value)


def _alias(name: ast.Name, scope: _Scope) -> tuple[ast.expr, _Scope] | None:
    """What the local ``name`` was bound to (:attr:`_Scope.aliases`) and the scope to read that in, less this alias (an
    alias is read once on a chain: ``d = d["a"]`` cannot loop); ``None`` for a name bound otherwise."""
    expr = scope.aliases.get(name.id)
    if expr is None:
        return None
    return expr, dataclasses.replace(scope, aliases={k: v for k, v in scope.aliases.items() if k != name.id})


def _aliases(node: Function) -> dict[str, ast.expr]:
    """The locals of ``node``'s own body bound exactly once, by ``name = expr`` (not a loop's, ``with``'s,
    augmented or unpacking target, not an argument): read as ``expr`` (``d = CFG["a"]["b"]``; ``d[k]`` is
    ``CFG["a"]["b"][k]``)."""
    stores: dict[str, int] = {}
    bound: dict[str, ast.expr] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bound[n.targets[0].id] = n.value
    args = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    return {k: v for k, v in bound.items() if stores.get(k) == 1 and k not in args}


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


def _listed_reads(node: ast.AST) -> frozenset[int]:
    """The ``getattr(self, k)`` calls of ``node`` made inside a ``for`` loop or a comprehension
    binding ``k`` to the items of an attribute of ``self`` (``for k in self.names``; SpikingJelly's surrogate modules:
    ``{k: getattr(self, k) for k in self._sg_param_names}``), by ``id``.

    The place search follows, on every object it meets, the attributes that the object's own lists, tuples and sets
    of strings and dicts' string keys name, and watches those containers
    (:func:`flexsn_trace.places.listed_names`), so such a read is followed. Not followed (and told): a name built
    from another value, a loop over an attribute of another object or over an iterable of another kind (a string,
    a generator), or ``k`` read outside its loop.
    """
    out: set[int] = set()
    loops: list[tuple[str, Sequence[ast.AST]]] = []  # (k, the nodes where k is the loop's item)
    for n in ast.walk(node):
        if isinstance(n, ast.For):
            loops += [(t, n.body) for t in _self_loop_target(n.target, n.iter)]
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inside: list[ast.AST] = [n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]
            for g in n.generators:
                loops += [(t, [*inside, *g.ifs]) for t in _self_loop_target(g.target, g.iter)]
    for k, body in loops:
        for part in body:
            for c in ast.walk(part):
                if (
                    isinstance(c, ast.Call) and _name_of(c.func) == "getattr" and len(c.args) > 1
                    and isinstance(c.args[0], ast.Name) and c.args[0].id == "self"
                    and isinstance(c.args[1], ast.Name) and c.args[1].id == k
                ):
                    out.add(id(c))
    return frozenset(out)


def _self_loop_target(target: ast.expr, iterable: ast.expr) -> list[str]:
    """``[k]`` for a loop ``for k in self.<attr>``; ``[]`` otherwise."""
    if isinstance(target, ast.Name) and isinstance(iterable, ast.Attribute) and isinstance(iterable.value, ast.Name):
        return [target.id] if iterable.value.id == "self" else []
    return []


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
    return is_number(value) or is_array(value) or isinstance(value, (list, tuple, *MAPPINGS, *NAMESPACES)) or not _library(type(value).__module__)


def _reads_in(func: types.FunctionType, this: object) -> list[str]:
    node = own_node(func)
    if node is None:  # no text to read (a function made by exec, a REPL's): nothing can be said
        return []
    where = func.__code__.co_filename
    dropped = frozenset(id(n.value) for n in ast.walk(node) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))
    scope = _Scope(func, _literal_loop_names(node), this, _aliases(node), _listed_reads(node), dropped)
    types_only = _annotations(node)
    found = [n for n in ast.walk(node) if isinstance(n, (ast.expr, ast.stmt)) and id(n) not in types_only and _unfollowed(n, scope)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))  # in reading order (ast.walk goes breadth first)
    return [f"{_shown(n)} in {func.__qualname__} ({where}:{n.lineno})" for n in found]


def _annotations(node: ast.AST) -> frozenset[int]:
    """The ids of the nodes in ``node``'s annotations (``fire: Callable[[Tensor], Tensor] = spike``): types, never
    read by a step."""
    heads: list[ast.AST] = []
    for n in ast.walk(node):
        if isinstance(n, ast.arg) and n.annotation is not None:
            heads.append(n.annotation)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            heads.append(n.returns)
        elif isinstance(n, ast.AnnAssign):
            heads.append(n.annotation)
    return frozenset(id(m) for h in heads for m in ast.walk(h))


def _shown(node: ast.AST) -> str:
    """``node``'s text as a warning names it: a ``for`` loop by its header only."""
    if isinstance(node, ast.For):
        return f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
    return ast.unparse(node)


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
