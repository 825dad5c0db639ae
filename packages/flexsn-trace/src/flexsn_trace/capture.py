"""Tensors a core reads from outside its arguments, lifted into explicit arguments.

A natural neuron core reads its parameters where they live: a closure
variable, an ``nn.Parameter`` of the module whose method it is, a module
global. Traced as they are, such tensors become constants of the graph
(and on CUDA, tensors on another device than the CPU tracing examples). As
FlexAttention lifts the buffers its ``score_mod`` captures, :func:`find_captures`
finds them and :attr:`Captures.lifted` is the same core taking them as
trailing arguments (SpikingJelly 2.0's ``static_inputs`` position), so the
kernels read the live tensors at every call and return their gradients.

Searched, in this order: the closure cells of the function (a tensor, or an
``nn.Module`` whose parameters and buffers the core may read); its globals
named in its code; its default argument values (``def core(x, v, w=w)``, a
common way to bind a parameter; a default the call fills is simply not
read); for a bound method or an ``nn.Module`` core, the parameters and
buffers of its module, the tensors and containers it holds as plain
attributes that the code names (``self.th = torch.tensor(1.0)``,
``self.p = {"th": ...}``) and the attributes of its class body read through
``self`` (``th = torch.tensor(1.0)`` in the class), or the attributes of a
plain object; a ``functools.partial``'s arguments and keywords. From each of
these the search goes on into lists, tuples, dicts, namespaces, user
objects, user modules and user classes (``P["thr"]``, ``cfg.thr``,
``K.thr``; :mod:`flexsn_trace.places`). Also searched: the globals, closure
cells and defaults of the helper functions the core reaches by global names
(in its own module or imported from another, calls deep), by its closure
cells, or as methods of its object (``fire(h)`` reading ``THRESH``,
``self.charge`` reading a global; :func:`flexsn_trace.places.helpers`):
binding rebuilds those helpers on the substituted values and hands the core
the rebuilt ones (:mod:`flexsn_trace.rebind`). One tensor at two places is one
argument, substituted at both. Only floating-point tensors are lifted; the
caller keeps those the traced step actually reads (:func:`used_arguments`).
A container held by a plain attribute of an ``nn.Module`` (the core's own, a
submodule's, ``self.sub.cfg["w"]``, or a global module's) is lifted through a
copy of each module on its path; a method of a user object a global holds
(``HOLDER.fire(h)`` reading a global), or of one a closure cell of the core holds (``obj.fire(h)``), through a
copy of the object holding the rebuilt method; a static or class method of a user class a global names
(``LIF.fire(h)``) through a subclass stand-in holding the rebuilt function. A tensor read from anywhere else (a
helper reached through an object neither holds, or a class no global names; a class whose subclassing runs
code) is recorded as a foreign constant
(:data:`flexsn_trace.FOREIGN_PREFIX`), which codegen refuses: that core
falls back with a warning instead of freezing the tensor's value.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, NamedTuple, Sequence

import torch
from torch import fx, nn

from .info import placeholders
from .kinds import MODULE_STATE, shadowable
from .anchors import places_of, value_at
from .places import Step, describe, follow, held_names, helpers, names_of, nested, reader, replaced
from .roots import Root, core_function, roots
from .rebind import HelperReach, Substitutes, helper_reach, helper_root, rebind_helpers, shadowed

__all__ = ["Captured", "Captures", "find_captures", "used_arguments"]


class Captured(NamedTuple):
    """One tensor a core reads from outside its arguments.

    Attributes:
        name: where it lives, for messages (``"closure w"``, ``"self.tau"``, ``"global W"``).
        read: returns the live tensor (read at every call: an optimizer's
            in-place update or a reassignment is seen).
        kind: ``"cell"``, ``"global"``, ``"default"``, ``"kwdefault"``, ``"module"``, ``"attr"``,
            ``"parg"`` or ``"pkw"`` (:class:`flexsn_trace.roots.Root`), or a helper's own place
            (:func:`flexsn_trace.rebind.helper_root`): ``"hglobal"`` (a global of a helper's module,
            not the core's), ``"hcell"``, ``"hdefault"``, ``"hkwdefault"``: how the lifted core substitutes it.
        key: the closure cell's index, the global's name, the index in ``__defaults__``, the keyword-only
            parameter's name, ``(module index, path)``, the attribute's name, the partial's argument index
            or keyword; for a helper's place ``(index, cell index / name / position)``
            (:class:`flexsn_trace.rebind.HelperReach`).
    """

    name: str
    read: Callable[[], torch.Tensor]
    kind: str
    key: Any
    #: the container steps from the root the kind and key name (:mod:`flexsn_trace.places`); ``()``: the root itself
    path: tuple[tuple[str, Any], ...] = ()
    #: with a ``path``: reads the root's value now (:attr:`flexsn_trace.roots.Root.read`), which binding rebuilds
    read_root: Callable[[], Any] | None = None
    #: other places holding the same tensor (a closure cell and a default bound from it): substituted together
    also: tuple["Captured", ...] = ()


def _floating(x: object) -> bool:
    return isinstance(x, torch.Tensor) and x.is_floating_point()


class _Owner(nn.Module):
    """Holds the modules a core reads, so ``torch.func.functional_call`` can swap their tensors for a call."""

    def __init__(self, modules: Sequence[nn.Module], fn: Callable[..., Any]) -> None:
        super().__init__()
        self.owned = nn.ModuleList(modules)
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


class Captures:
    """The tensors :func:`find_captures` found, and the core taking them as trailing arguments.

    Attributes:
        core: the original callable.
        items: the :class:`Captured` tensors, in argument order.
    """

    def __init__(
        self, core: Callable[..., Any], items: Sequence[Captured], func: types.FunctionType | None = None,
        owner: Any = None, modules: Sequence[nn.Module] = (), reach: HelperReach | None = None,
    ) -> None:
        self.core, self.items = core, list(items)
        self._func, self._owner, self._modules = func, owner, list(modules)
        self._reach = reach
        #: each tensor's place as an anchor and a constant path, which :meth:`values` reads (:mod:`flexsn_trace.anchors`:
        #: under ``torch.compile`` Dynamo then guards the tensors, not the objects describing how to read them)
        self._anchors, self._places = places_of([c.read for c in self.items])

    def __len__(self) -> int:
        return len(self._places)

    def values(self) -> tuple[torch.Tensor, ...]:
        """The live tensors, in argument order.

        Raises:
            AttributeError / KeyError / IndexError / ValueError: a place no longer holds its tensor (what its
                ``read`` raises).
        """
        anchors = self._anchors
        return tuple([value_at(anchors[i], steps) for i, steps, _ in self._places])

    def names(self) -> tuple[str, ...]:
        """Where each lives, for messages."""
        return tuple(c.name for c in self.items)

    def select(self, keep: Sequence[bool]) -> "Captures":
        """Only the tensors whose flag is true (the core keeps reading the others where they live)."""
        kept = [c for c, k in zip(self.items, keep) if k]
        return Captures(self.core, kept, self._func, self._owner, self._modules, self._reach)

    def lifted(self) -> Callable[..., Any]:
        """``core`` taking its captured tensors as trailing arguments, after its own."""
        n = len(self.items)

        def lifted_core(*args: Any) -> Any:
            return self.bind(args[len(args) - n :])(*args[: len(args) - n])

        lifted_core.__name__ = getattr(self.core, "__name__", type(self.core).__name__)
        return lifted_core

    def _cell(self, kind: str, key: Any) -> types.CellType:
        """The closure cell a ``"cell"`` (the core's) or ``"hcell"`` (a helper's) place names."""
        if kind == "cell":
            assert self._func is not None and self._func.__closure__ is not None
            return self._func.__closure__[int(key)]
        assert self._reach is not None, "a helper's cell is found only with the helpers that reach it"
        helper, index = key
        cells = self._reach.helpers[int(helper)].__closure__
        assert cells is not None
        return cells[int(index)]

    def bind(self, values: Sequence[Any]) -> Callable[..., Any]:
        """``core`` reading ``values`` (in :attr:`items` order) instead of the tensors it captures.

        A tensor inside a container is substituted in a copy of each container on its
        path (:func:`flexsn_trace.places.replaced`); the core's object, its closure cells,
        globals and defaults, and the helpers it reaches (:mod:`flexsn_trace.rebind`) are
        rebuilt on copies. The originals are not touched.
        """
        func, owner = self._func, self._owner
        if func is None or not self.items:
            return self.core
        new: dict[tuple[str, Any], Any] = {}
        swap: dict[str, Any] = {}
        for item, v in zip(self.items, values):
            for c in (item, *item.also):
                if c.kind == "module":
                    swap[f"owned.{c.key[0]}.{c.key[1]}"] = v
                    continue
                at = (c.kind, c.key)
                new[at] = replaced(new[at] if at in new else c.read_root(), c.path, v) if c.read_root is not None else v
        g = func.__globals__
        subs = Substitutes({}, {}, {})
        attrs: dict[str, Any] = {}
        defaults, kwdefaults = list(func.__defaults__ or ()), dict(func.__kwdefaults__ or {})
        part = self.core if isinstance(self.core, functools.partial) else None
        pargs, pkw = (list(part.args), dict(part.keywords)) if part is not None else ([], {})
        for (kind, key), v in new.items():
            if kind in ("cell", "hcell"):  # by the cell itself: a variable nested functions share is one cell
                subs.cells[id(self._cell(kind, key))] = types.CellType(v)
            elif kind == "default":
                defaults[key] = v
            elif kind == "kwdefault":
                kwdefaults[key] = v
            elif kind in ("hdefault", "hkwdefault"):
                subs.defaults.setdefault(key[0], {})[key[1]] = v
            elif kind == "global":
                g = dict(g) if g is func.__globals__ else g
                g[key] = v
            elif kind == "hglobal":  # a global of a helper's own module
                assert self._reach is not None, "a helper's global is found only with the helpers that reach it"
                index, name = key
                subs.globals.setdefault(index, dict(self._reach.dicts[index]))[name] = v
            elif kind == "attr":
                attrs[key] = v
            elif kind == "parg":
                pargs[key] = v
            else:
                pkw[key] = v
        closure = [subs.cells.get(id(c), c) for c in func.__closure__ or ()]
        rebuilt: dict[int, types.FunctionType] = {}
        reach = self._reach
        if reach is not None and (g is not func.__globals__ or subs.globals or subs.defaults or _in_helpers(subs.cells, reach)):
            g, cells, rebuilt = rebind_helpers(reach, g if g is not func.__globals__ else dict(g), subs, closure, defaults, kwdefaults)
            for i, cell in cells.items():
                closure[i] = cell
        fn = types.FunctionType(func.__code__, g, func.__name__, tuple(defaults) or None, tuple(closure) or None)
        fn.__kwdefaults__ = kwdefaults or None
        bound: Callable[..., Any] = fn
        modules = self._modules
        if owner is not None:
            methods = reach.methods if rebuilt and reach is not None else ()  # rebuilt: they read what changed
            for name, held in reach.attr_objects if rebuilt and reach is not None else ():  # self.helper, self.fire
                base = attrs.get(name, getattr(owner, name))  # a copy already if one of its tensors was lifted
                attrs[name] = shadowed(base, {}, [(n, wrap, rebuilt[i]) for n, wrap, i in held])
            if attrs or methods:
                copied = shadowed(owner, attrs, [(name, wrap, rebuilt[i]) for name, wrap, i in methods])
                modules = [copied if m is owner else m for m in modules]  # functional_call swaps the copy's tensors
                owner = copied
            bound = types.MethodType(fn, owner)
        if part is not None:
            bound = functools.partial(bound, *pargs, **pkw)
        if not swap:
            return bound
        holder = _Owner(modules, bound)
        return lambda *args: torch.func.functional_call(holder, swap, args)


def _in_helpers(cells: dict[int, types.CellType], reach: HelperReach) -> bool:
    """Whether a helper reached holds one of the substituted cells (by ``id`` of the original)."""
    return any(id(c) in cells for h in reach.helpers for c in h.__closure__ or ())


def find_captures(core: Callable[..., Any]) -> Captures:
    """Find the floating-point tensors ``core`` reads from outside its arguments (see the module docstring).

    Returns:
        :class:`Captures` (empty when there are none, or for a callable of
        another kind: a builtin).
    """
    func, owner = core_function(core)
    if func is None:
        return Captures(core, [])
    items: list[Captured] = []
    modules: list[nn.Module] = []
    seen: dict[int, int] = {}  # id(tensor) -> its index in items

    def add(c: Captured, t: torch.Tensor) -> None:
        if id(t) in seen:  # one tensor at two places is one argument, substituted at both
            first = items[seen[id(t)]]
            items[seen[id(t)]] = first._replace(also=(*first.also, c))
        else:
            seen[id(t)] = len(items)
            items.append(c)

    def add_module(m: nn.Module, prefix: str) -> None:
        if any(m is k for k in modules):
            return
        modules.append(m)
        index = len(modules) - 1
        named = [*m.named_parameters(remove_duplicate=True), *m.named_buffers(remove_duplicate=True), *_plain_tensors(m, names)]
        for path, t in named:
            if _floating(t):
                # a plain getattr per step, which Dynamo traces and guards (not operator.attrgetter: Dynamo cannot trace
                # it, and a compiled network whose core is its own method would not compile)
                read = functools.partial(follow, m, tuple([("attr", name) for name in path.split(".")]))
                add(Captured(f"{prefix}{path}", read, "module", (index, path)), t)

    called = helpers(func, owner)
    names = names_of(func, owner, called)
    module_owner = isinstance(owner, nn.Module)
    # (root, who reads it: "" for the core itself); an nn.Module object's own tensors and submodules are its
    # parameters, buffers and plain tensors (add_module), swapped by functional_call, not attributes
    found = [
        (r, "") for r in roots(core, names if module_owner else None, names)
        if not (module_owner and r.kind == "attr" and not r.in_class and (torch.is_tensor(r.value) or isinstance(r.value, nn.Module)))
        and not (r.in_class and not shadowable(owner))  # a class body's value a copy cannot shadow: not lifted
    ]
    reach, reached = helper_reach(func, owner, called)
    cells = {id(c) for c in func.__closure__ or ()}  # a helper's cell the core holds too: found as the core's
    for h in reached:  # bind rebuilds it on its module's rebound globals, its substituted cells and defaults
        assert reach is not None
        for r in roots(h, None):
            if r.kind == "cell":
                cell = h.__closure__[r.key]  # type: ignore[index]
                if id(cell) in cells:
                    continue
                cells.add(id(cell))
            place = helper_root(r, h, func, reach)
            if place is not None:
                found.append((place, f" (read by {h.__name__})"))
    names |= held_names(r for r, _ in found)  # P["a"]["b"][KEY] with a global KEY = "w"
    def add_nested(root: Root, by: str, value: Any, below: tuple[Step, ...] = ()) -> None:
        """The tensors in containers below ``value`` (``root``'s value, or what ``below`` reaches from it)."""
        bare = root.name.rsplit(" ", 1)[-1]
        for path, leaf, liftable in nested(value, names, submodules=False):  # submodules: add_module's, below
            path = (*below, *path)
            if _floating(leaf) and liftable:
                name, read = f"{root.name}{describe(path)}{by}", reader(root.read, path)
                add(Captured(name, read, root.kind, root.key, path, root.read), leaf)
            elif isinstance(leaf, nn.Module):
                add_module(leaf, f"{bare}{describe(path)}.")

    for root, by in found:
        if _floating(root.value):
            add(Captured(root.name + by, root.read, root.kind, root.key), root.value)
        else:
            if isinstance(root.value, nn.Module):
                add_module(root.value, f"{root.name.rsplit(' ', 1)[-1]}.")
            add_nested(root, by, root.value)  # a module's: what its plain attributes hold (self.sub.cfg["w"])
    if module_owner:
        add_module(owner, "self.")
        assert isinstance(owner, nn.Module)
        for path, sub in owner.named_modules(remove_duplicate=True):  # what its submodules' plain attributes hold
            if sub is not owner:
                first, *rest = path.split(".")
                root = Root(f"self.{first}", "attr", first, functools.partial(getattr, owner, first), owner._modules[first])
                add_nested(root, "", sub, tuple(("attr", n) for n in rest))
    return Captures(core, items, func, owner, modules, reach)


def _plain_tensors(m: nn.Module, names: frozenset[str]) -> list[tuple[str, torch.Tensor]]:
    """``(dotted path, tensor)`` of the floating-point tensors held as plain attributes (not parameters or buffers)
    by ``m`` and its submodules, under names in ``names``: ``self.th = torch.tensor(1.0)``.

    ``torch.func.functional_call`` swaps them as it swaps parameters (``swap_tensor`` sets a plain attribute),
    so they are lifted as the module's other tensors are; unlike those they do not follow ``.to()``.
    """
    found: list[tuple[str, torch.Tensor]] = []
    for sub_name, sub in m.named_modules(remove_duplicate=True):
        for name, value in vars(sub).items():
            if name in names and name not in MODULE_STATE and _floating(value):
                found.append((f"{sub_name}.{name}" if sub_name else name, value))
    return found


def used_arguments(graph: fx.Graph, first: int) -> list[bool]:
    """For each placeholder from index ``first`` on: whether the graph reads it."""
    return [bool(p.users) for p in placeholders(graph)[first:]]
