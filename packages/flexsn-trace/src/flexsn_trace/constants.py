"""Python numbers a core reads from outside its arguments: constants of its kernels, watched for changes.

Tracing turns a global ``THRESH = 1.0``, a closure's ``tau`` or an object's
``self.v_threshold`` into literals of the generated code. A later
``THRESH = 0.5`` changes what the eager loop computes but not the kernels,
which would then disagree with the core without a word. As ``torch.compile``
guards the globals a frame reads, :func:`find_constants` records the numbers
(``bool``, ``int``, ``float``) a core reads where :func:`flexsn_trace.find_captures`
looks for tensors (closure cells, globals named in its code, default argument
values, and the attributes its object's methods read), and :meth:`Constants.changed` says which
of them no longer hold their traced value, so the caller traces again.

Numbers read only through further calls (a helper function's own globals)
are not watched: pass such a value as a static input, or keep it fixed.
"""

from __future__ import annotations

import dis
import functools
import operator
import types
from typing import Any, Callable, NamedTuple

from .capture import core_function, default_arguments, read_default

__all__ = ["Constant", "Constants", "find_constants"]

_NUMBERS = (bool, int, float)
_MISSING = object()
#: what reading a place that no longer holds its value raises
_GONE = (AttributeError, ValueError, KeyError, IndexError, TypeError)


class Constant(NamedTuple):
    """One number a core reads from outside its arguments.

    Attributes:
        name: where it lives, for messages (``"global THRESH"``, ``"closure tau"``, ``"self.tau"``).
        read: returns its current value (``_MISSING`` once deleted).
        value: its value when found (what the kernels were traced with).
    """

    name: str
    read: Callable[[], object]
    value: object


class Constants:
    """The numbers :func:`find_constants` found; :meth:`changed` compares them with their current values.

    The check runs before every call, so the common case (nothing changed) is
    one C-level getter per place (``operator.attrgetter`` over an object's
    attributes, ``operator.itemgetter`` over a module's globals) and one tuple
    comparison; only a difference takes the slow path that names it.
    """

    __slots__ = ("items", "_reads", "_values")

    def __init__(self, items: list[Constant], reads: list[tuple[Callable[[Any], Any], Any, bool]] = ()) -> None:  # type: ignore[assignment]
        self.items = tuple(items)
        #: (getter, what it reads from, whether it returns a tuple), in the order of ``items``
        self._reads = tuple(reads)
        self._values = tuple(c.value for c in items)

    def __len__(self) -> int:
        return len(self.items)

    def _snapshot(self) -> tuple[object, ...] | None:
        out: list[object] = []
        try:
            for get, source, many in self._reads:
                if many:
                    out.extend(get(source))
                else:
                    out.append(get(source))
        except _GONE:
            return None
        return tuple(out)

    def changed(self) -> list[str]:
        """``"<name> (<traced> -> <now>)"`` for each number whose value changed; ``[]`` when none did.

        Values compare with ``==`` after ``is`` (a NaN never reassigned is
        unchanged; ``2`` for ``2.0`` is no change: both trace alike).
        """
        reads = self._reads
        if len(reads) == 1:  # the usual case, without the loop: one getter, one comparison
            get, source, many = reads[0]
            try:
                now = get(source)
            except _GONE:
                now = None
            if (now if many else (now,)) == self._values:
                return []
        elif reads and self._snapshot() == self._values:
            return []
        out: list[str] = []
        for name, read, value in self.items:
            now = _read(read)
            if now is not value and (now is _MISSING or now != value):
                out.append(f"{name} ({value!r} -> {'deleted' if now is _MISSING else repr(now)})")
        return out


def _read(read: Callable[[], object]) -> object:
    try:
        return read()
    except _GONE:  # a deleted attribute, an emptied cell, a default removed
        return _MISSING


def _defaults_now(places: list[tuple[str, Any]], func: types.FunctionType) -> tuple[object, ...]:
    """The current values of ``func``'s default arguments at ``places`` (``(kind, key)``, see
    :func:`flexsn_trace.capture.default_arguments`)."""
    return tuple([read_default(func, kind, key) for kind, key in places])


def _number(x: object) -> bool:
    return type(x) in _NUMBERS


def _method_names(cls: type) -> set[str]:
    """Attribute names the methods of ``cls`` and its user base classes read (their code's ``co_names``)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] in {"builtins", "torch"}:
            continue
        for value in vars(klass).values():
            fn = getattr(value, "__func__", value)
            if isinstance(fn, types.FunctionType):
                names.update(_loaded_attributes(fn.__code__))
    return names


def _loaded_attributes(co: types.CodeType) -> set[str]:
    """Attribute names ``co`` (and code nested in it) reads; ``co_names`` would add the ones it only assigns."""
    names = {i.argval for i in dis.get_instructions(co) if i.opname in ("LOAD_ATTR", "LOAD_METHOD")}
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            names |= _loaded_attributes(c)
    return names


def find_constants(core: Callable[..., Any]) -> Constants:
    """Find the numbers ``core`` reads from outside its arguments (see the module docstring).

    Args:
        core: a function, bound method, ``nn.Module`` or callable object, as
            :func:`flexsn_trace.find_captures` takes it.

    Returns:
        :class:`Constants` (empty for a callable of another kind).
    """
    func, owner = core_function(core)
    if func is None:
        return Constants([])
    items: list[Constant] = []
    reads: list[tuple[Callable[[Any], Any], Any, bool]] = []
    free = func.__code__.co_freevars
    for i, cell in enumerate(func.__closure__ or ()):
        read = functools.partial(getattr, cell, "cell_contents")
        value = _read(read)
        if _number(value):
            items.append(Constant(f"closure {free[i]}", read, value))
            reads.append((operator.attrgetter("cell_contents"), cell, False))
    names = [n for n in dict.fromkeys(func.__code__.co_names) if _number(func.__globals__.get(n, _MISSING))]
    for name in names:
        items.append(Constant(f"global {name}", functools.partial(func.__globals__.__getitem__, name), func.__globals__[name]))
    if names:
        reads.append((operator.itemgetter(*names), func.__globals__, len(names) > 1))
    defaults = [(kind, key, name, value) for kind, key, name, value in default_arguments(func) if _number(value)]
    for kind, key, name, value in defaults:
        items.append(Constant(f"default {name}", functools.partial(read_default, func, kind, key), value))
    if defaults:
        reads.append((functools.partial(_defaults_now, [(kind, key) for kind, key, _, _ in defaults]), func, True))
    if owner is not None and hasattr(owner, "__dict__"):
        read_names = _method_names(type(owner))
        attrs = [n for n, v in sorted(vars(owner).items()) if n in read_names and _number(v)]
        for name in attrs:
            items.append(Constant(f"self.{name}", functools.partial(getattr, owner, name), getattr(owner, name)))
        if attrs:
            reads.append((operator.attrgetter(*attrs), owner, len(attrs) > 1))
    return Constants(items, reads)
