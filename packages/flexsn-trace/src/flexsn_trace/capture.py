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
read); for a bound method, the parameters and buffers of its
``nn.Module`` and the tensors it holds as plain attributes that the code
names (``self.th = torch.tensor(1.0)``), or the tensor attributes of a plain
object; for an ``nn.Module`` core, its own parameters, buffers and plain tensor attributes; a ``functools.partial``'s
arguments and keywords. From each of these the search goes on into lists,
tuples, dicts, namespaces, user objects and user modules (``P["thr"]``,
``cfg.thr``; :mod:`flexsn_trace.places`). Also searched: the globals of the
helper functions the core reaches by global names (in its own module or
imported from another, calls deep) or by its closure cells (``fire(h)``
reading ``THRESH``; :func:`flexsn_trace.places.helpers`): binding rebuilds
those helpers on copies of their modules' globals holding the substituted
tensors, and hands the core the rebuilt helpers. Only floating-point tensors are
lifted; the caller keeps those the traced step actually reads
(:func:`used_arguments`). A tensor read from anywhere else (a class
attribute, a container held as a plain attribute of an ``nn.Module``, the globals of a helper
reached through an object or a class) is recorded as a foreign constant
(:data:`flexsn_trace.FOREIGN_PREFIX`), which codegen refuses: that core
falls back with a warning instead of freezing the tensor's value.
"""

from __future__ import annotations

import copy
import functools
import types
from typing import Any, Callable, NamedTuple, Sequence

import torch
from torch import fx, nn

from .info import placeholders
from .places import Root, code_names, core_function, describe, helpers, names_of, nested, reader, replaced, roots

__all__ = ["Captured", "Captures", "find_captures", "used_arguments"]


class HelperReach(NamedTuple):
    """Where a core's function reaches helpers by name (:func:`_helper_reach`): what binding rebuilds.

    Attributes:
        dicts: the module globals of the core (first) and of every helper reached.
        links: ``(index into dicts, name)``: a global, named by the code of the core or of a
            helper reached, that holds a helper reached.
        cells: the core's closure cells that hold a helper reached.
    """

    dicts: tuple[dict[str, Any], ...]
    links: tuple[tuple[int, str], ...]
    cells: tuple[int, ...]


class Captured(NamedTuple):
    """One tensor a core reads from outside its arguments.

    Attributes:
        name: where it lives, for messages (``"closure w"``, ``"self.tau"``, ``"global W"``).
        read: returns the live tensor (read at every call: an optimizer's
            in-place update or a reassignment is seen).
        kind: ``"cell"``, ``"global"``, ``"hglobal"`` (a global of a helper's module, not the
            core's), ``"default"``, ``"kwdefault"``, ``"module"``, ``"attr"``, ``"parg"`` or
            ``"pkw"``: how the lifted core substitutes it (:class:`flexsn_trace.places.Root`).
        key: the closure cell's index, the global's name, ``(HelperReach.dicts index, name)``, the index in
            ``__defaults__``, the keyword-only parameter's name, ``(module
            index, path)``, the attribute's name, or the partial's argument index or keyword.
    """

    name: str
    read: Callable[[], torch.Tensor]
    kind: str
    key: Any
    #: the container steps from the root the kind and key name (:mod:`flexsn_trace.places`); ``()``: the root itself
    path: tuple[tuple[str, Any], ...] = ()
    #: with a ``path``: reads the root's value now (:attr:`flexsn_trace.places.Root.read`), which binding rebuilds
    read_root: Callable[[], Any] | None = None


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

    def __len__(self) -> int:
        return len(self.items)

    def values(self) -> tuple[torch.Tensor, ...]:
        """The live tensors, in argument order."""
        return tuple(c.read() for c in self.items)

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

    def bind(self, values: Sequence[Any]) -> Callable[..., Any]:
        """``core`` reading ``values`` (in :attr:`items` order) instead of the tensors it captures.

        A tensor inside a container is substituted in a copy of each container on its
        path (:func:`flexsn_trace.places.replaced`); the originals are not touched.
        """
        func, owner = self._func, self._owner
        if func is None or not self.items:
            return self.core
        new: dict[tuple[str, Any], Any] = {}
        swap: dict[str, Any] = {}
        for c, v in zip(self.items, values):
            if c.kind == "module":
                index, path = c.key
                swap[f"owned.{index}.{path}"] = v
                continue
            at = (c.kind, c.key)
            if c.read_root is not None:
                v = replaced(new[at] if at in new else c.read_root(), c.path, v)
            new[at] = v
        closure = list(func.__closure__ or ())
        g = func.__globals__
        others: dict[int, dict[str, Any]] = {}  # rebound copies of helpers' module globals, by HelperReach.dicts index
        attrs: dict[str, Any] = {}
        defaults, kwdefaults = list(func.__defaults__ or ()), dict(func.__kwdefaults__ or {})
        part = self.core if isinstance(self.core, functools.partial) else None
        pargs, pkw = (list(part.args), dict(part.keywords)) if part is not None else ([], {})
        for (kind, key), v in new.items():
            if kind == "cell":
                closure[key] = types.CellType(v)
            elif kind == "default":
                defaults[key] = v
            elif kind == "kwdefault":
                kwdefaults[key] = v
            elif kind == "global":
                g = dict(g) if g is func.__globals__ else g
                g[key] = v
            elif kind == "hglobal":  # a global of a helper's own module
                assert self._reach is not None, "a helper's global is found only with the helpers that reach it"
                index, name = key
                others.setdefault(index, dict(self._reach.dicts[index]))[name] = v
            elif kind == "attr":
                attrs[key] = v
            elif kind == "parg":
                pargs[key] = v
            else:
                pkw[key] = v
        if self._reach is not None and (g is not func.__globals__ or others):
            g, cells = _rebind_helpers(self._reach, g if g is not func.__globals__ else dict(g), others, closure)
            for i, cell in cells.items():
                closure[i] = cell
        fn = types.FunctionType(func.__code__, g, func.__name__, tuple(defaults) or None, tuple(closure) or None)
        fn.__kwdefaults__ = kwdefaults or None
        bound: Callable[..., Any] = fn
        if owner is not None:
            if attrs:
                owner = copy.copy(owner)
                for name, v in attrs.items():
                    setattr(owner, name, v)
            bound = types.MethodType(fn, owner)
        if part is not None:
            bound = functools.partial(bound, *pargs, **pkw)
        if not swap:
            return bound
        holder = _Owner(self._modules, bound)
        return lambda *args: torch.func.functional_call(holder, swap, args)


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
    seen: set[int] = set()

    def add(c: Captured, t: torch.Tensor) -> None:
        if id(t) not in seen:  # one tensor at two places is one argument
            seen.add(id(t))
            items.append(c)

    def add_module(m: nn.Module, prefix: str) -> None:
        if any(m is k for k in modules):
            return
        modules.append(m)
        index = len(modules) - 1
        named = [*m.named_parameters(remove_duplicate=True), *m.named_buffers(remove_duplicate=True), *_plain_tensors(m, names)]
        for path, t in named:
            if _floating(t):
                read = functools.partial(_module_tensor, m, tuple(path.split(".")))
                add(Captured(f"{prefix}{path}", read, "module", (index, path)), t)

    names = names_of(func, owner)
    # an nn.Module object's tensors are its parameters and buffers (swapped by functional_call), not attributes
    # (root, who reads it: "" for the core itself)
    found = [(r, "") for r in roots(core, frozenset() if isinstance(owner, nn.Module) else None)]
    reach, reached = _helper_reach(func, helpers(func, owner))
    for h in reached:  # bind rebuilds it on its module's rebound globals
        names = names | code_names(h.__code__)
        found += [(_helper_global(r, h, func, reach), f" (read by {h.__name__})") for r in roots(h, None) if r.kind == "global"]
    for root, by in found:
        bare = root.name.rsplit(" ", 1)[-1]
        if _floating(root.value):
            add(Captured(root.name + by, root.read, root.kind, root.key), root.value)
        elif isinstance(root.value, nn.Module):
            add_module(root.value, f"{bare}.")
        else:
            for path, leaf, liftable in nested(root.value, names):
                if _floating(leaf) and liftable:
                    name, read = f"{root.name}{describe(path)}{by}", reader(root.read, path)
                    add(Captured(name, read, root.kind, root.key, path, root.read), leaf)
                elif isinstance(leaf, nn.Module):
                    add_module(leaf, f"{bare}{describe(path)}.")
    if isinstance(owner, nn.Module):
        add_module(owner, "self.")
    return Captures(core, items, func, owner, modules, reach)


#: what every ``nn.Module`` keeps in its ``__dict__`` (``training``, the parameter, buffer, module and hook dicts)
_MODULE_STATE = frozenset(vars(nn.Module()))


def _plain_tensors(m: nn.Module, names: frozenset[str]) -> list[tuple[str, torch.Tensor]]:
    """``(dotted path, tensor)`` of the floating-point tensors held as plain attributes (not parameters or buffers)
    by ``m`` and its submodules, under names in ``names``: ``self.th = torch.tensor(1.0)``.

    ``torch.func.functional_call`` swaps them as it swaps parameters (``swap_tensor`` sets a plain attribute),
    so they are lifted as the module's other tensors are; unlike those they do not follow ``.to()``.
    """
    found: list[tuple[str, torch.Tensor]] = []
    for sub_name, sub in m.named_modules(remove_duplicate=True):
        for name, value in vars(sub).items():
            if name in names and name not in _MODULE_STATE and _floating(value):
                found.append((f"{sub_name}.{name}" if sub_name else name, value))
    return found


def _helper_global(root: Root, h: types.FunctionType, func: types.FunctionType, reach: HelperReach | None) -> Root:
    """A global ``h`` reads, as a root binding can substitute: the core's own (``"global"``), or another
    module's (``"hglobal"``, keyed by its :attr:`HelperReach.dicts` index and name)."""
    if h.__globals__ is func.__globals__ or reach is None:
        return root
    index = next(i for i, d in enumerate(reach.dicts) if d is h.__globals__)
    module = h.__globals__.get("__name__")
    name = f"global {module}.{root.key}" if isinstance(module, str) else root.name
    return root._replace(name=name, kind="hglobal", key=(index, root.key))


