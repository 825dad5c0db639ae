"""The helper functions a core calls, rebuilt so that they read substituted tensors.

:meth:`flexsn_trace.Captures.bind` runs the core on lifted arguments instead of
the tensors it captures. A tensor the core reads itself is substituted in a
copy of its closure, defaults, globals or object. A tensor a *helper* reads
(``fire(h)`` reading ``THRESH``, a closure cell or a default of its own, or a
method ``self.charge`` reading a global) needs the helper rebuilt on the
substituted values, and the core handed that rebuilt helper where it looks
the original up. :func:`helper_reach` records where those look-ups are; a
helper reached another way (through an object other than the core's own, or
a class) is not rebuilt, so a tensor it reads stays a foreign constant and the
core falls back with a warning rather than freezing the value.

Where a core looks a helper up:

* a global name of the core's or of a reached helper's module (``links``),
  holding the helper or a ``functools.partial`` of it (rebound to the rebuilt one);
* a closure cell of the core (``cells``);
* a default argument of the core (``defaults``: ``def core(x, v, act=fire)``, or a ``lambda`` there);
* an item of a list, tuple or mapping, or an attribute of a namespace, that a global holds (``held``:
  ``CFG["act"](h)``, ``ACTS[0](h)``) or a closure cell of the core holds (``cell_held``: a factory's
  ``cfg["act"](h)``): the global or the cell is handed a copy of the container holding the rebuilt one
  (:func:`flexsn_trace.places.replaced`);
* an attribute of the core's object naming a method, static or class method
  of its class (``methods``): the rebuilt one is set on the object's copy;
* a global naming a user object (not an ``nn.Module``) whose class defines a
  helper reached (``objects``: ``HOLDER.fire(h)`` reading ``THRESH``): the
  global is handed a copy of the object that holds the rebuilt methods;
* a closure cell of the core holding such an object (``cell_objects``: a factory's
  ``obj.fire(h)``): the rebuilt core takes a new cell holding the copy;
* an attribute of the core's object holding such an object, or a user ``nn.Module`` whose
  ``forward`` or other methods are helpers (``attr_objects``: ``self.helper.fire(h)``,
  ``self.fire(h)`` running ``Fire.forward``): the object's copy holds a copy of it with the
  rebuilt methods (a module's copy shares its parameters, which ``functional_call`` swaps);
* a global naming a user class whose body defines a helper reached (``classes``:
  ``LIF.fire(h)``, a static or class method): the global is handed a subclass stand-in
  whose body holds the rebuilt functions (not a class whose subclassing runs code).
"""

from __future__ import annotations

import copy
import functools
import types
from typing import Any, Callable, NamedTuple, Sequence

from torch import nn

from .kinds import (
    MAPPINGS, NAMESPACES, _library, _subclassable, _user_function, _user_instance, own_attributes, shadowable, slot_names, stand_in,
)
from .places import Step, code_names, follow, nested, replaced
from .roots import Root, default_arguments

__all__ = ["HelperReach", "Substitutes", "helper_reach", "helper_root", "rebind_helpers", "shadowed"]


#: what a helper may be held in, below a global or a closure cell: followed by :func:`flexsn_trace.places.nested`
_CONTAINERS = (list, tuple, *MAPPINGS, *NAMESPACES)


