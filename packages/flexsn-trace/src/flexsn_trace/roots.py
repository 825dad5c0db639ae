"""The values a core's code names directly: where :mod:`flexsn_trace.places`' search starts.

A *root* is a closure cell, a global named in the code (``co_names``), a default argument value, an attribute
of the object the core is bound to (its own, or its class body's: :func:`class_attributes`), or an argument or
keyword a ``functools.partial`` binds. :func:`roots` lists them for a core, each with a ``read`` that gives the
value there now, so that a rebinding is seen at the next call.
"""

from __future__ import annotations

import functools
import operator
import types
from typing import Any, Callable, NamedTuple

from torch import nn

from .kinds import _builtin_or_torch, own_attributes, slot_names

__all__ = ["Root", "class_attributes", "core_function", "default_arguments", "read_default", "roots"]


class Root(NamedTuple):
    """A value the core's code names directly, where :func:`nested` starts.

    Attributes:
        name: for messages (``"closure w"``, ``"global cfg"``, ``"self.tau"``, ``"partial keyword thr"``).
        kind: ``"cell"``, ``"global"``, ``"default"``, ``"kwdefault"``, ``"attr"`` (of the
            core's object), ``"parg"`` or ``"pkw"`` (a ``functools.partial``'s argument or keyword).
        key: the closure cell's index, the global's name, the index in ``__defaults__``, the
            keyword-only parameter's name, the attribute's name, the partial's argument index or keyword.
        read: returns the value there now (raises ``AttributeError``/``KeyError``/``IndexError``/
            ``TypeError``/``ValueError`` once it is gone).
        value: the value when found.
        in_class: an ``"attr"`` the object reads from its class (``th = 1.0`` in the class body, read
            as ``self.th``), which some ``torch.compile`` versions do not guard.
    """

    name: str
    kind: str
    key: Any
    read: Callable[[], Any]
    value: Any
    in_class: bool = False


def core_function(core: Callable[..., Any]) -> tuple[types.FunctionType | None, Any]:
    """The Python function a core runs and the object it is bound to: ``(function, owner)``.

    A bound method gives its function and ``self``; an ``nn.Module`` its class's
    ``forward`` and itself; another callable object its class's ``__call__`` and
    itself; a plain function itself and ``None``; a ``functools.partial`` what its
    ``func`` gives. ``(None, None)`` for a callable of another kind (a builtin).
    """
    if isinstance(core, functools.partial):
        return core_function(core.func)
    func: Any = core
    owner: Any = None
    if isinstance(core, types.MethodType):
        func, owner = core.__func__, core.__self__
    elif isinstance(core, nn.Module):
        func, owner = type(core).forward, core
    elif not isinstance(core, types.FunctionType) and (hasattr(core, "__dict__") or slot_names(type(core))):
        func, owner = getattr(type(core), "__call__", None), core
    return (func, owner) if isinstance(func, types.FunctionType) else (None, None)


def default_arguments(func: types.FunctionType) -> list[tuple[str, Any, str, object]]:
    """``func``'s default argument values: ``(kind, key, name, value)`` per parameter that has one.

    ``kind`` is ``"default"`` (``key``: the index in ``__defaults__``) or
    ``"kwdefault"`` (a keyword-only parameter; ``key``: its name).
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


def class_attributes(owner: Any, names: frozenset[str]) -> list[tuple[str, Any]]:
    """``(name, value)`` for what ``owner`` reads from its class under ``names``, in name order.

    An attribute of a class body (``th = 1.0``, ``th = torch.tensor(1.0)``) read as ``self.th``, where
    ``owner``'s own ``__dict__`` does not shadow it. Descriptors (functions, properties, static and
    class methods) are code, not values; the classes of ``builtins`` and of torch are not searched.
    """
    own = own_attributes(owner)
    out: list[tuple[str, Any]] = []
    for name in sorted(names):
        if name in own or name.startswith("__"):
            continue
        for klass in type(owner).__mro__:
            if name in vars(klass):
                value = vars(klass)[name]
                if not _builtin_or_torch(klass) and not hasattr(type(value), "__get__"):
                    out.append((name, value))
                break
    return out


def roots(core: Callable[..., Any], owner_names: frozenset[str] | None, class_names: frozenset[str] = frozenset()) -> list[Root]:
    """The values ``core``'s code names directly (see the module docstring), in argument-lifting order.

    ``owner_names``: the attributes of the core's object to take (``None``: all of them;
    an ``nn.Module`` object's parameters and buffers are not attributes here, its
    submodules are: ``self.fire``).
    ``class_names``: the attributes the object reads from its class under these names
    (:func:`class_attributes`) are taken too, as ``"attr"`` roots marked ``in_class``.
    Globals are those the function's code names (``co_names``).
    """
    func, owner = core_function(core)
    if func is None:
        return []
    out: list[Root] = []
    free = func.__code__.co_freevars
    for i, cell in enumerate(func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        out.append(Root(f"closure {free[i]}", "cell", i, functools.partial(getattr, cell, "cell_contents"), value))
    g = func.__globals__
    for name in dict.fromkeys(func.__code__.co_names):
        if name in g:
            # operator.getitem, not g.__getitem__: Dynamo traces the one, not the other (torch 2.11), and guards on it
            out.append(Root(f"global {name}", "global", name, functools.partial(operator.getitem, g, name), g[name]))
    for kind, key, name, value in default_arguments(func):
        out.append(Root(f"default {name}", kind, key, functools.partial(read_default, func, kind, key), value))
    if owner is not None:
        own = own_attributes(owner)
        if isinstance(owner, nn.Module):  # its submodules are attributes to the code: self.act(x), self.fire(h)
            own.update(owner._modules)
        for name, value in sorted(own.items()):
            if owner_names is None or name in owner_names:
                out.append(Root(f"self.{name}", "attr", name, functools.partial(getattr, owner, name), value))
        for name, value in class_attributes(owner, class_names):
            out.append(Root(f"self.{name}", "attr", name, functools.partial(getattr, owner, name), value, True))
    if isinstance(core, functools.partial):
        for i, value in enumerate(core.args):
            out.append(Root(f"partial argument {i}", "parg", i, functools.partial(operator.getitem, core.args, i), value))
        for name, value in core.keywords.items():
            out.append(Root(f"partial keyword {name}", "pkw", name, functools.partial(operator.getitem, core.keywords, name), value))
    return out