def _rebind_helpers(
    reach: HelperReach, g: dict[str, Any], others: dict[int, dict[str, Any]], closure: Sequence[types.CellType]
) -> tuple[dict[str, Any], dict[int, types.CellType]]:
    """The core's rebound globals ``g`` and closure cells with every helper it reaches rebuilt on rebound globals.

    ``others``: rebound copies of the helpers' module globals (by :attr:`HelperReach.dicts` index) where a
    lifted global was substituted; every other module reached gets a plain copy, so that a helper reached
    through it reads the rebuilt helpers. Returns ``(g, {cell index: new cell})``.
    """
    copies = {0: g, **others}
    for i, d in enumerate(reach.dicts):
        copies.setdefault(i, dict(d))
    by_dict = {id(d): copies[i] for i, d in enumerate(reach.dicts)}
    rebuilt: dict[int, Any] = {}

    def rebuild(value: Any) -> Any:
        new = by_dict.get(id(getattr(value, "__globals__", None)))
        if not isinstance(value, types.FunctionType) or new is None:
            return value  # reassigned since the search: left to read where it reads
        if id(value) not in rebuilt:
            fn = types.FunctionType(value.__code__, new, value.__name__, value.__defaults__, value.__closure__)
            fn.__kwdefaults__, fn.__qualname__ = value.__kwdefaults__, value.__qualname__
            fn.__dict__.update(value.__dict__)
            rebuilt[id(value)] = fn
        return rebuilt[id(value)]

    for i, name in reach.links:
        if name in copies[i]:  # deleted since the search: nothing to hand over
            copies[i][name] = rebuild(copies[i][name])
    cells = {i: types.CellType(rebuild(closure[i].cell_contents)) for i in reach.cells}
    return copies[0], cells