class HelperReach(NamedTuple):
    """Where a core's function reaches helpers (:func:`helper_reach`): what binding rebuilds.

    Attributes:
        dicts: the module globals of the core (first) and of every helper reached.
        links: ``(index into dicts, name)``: a global, named by the code of the core or of a
            helper reached, that holds a helper reached.
        cells: the core's closure cells that hold a helper reached.
        helpers: every helper reached, each once, in the order the search met them; the first
            index of an ``"hcell"``, ``"hdefault"`` or ``"hkwdefault"`` key.
        methods: ``(attribute name, "method" | "static" | "class", index into helpers)``: the
            functions of the core's object's class that binding sets, rebuilt, on its copy.
        objects: ``(index into dicts, global name, methods as above)``: a global holding a user
            object whose class defines helpers reached; binding hands the global a copy of the
            object holding them rebuilt.
        cell_objects: ``(closure cell index, methods as above)``: the same for an object a closure
            cell of the core holds; binding gives the core a new cell holding the copy.
        classes: ``(index into dicts, global name, methods as above)``: a global holding a user
            class whose body defines helpers reached; binding hands the global a subclass stand-in.
        attr_objects: ``(attribute name, methods as above)``: the same for an object or user module an
            attribute of the core's object holds; binding sets a copy of it on the object's copy.
        defaults: ``("default", index)`` / ``("kwdefault", name)``: the core's default arguments that hold a
            helper reached (or a ``functools.partial`` of one); binding gives the core the rebuilt one there.
        held: ``(index into dicts, global name, path)``: a helper reached inside a container a global holds
            (:func:`flexsn_trace.places.nested`'s path); binding hands the global a copy holding the rebuilt one.
        cell_held: ``(closure cell index, path)``: the same for a container a closure cell of the core holds; the
            rebuilt core takes a new cell holding the copy.
    """

    dicts: tuple[dict[str, Any], ...]
    links: tuple[tuple[int, str], ...]
    cells: tuple[int, ...]
    helpers: tuple[types.FunctionType, ...] = ()
    methods: tuple[tuple[str, str, int], ...] = ()
    objects: tuple[tuple[int, str, tuple[tuple[str, str, int], ...]], ...] = ()
    cell_objects: tuple[tuple[int, tuple[tuple[str, str, int], ...]], ...] = ()
    classes: tuple[tuple[int, str, tuple[tuple[str, str, int], ...]], ...] = ()
    attr_objects: tuple[tuple[str, tuple[tuple[str, str, int], ...]], ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    held: tuple[tuple[int, str, tuple[Step, ...]], ...] = ()
    cell_held: tuple[tuple[int, tuple[Step, ...]], ...] = ()


class Substitutes(NamedTuple):
    """What binding puts in the helpers' places (:func:`rebind_helpers`).

    Attributes:
        globals: rebound copies of helpers' module globals, by :attr:`HelperReach.dicts` index.
        cells: a new cell per original closure cell (by ``id``), for the core and every helper
            that holds it (a variable two nested functions share is one cell).
        defaults: ``{helper index: {position or keyword name: value}}``.
    """

    globals: dict[int, dict[str, Any]]
    cells: dict[int, types.CellType]
    defaults: dict[int, dict[Any, Any]]


def _class_methods(owner: Any) -> list[tuple[str, str, types.FunctionType]]:
    """``(name, wrap, function)`` for the user functions ``owner``'s class defines (first along the MRO wins)."""
    if owner is None or isinstance(owner, type) or not shadowable(owner):
        return []
    return _defined(type(owner), own_attributes(owner))


def _defined(cls: type, own: dict[str, Any] | None = None) -> list[tuple[str, str, types.FunctionType]]:
    """``(name, wrap, function)`` for the user functions ``cls`` and its bases define, first along the MRO winning,
    but for names in ``own`` (what an instance's own attributes shadow)."""
    own = own or {}
    out: list[tuple[str, str, types.FunctionType]] = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            if name in seen:
                continue
            seen.add(name)
            if _library(klass.__module__) or name in own or name.startswith("__"):
                continue
            wrap = "static" if isinstance(value, staticmethod) else "class" if isinstance(value, classmethod) else "method"
            fn = getattr(value, "__func__", value)
            if _user_function(fn):
                out.append((name, wrap, fn))
    return out


def helper_reach(
    func: types.FunctionType, owner: Any, found: Sequence[types.FunctionType]
) -> tuple[HelperReach | None, list[types.FunctionType]]:
    """The helpers of ``found`` that ``func`` (bound to ``owner``, or ``None``) reaches where binding can hand
    over a rebuilt one (see the module docstring), and where.

    From ``func``'s closure cells and its object's methods, then from the code of each
    function reached, a global name holding one of ``found`` is a link, in whatever
    module the helper lives. Returns :class:`HelperReach` (``None`` when no helper is
    reached) and the helpers, each once, in the order the search met them.
    """
    wanted = {id(h): h for h in found}
    dicts: list[dict[str, Any]] = [func.__globals__]
    links: list[tuple[int, str]] = []
    cells: list[int] = []
    reached: dict[int, types.FunctionType] = {}
    objects: dict[tuple[int, str], list[tuple[str, str, types.FunctionType]]] = {}
    cell_objects: list[tuple[int, list[tuple[str, str, types.FunctionType]]]] = []
    classes: dict[tuple[int, str], list[tuple[str, str, types.FunctionType]]] = {}
    held_links: list[tuple[int, str, tuple[Step, ...]]] = []
    cell_held: list[tuple[int, tuple[Step, ...]]] = []

    def index_of(d: dict[str, Any]) -> int:
        for i, known in enumerate(dicts):
            if known is d:
                return i
        dicts.append(d)
        return len(dicts) - 1

    def sought(defined: list[tuple[str, str, types.FunctionType]]) -> list[tuple[str, str, types.FunctionType]]:
        """The helpers among ``defined`` (a class's functions, :func:`_defined`), ``func`` itself left out."""
        return [(n, w, f) for n, w, f in defined if id(f) in wanted and f is not func]

    for i, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if id(value) in wanted:
            cells.append(i)
            reached.setdefault(id(value), value)
        elif _holder(value) and (held := sought(_class_methods(value))):  # obj.fire, obj a factory's local
            cell_objects.append((i, held))
            for _, _, f in held:
                reached.setdefault(id(f), f)
        elif isinstance(value, _CONTAINERS):  # a factory's cfg["act"](h)
            for path, leaf in _held_helpers(value, func.__code__, wanted, func):
                cell_held.append((i, path))
                reached.setdefault(id(leaf), leaf)
    defaults: list[tuple[str, Any]] = []
    for kind, key, _, value in default_arguments(func):
        while isinstance(value, functools.partial):  # act=partial(fire, alpha=2.0): fire is rebuilt
            value = value.func
        if id(value) in wanted and value is not func:
            defaults.append((kind, key))
            reached.setdefault(id(value), value)
    methods = sought(_class_methods(owner))
    for _, _, fn in methods:
        reached.setdefault(id(fn), fn)
    attr_objects = [(name, held) for name, value in _held_by(owner) if (held := sought(_class_methods(value)))]
    for _, held in attr_objects:
        for _, _, f in held:
            reached.setdefault(id(f), f)
    frontier = [func, *reached.values()]
    while frontier:
        nxt: list[types.FunctionType] = []
        for fn in frontier:
            g = fn.__globals__
            for name in dict.fromkeys(fn.__code__.co_names):
                value = g.get(name)
                while isinstance(value, functools.partial):  # FIRE = partial(fire, ...): fire is rebuilt, rebound
                    value = value.func
                if id(value) in wanted and value is not func:
                    link = (index_of(g), name)
                    if link not in links:
                        links.append(link)
                    found_here = [wanted[id(value)]]
                elif _holder(value) or _user_class(value):  # HOLDER.fire, LIF.fire: its functions among the helpers
                    held = sought(_defined(value) if isinstance(value, type) else _class_methods(value))
                    if held:
                        (classes if isinstance(value, type) else objects).setdefault((index_of(g), name), held)
                    found_here = [f for _, _, f in held]
                elif isinstance(value, _CONTAINERS):  # CFG["act"](h): a copy holds it rebuilt
                    found_here = []
                    for path, leaf in _held_helpers(value, fn.__code__, wanted, func):
                        if (index_of(g), name, path) not in held_links:
                            held_links.append((index_of(g), name, path))
                        found_here.append(leaf)
                else:
                    continue
                for h in found_here:
                    if id(h) not in reached:
                        reached[id(h)] = h
                        nxt.append(h)
        frontier = nxt
    if not reached:
        return None, []
    for h in reached.values():
        index_of(h.__globals__)
    order = list(reached.values())
    index = {id(h): i for i, h in enumerate(order)}

    def indexed(held: list[tuple[str, str, types.FunctionType]]) -> tuple[tuple[str, str, int], ...]:
        return tuple((n, w, index[id(f)]) for n, w, f in held)

    return HelperReach(
        tuple(dicts), tuple(links), tuple(cells), tuple(order), indexed(methods),
        tuple((i, name, indexed(held)) for (i, name), held in objects.items()),
        tuple((i, indexed(held)) for i, held in cell_objects),
        tuple((i, name, indexed(held)) for (i, name), held in classes.items()),
        tuple((name, indexed(held)) for name, held in attr_objects), tuple(defaults), tuple(held_links),
        tuple(cell_held),
    ), order


def _held_helpers(
    container: Any, code: types.CodeType, wanted: dict[int, types.FunctionType], func: types.FunctionType,
) -> list[tuple[tuple[Step, ...], types.FunctionType]]:
    """``(path, helper)`` for the helpers of ``wanted`` that ``container`` holds where ``code``'s names reach them
    (:func:`flexsn_trace.places.nested`) and a copy can hold another (``liftable``); ``func`` itself left out."""
    return [(path, leaf) for path, leaf, liftable in nested(container, code_names(code))
            if liftable and id(leaf) in wanted and leaf is not func]


def _with_rebuilt(base: Any, path: tuple[Step, ...], rebuild: Callable[[Any], Any]) -> Any:
    """A copy of ``base`` holding at ``path`` what ``rebuild`` makes of the helper there; ``base`` itself when that
    place changed since the search (the helper is left to read where it reads)."""
    try:
        return replaced(base, path, rebuild(follow(base, path)))
    except (LookupError, AttributeError, TypeError):
        return base


def _held_by(owner: Any) -> list[tuple[str, Any]]:
    """``(attribute name, value)`` for the user objects and user modules the core's object holds (a module's
    submodules included), whose methods may be helpers: ``self.helper.fire(h)``, ``self.fire(h)``."""
    if owner is None or isinstance(owner, type) or not shadowable(owner):
        return []
    held = own_attributes(owner)
    if isinstance(owner, nn.Module):
        held.update(owner._modules)
    return [(n, v) for n, v in sorted(held.items()) if _holder(v) or isinstance(v, nn.Module) and _user_instance(v)]


def _holder(value: Any) -> bool:
    """Whether ``value`` is a user object a global may hold whose methods :func:`helper_reach` follows
    (:func:`flexsn_trace.kinds._user_instance`), but not an ``nn.Module`` (a module's tensors are its parameters and
    buffers); :func:`_class_methods` leaves out what a copy cannot shadow."""
    return _user_instance(value) and not isinstance(value, nn.Module)


def _user_class(value: Any) -> bool:
    """Whether ``value`` is a user class a subclass can stand in for (:func:`flexsn_trace.kinds.stand_in`), so that a
    global naming it can be handed one whose body holds rebuilt functions."""
    return isinstance(value, type) and not _library(value.__module__) and _subclassable(value)


def helper_root(root: Root, h: types.FunctionType, func: types.FunctionType, reach: HelperReach) -> Root | None:
    """A root of helper ``h`` (:func:`flexsn_trace.roots.roots`) as a place binding can substitute, or ``None``.

    A global of the core's own module stays ``"global"``; another module's becomes
    ``"hglobal"`` keyed ``(dicts index, name)``. A closure cell becomes ``"hcell"`` keyed
    ``(helpers index, cell index)``; a default ``"hdefault"`` / ``"hkwdefault"`` keyed
    ``(helpers index, position or name)``. Names say whose they are (``"closure th (read by fire)"``
    is added by the caller; a global of another module is ``"global module.name"``).
    """
    if root.kind == "global":
        if h.__globals__ is func.__globals__:
            return root
        index = next(i for i, d in enumerate(reach.dicts) if d is h.__globals__)
        module = h.__globals__.get("__name__")
        name = f"global {module}.{root.key}" if isinstance(module, str) else root.name
        return root._replace(name=name, kind="hglobal", key=(index, root.key))
    kinds = {"cell": "hcell", "default": "hdefault", "kwdefault": "hkwdefault"}
    if root.kind not in kinds:
        return None
    at = next(i for i, known in enumerate(reach.helpers) if known is h)
    return root._replace(kind=kinds[root.kind], key=(at, root.key))


def rebind_helpers(
    reach: HelperReach, g: dict[str, Any], subs: Substitutes, closure: Sequence[types.CellType],
    defaults: list[Any] | None = None, kwdefaults: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[int, types.CellType], dict[int, types.FunctionType]]:
    """The core's rebound globals ``g`` and closure cells with every helper it reaches rebuilt on ``subs``.

    Every module reached gets a copy of its globals (the rebound one where a lifted global
    was substituted), so that a helper reached through it reads the rebuilt helpers; every
    rebuilt helper takes the substituted cells and defaults. Returns ``(g, {cell index: new
    cell}, {helpers index: rebuilt helper})``; the core's own substituted cells are the
    caller's. The core's ``defaults`` / ``kwdefaults`` (the caller's copies) get the rebuilt
    helpers at :attr:`HelperReach.defaults`, in place.
    """
    copies = {0: g, **subs.globals}
    for i, d in enumerate(reach.dicts):
        copies.setdefault(i, dict(d))
    by_dict = {id(d): copies[i] for i, d in enumerate(reach.dicts)}
    at = {id(h): i for i, h in enumerate(reach.helpers)}
    rebuilt: dict[int, types.FunctionType] = {}

    def rebuild(value: Any) -> Any:
        if isinstance(value, functools.partial):  # a new partial binding the same values to the rebuilt function
            inner = rebuild(value.func)
            return value if inner is value.func else functools.partial(inner, *value.args, **value.keywords)
        new = by_dict.get(id(getattr(value, "__globals__", None)))
        if not isinstance(value, types.FunctionType) or new is None or id(value) not in at:
            return value  # reassigned since the search: left to read where it reads
        i = at[id(value)]
        if i not in rebuilt:
            mine = subs.defaults.get(i, {})
            defaults = tuple(mine.get(k, d) for k, d in enumerate(value.__defaults__ or ())) or None
            cells = tuple(subs.cells.get(id(c), c) for c in value.__closure__ or ()) or None
            fn = types.FunctionType(value.__code__, new, value.__name__, defaults, cells)
            kw = value.__kwdefaults__
            fn.__kwdefaults__ = {k: mine.get(k, d) for k, d in kw.items()} if kw else kw
            fn.__qualname__ = value.__qualname__
            fn.__dict__.update(value.__dict__)
            rebuilt[i] = fn
        return rebuilt[i]

    for i, name in reach.links:
        if name in copies[i]:  # deleted since the search: nothing to hand over
            copies[i][name] = rebuild(copies[i][name])
    cells = {i: types.CellType(rebuild(closure[i].cell_contents)) for i in reach.cells}
    for i, name, path in reach.held:  # CFG["act"]: a copy of the container (of its copy, if a tensor there was lifted)
        if name in copies[i]:
            copies[i][name] = _with_rebuilt(copies[i][name], path, rebuild)
    for i, path in reach.cell_held:  # a factory's cfg["act"]: a new cell holding a copy (of the substituted one)
        cells[i] = types.CellType(_with_rebuilt(cells[i].cell_contents if i in cells else closure[i].cell_contents, path, rebuild))
    for kind, key in reach.defaults:  # def core(x, v, act=fire): the rebuilt core's default is the rebuilt fire
        if kind == "default" and defaults is not None and key < len(defaults):
            defaults[key] = rebuild(defaults[key])
        elif kind == "kwdefault" and kwdefaults is not None and key in kwdefaults:
            kwdefaults[key] = rebuild(kwdefaults[key])
    for i, name, held in reach.objects:  # a global's object: a copy holding its rebuilt methods
        if name in copies[i]:
            copies[i][name] = shadowed(copies[i][name], {}, [(n, w, rebuild(reach.helpers[k])) for n, w, k in held])
    for i, name, held in reach.classes:  # a global's class (a stand-in already, if one of its tensors was lifted)
        if name in copies[i]:
            wrapped = {n: _wrapped(w, rebuild(reach.helpers[k])) for n, w, k in held}
            copies[i][name] = stand_in(copies[i][name], wrapped)
    for i, held in reach.cell_objects:  # a closure's object (a copy already, if one of its tensors was lifted)
        methods = [(n, w, rebuild(reach.helpers[k])) for n, w, k in held]
        cells[i] = types.CellType(shadowed(closure[i].cell_contents, {}, methods))
    for h in reach.helpers:  # the object's methods: reached by attribute, not by name
        rebuild(h)
    return copies[0], cells, rebuilt


def _wrapped(wrap: str, fn: types.FunctionType) -> Any:
    """``fn`` as a class body holds it: a ``staticmethod``, a ``classmethod`` or the plain function."""
    return staticmethod(fn) if wrap == "static" else classmethod(fn) if wrap == "class" else fn


def shadowed(owner: Any, attrs: dict[str, Any], methods: Sequence[tuple[str, str, types.FunctionType]]) -> Any:
    """A copy of ``owner`` that reads ``attrs`` and the rebuilt ``methods`` (``(name, wrap, function)``) instead.

    Set in the copy's own ``__dict__``, where they shadow its class's attributes and methods. A ``__slots__``
    instance has no ``__dict__``: its slots are set on the copy, and the rest go into the body of a subclass
    stand-in (``__slots__ = ()``, so the copy's layout fits it) that the copy is re-classed to
    (:func:`flexsn_trace.kinds.shadowable` says when that is allowed).
    """
    copied = copy.copy(owner)
    klass = type(owner)
    body: dict[str, Any] = {}
    slots = () if hasattr(copied, "__dict__") else slot_names(klass)
    for name, v in attrs.items():
        if hasattr(copied, "__dict__") or name in slots:
            object.__setattr__(copied, name, v)
        else:
            body[name] = v
    for name, wrap, m in methods:
        if hasattr(copied, "__dict__"):
            object.__setattr__(copied, name, m if wrap == "static" else types.MethodType(m, klass if wrap == "class" else copied))
        else:
            body[name] = _wrapped(wrap, m)
    if body:
        object.__setattr__(copied, "__class__", stand_in(klass, {**body, "__slots__": ()}))
    return copied
