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
``nn.Module`` (or the tensor attributes of a plain object); for an
``nn.Module`` core, its own parameters and buffers. Only floating-point
tensors are lifted; the caller keeps those the traced step actually reads
(:func:`used_arguments`).
"""

from __future__ import annotations

import copy
import functools
import operator
import types
from typing import Any, Callable, NamedTuple, Sequence

import torch
from torch import fx, nn

from .info import placeholders

__all__ = ["Captured", "Captures", "default_arguments", "find_captures", "read_default", "used_arguments"]


class Captured(NamedTuple):
    """One tensor a core reads from outside its arguments.

    Attributes:
        name: where it lives, for messages (``"closure w"``, ``"self.tau"``, ``"global W"``).
        read: returns the live tensor (read at every call: an optimizer's
            in-place update or a reassignment is seen).
        kind: ``"cell"``, ``"global"``, ``"default"``, ``"kwdefault"``,
            ``"module"`` or ``"attr"``: how the lifted core substitutes it.
        key: the closure cell's index, the global's name, the index in
            ``__defaults__``, the keyword-only parameter's name, ``(module
            index, path)`` or the attribute's name.
    """

    name: str
    read: Callable[[], torch.Tensor]
    kind: str
    key: Any


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
        owner: Any = None, modules: Sequence[nn.Module] = (),
    ) -> None:
        self.core, self.items = core, list(items)
        self._func, self._owner, self._modules = func, owner, list(modules)

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
        return Captures(self.core, [c for c, k in zip(self.items, keep) if k], self._func, self._owner, self._modules)

    def lifted(self) -> Callable[..., Any]:
        """``core`` taking its captured tensors as trailing arguments, after its own."""
        n = len(self.items)

        def lifted_core(*args: Any) -> Any:
            return self.bind(args[len(args) - n :])(*args[: len(args) - n])

        lifted_core.__name__ = getattr(self.core, "__name__", type(self.core).__name__)
        return lifted_core

    def bind(self, values: Sequence[Any]) -> Callable[..., Any]:
        """``core`` reading ``values`` (in :attr:`items` order) instead of the tensors it captures."""
        func, owner = self._func, self._owner
        if func is None or not self.items:
            return self.core
        closure = list(func.__closure__ or ())
        g = func.__globals__
        attrs: dict[str, Any] = {}
        swap: dict[str, Any] = {}
        defaults, kwdefaults = list(func.__defaults__ or ()), dict(func.__kwdefaults__ or {})
        for c, v in zip(self.items, values):
            if c.kind == "cell":
                closure[c.key] = types.CellType(v)
            elif c.kind == "default":
                defaults[c.key] = v
            elif c.kind == "kwdefault":
                kwdefaults[c.key] = v
            elif c.kind == "global":
                g = dict(g) if g is func.__globals__ else g
                g[c.key] = v
            elif c.kind == "attr":
                attrs[c.key] = v
            else:
                index, path = c.key
                swap[f"owned.{index}.{path}"] = v
        fn = types.FunctionType(func.__code__, g, func.__name__, tuple(defaults) or None, tuple(closure) or None)
        fn.__kwdefaults__ = kwdefaults or None
        bound: Callable[..., Any] = fn
        if owner is not None:
            if attrs:
                owner = copy.copy(owner)
                for name, v in attrs.items():
                    setattr(owner, name, v)
            bound = types.MethodType(fn, owner)
        if not swap:
            return bound
        holder = _Owner(self._modules, bound)
        return lambda *args: torch.func.functional_call(holder, swap, args)


def core_function(core: Callable[..., Any]) -> tuple[types.FunctionType | None, Any]:
    """The Python function a core runs and the object it is bound to: ``(function, owner)``.

    A bound method gives its function and ``self``; an ``nn.Module`` its class's
    ``forward`` and itself; another callable object its class's ``__call__`` and
    itself; a plain function itself and ``None``. ``(None, None)`` for a callable
    of another kind (a builtin, a ``functools.partial``). Shared by
    :func:`find_captures` and :func:`flexsn_trace.find_constants`, which look in
    the same places.
    """
    func: Any = core
    owner: Any = None
    if isinstance(core, types.MethodType):
        func, owner = core.__func__, core.__self__
    elif isinstance(core, nn.Module):
        func, owner = type(core).forward, core
    elif not isinstance(core, types.FunctionType) and hasattr(core, "__dict__"):
        func, owner = getattr(type(core), "__call__", None), core
    return (func, owner) if isinstance(func, types.FunctionType) else (None, None)


def default_arguments(func: types.FunctionType) -> list[tuple[str, Any, str, object]]:
    """``func``'s default argument values: ``(kind, key, name, value)`` per parameter that has one.

    ``kind`` is ``"default"`` (``key``: the index in ``__defaults__``) or
    ``"kwdefault"`` (a keyword-only parameter; ``key``: its name). Shared by
    :func:`find_captures` (tensors) and :func:`flexsn_trace.find_constants` (numbers).
    """
    code = func.__code__
    defaults = func.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(defaults) : code.co_argcount]
    out: list[tuple[str, Any, str, object]] = [("default", i, n, v) for i, (n, v) in enumerate(zip(names, defaults))]
    out += [("kwdefault", n, n, v) for n, v in (func.__kwdefaults__ or {}).items()]
    return out


def read_default(func: types.FunctionType, kind: str, key: Any) -> Any:
    """The current value of one of ``func``'s default arguments (see :func:`default_arguments`).

    Raises:
        IndexError / KeyError / TypeError: the default was removed since.
    """
    if kind == "default":
        return func.__defaults__[key]  # type: ignore[index]
    return func.__kwdefaults__[key]  # type: ignore[index]


def find_captures(core: Callable[..., Any]) -> Captures:
    """Find the floating-point tensors ``core`` reads from outside its arguments (see the module docstring).

    Returns:
        :class:`Captures` (empty when there are none, or for a callable of
        another kind: a builtin, a ``functools.partial``).
    """
    func, owner = core_function(core)
    if func is None:
        return Captures(core, [])
    items: list[Captured] = []
    modules: list[nn.Module] = []

    def add_module(m: nn.Module, prefix: str) -> None:
        modules.append(m)
        index = len(modules) - 1
        named = [*m.named_parameters(remove_duplicate=True), *m.named_buffers(remove_duplicate=True)]
        for path, t in named:
            if _floating(t):
                items.append(Captured(f"{prefix}{path}", functools.partial(operator.attrgetter(path), m), "module", (index, path)))

    free = func.__code__.co_freevars
    for i, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if _floating(value):
            items.append(Captured(f"closure {free[i]}", functools.partial(getattr, cell, "cell_contents"), "cell", i))
        elif isinstance(value, nn.Module):
            add_module(value, f"{free[i]}.")
    for name in dict.fromkeys(func.__code__.co_names):
        if _floating(func.__globals__.get(name)):
            items.append(Captured(f"global {name}", functools.partial(func.__globals__.__getitem__, name), "global", name))
    for kind, key, name, value in default_arguments(func):
        if _floating(value):
            items.append(Captured(f"default {name}", functools.partial(read_default, func, kind, key), kind, key))
        elif isinstance(value, nn.Module):
            add_module(value, f"{name}.")
    if isinstance(owner, nn.Module):
        add_module(owner, "self.")
    elif owner is not None:
        for name, value in sorted(vars(owner).items()):
            if _floating(value):
                items.append(Captured(f"self.{name}", functools.partial(getattr, owner, name), "attr", name))
    return Captures(core, items, func, owner, modules)


def used_arguments(graph: fx.Graph, first: int) -> list[bool]:
    """For each placeholder from index ``first`` on: whether the graph reads it."""
    return [bool(p.users) for p in placeholders(graph)[first:]]