def _helper_reach(
    func: types.FunctionType, found: Sequence[types.FunctionType]
) -> tuple[HelperReach | None, list[types.FunctionType]]:
    """The helpers of ``found`` that ``func`` reaches by global names and closure cells, and where.

    From ``func``'s code and closure cells, then from each helper's code, a global name holding
    one of ``found`` is a link, in whatever module the helper lives. Only those helpers can be
    handed rebound globals (by rebuilding them, :meth:`Captures.bind`); a helper reached through
    an object or a class keeps reading its own. Returns :class:`HelperReach` (``None`` when no
    helper is reached) and the helpers, each once, in the order the search met them.
    """
    wanted = {id(h): h for h in found}
    dicts: list[dict[str, Any]] = [func.__globals__]
    links: list[tuple[int, str]] = []
    cells: list[int] = []
    reached: dict[int, types.FunctionType] = {}

    def index_of(d: dict[str, Any]) -> int:
        for i, known in enumerate(dicts):
            if known is d:
                return i
        dicts.append(d)
        return len(dicts) - 1

    for i, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if id(value) in wanted:
            cells.append(i)
            reached.setdefault(id(value), value)
    frontier = [func, *reached.values()]
    while frontier:
        nxt: list[types.FunctionType] = []
        for fn in frontier:
            g = fn.__globals__
            for name in dict.fromkeys(fn.__code__.co_names):
                value = g.get(name)
                if id(value) not in wanted or value is func:
                    continue
                link = (index_of(g), name)
                if link not in links:
                    links.append(link)
                if id(value) not in reached:
                    reached[id(value)] = wanted[id(value)]
                    nxt.append(wanted[id(value)])
        frontier = nxt
    if not reached:
        return None, []
    for h in reached.values():
        index_of(h.__globals__)
    return HelperReach(tuple(dicts), tuple(links), tuple(cells)), list(reached.values())


def _module_tensor(m: nn.Module, path: tuple[str, ...]) -> Any:
    """The tensor at dotted ``path`` below ``m`` now: a plain ``getattr`` per step, which Dynamo traces and guards
    (it cannot trace ``operator.attrgetter``: a compiled network whose core is its own method would not compile)."""
    value: Any = m
    for name in path:
        value = getattr(value, name)
    return value


def used_arguments(graph: fx.Graph, first: int) -> list[bool]:
    """For each placeholder from index ``first`` on: whether the graph reads it."""
    return [bool(p.users) for p in placeholders(graph)[first:]]
