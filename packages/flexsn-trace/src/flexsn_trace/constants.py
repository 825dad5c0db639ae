"""Python numbers a core reads from outside its arguments: constants of its kernels, watched for changes.

Tracing turns a global ``THRESH = 1.0``, a closure's ``tau`` or an object's
``self.v_threshold`` into literals of the generated code. A later
``THRESH = 0.5`` changes what the eager loop computes but not the kernels,
which would then disagree with the core without a word. As ``torch.compile``
guards the globals a frame reads, :func:`find_constants` records the numbers
(``bool``, ``int``, ``float``, and NumPy's scalars: :func:`flexsn_trace.kinds.is_number`) a core reads where :func:`flexsn_trace.find_captures`
looks for tensors (closure cells, globals named in its code, default argument
values, the attributes its object's methods read, a ``functools.partial``'s
arguments, and what lists, dicts, namespaces, user objects, user modules and
user classes among them hold: ``P["thr"]``, ``cfg.THRESH``, ``K.thr``;
:mod:`flexsn_trace.places`), and :meth:`Constants.changed` says which
of them no longer hold their traced value, so the caller traces again.

The functions the core calls are searched too (:func:`flexsn_trace.places.helpers`:
its object's methods, user functions and user classes' functions its globals
and closures hold, up to six calls deep): a helper's global ``THRESH`` is
watched as ``"global THRESH (read by fire)"``. Library code is not searched.

A *flag* the core may branch on (a ``str``, ``bytes``, ``None`` or an enum member: ``if MODE == "soft"``) is
watched as a number is (:func:`flexsn_trace.kinds.is_constant`): the trace keeps only the branch taken. A ``str`` a
root holds is followed as a key or attribute name (:func:`flexsn_trace.places.held_names`: ``CFG["a"]["b"][KEY]``).
So is code the core calls, which the trace inlines (:func:`flexsn_trace.kinds.is_code`: ``ACT = torch.tanh``
after ``torch.sigmoid``), compared by identity.

A NumPy array the search meets (``TH = np.array([1.0])``, read as ``TH[0]``, ``float(TH)`` or
``torch.from_numpy(TH)``) holds numbers the trace bakes in as well, and can change in place (``TH[0] = 0.3``):
it is watched by its contents (:class:`ArrayContents`), up to :data:`MAX_ARRAY_ELEMENTS` elements; so is a set
of numbers (:func:`by_contents`).

A number read where the search cannot follow (an attribute under a computed name, ``getattr(cfg, key)``; a
global through ``globals()``; an import inside the core), below the search's depth
(:data:`flexsn_trace.places.MAX_DEPTH` + :data:`flexsn_trace.places.MAX_NAMED_DEPTH` steps), or in a larger
array cannot be watched: :attr:`Constants.unwatched` lists such reads (:mod:`flexsn_trace.unfollowed`) for the
caller to name in a warning.
"""

from __future__ import annotations

import functools
import operator
import sys
import types
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import torch
from torch import nn

from .anchors import GONE as _GONE, MISSING as _MISSING, applied, places_of, read_place
from .unfollowed import unfollowed_reads
from .kinds import NUMBER_BUFFERS, SEQUENCES, _library, is_array, is_code, is_constant, is_number, own_attributes
from .side_effects import run_by_step, side_effects
from .places import MAX_DEPTH, MAX_ITEMS, MAX_NAMED_DEPTH, MAX_NAMED_ITEMS, Step, describe, follow, held_names, helpers, methods, names_of, nested, reader
from .roots import Root, core_function, read_default, roots

__all__ = [
    "ArrayContents", "Constant", "Constants", "MAX_ARRAY_ELEMENTS", "NumberItems", "autograd_function", "by_contents", "find_constants",
    "is_contents",
]

#: NumPy arrays (and sets) of up to this many elements are watched by their contents (a copy compared before
#: every call); a larger one is named in :attr:`Constants.unwatched` instead
MAX_ARRAY_ELEMENTS = 4096


class Constant(NamedTuple):
    """One number a core reads from outside its arguments.

    Attributes:
        name: where it lives, for messages (``"global THRESH"``, ``"closure tau"``, ``"self.tau"``).
        read: returns its current value (``_MISSING`` once deleted).
        value: its value when found (what the kernels were traced with).
        in_class: a number or flag read through a class's attribute (``K.thr``), which some
            ``torch.compile`` versions do not guard (:mod:`flexsn_runtime.compile_time`); never code, which they do.
    """

    name: str
    read: Callable[[], object]
    value: object
    in_class: bool = False


class ArrayContents(NamedTuple):
    """A NumPy array's contents as a value ``==`` compares (dtype, shape and bytes): what reading a watched array
    place gives, so that an in-place change (``TH[0] = 0.3``) is a change, as a rebinding is.

    Attributes:
        dtype: the array's ``numpy.dtype``.
        shape: its shape.
        data: its elements in C order (``ndarray.tobytes``).
    """

    dtype: Any
    shape: tuple[int, ...]
    data: bytes

    def __repr__(self) -> str:
        np = sys.modules["numpy"]  # an ArrayContents exists only once NumPy is imported (not a dependency of ours)
        try:
            return str(np.array2string(np.frombuffer(self.data, dtype=self.dtype).reshape(self.shape), threshold=8))
        except (TypeError, ValueError):  # an object array's bytes are references: name it only
            return f"<array of shape {self.shape} and dtype {self.dtype}>"


class NumberItems(tuple[object, ...]):
    """A long list's or tuple's items as a watched place compares them (:func:`by_contents`): more than
    :data:`flexsn_trace.places.MAX_ITEMS`, which the search does not follow one by one, all numbers or flags
    (``LUT = [0.1 * i for i in range(100)]`` read as ``LUT[10]``). An in-place change (``LUT[10] = 0.3``) is a
    change, as a rebinding is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} items: {', '.join(repr(v) for v in self[:4])}, ...>"


def _compared(value: Any) -> object:
    """``value`` as a watched place compares it: a NumPy array as its :class:`ArrayContents`, a set as a
    ``frozenset`` of what it holds now, a long list or tuple as its :class:`NumberItems`, anything else as it is."""
    if is_array(value):
        return ArrayContents(value.dtype, tuple(value.shape), value.tobytes())
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    if isinstance(value, SEQUENCES) and len(value) > MAX_ITEMS or isinstance(value, NUMBER_BUFFERS):
        return NumberItems(value)
    return value


def _watched(value: Any) -> bool:
    """Whether a place holding ``value`` is watched as one value: a number or a flag (what the trace bakes in,
    :func:`flexsn_trace.kinds.is_constant`), or code the core calls (what the trace inlines,
    :func:`flexsn_trace.kinds.is_code`)."""
    return is_constant(value) or is_code(value) and not (autograd_function(value) and _library(value.__module__))


def autograd_function(value: Any) -> bool:
    """Whether ``value`` is an ``autograd.Function`` class (``SpikeFn``, read as ``SpikeFn.apply``). A user's is
    watched by identity (a notebook cell run again rebinds the name to a new class), but no Dynamo we run can compare
    one in traced code, nor read its ``forward`` (``tools/results/gpu-2026-12-10/code_guard.py``,
    ``tools/results/gpu-2026-11-26-methods/method_guard.py``): under ``torch.compile`` the forward op compares it
    before its kernels run (``flexsn_runtime``'s ``check_traced_constants``). A library's is not watched: nothing
    rebinds it."""
    return isinstance(value, type) and issubclass(value, torch.autograd.Function)


def by_contents(value: Any) -> bool:
    """Whether ``value`` is a container of numbers watched as one value, by its contents (:func:`_compared`): a
    NumPy array, a set of numbers (``max(LEVELS)``: a set has no item to follow, and changes in place), or a list
    or tuple of numbers or flags longer than :data:`flexsn_trace.places.MAX_ITEMS` (:class:`NumberItems`)."""
    if is_array(value) or isinstance(value, NUMBER_BUFFERS):
        return True
    if isinstance(value, SEQUENCES):  # one the search does not follow item by item; a longer one is named
        return len(value) > MAX_ITEMS and all(is_constant(v) for v in list(value)[: MAX_ARRAY_ELEMENTS + 1])
    return isinstance(value, (set, frozenset)) and len(value) <= MAX_ARRAY_ELEMENTS and all(is_number(v) for v in value)


def is_contents(value: object) -> bool:
    """Whether ``value`` (a :class:`Constant`'s value) is a container's contents as :func:`_compared` gives them
    (an :class:`ArrayContents` or a ``frozenset``), not a number: what a caller compares but cannot have Dynamo
    guard."""
    return isinstance(value, (ArrayContents, frozenset, NumberItems))


class Constants:
    """The numbers :func:`find_constants` found; :meth:`changed` compares them with their current values.

    The check runs before every call, so the common case (nothing changed) is
    one C-level getter per place (``operator.attrgetter`` over an object's
    attributes, ``operator.itemgetter`` over a module's globals) and one tuple
    comparison; only a difference takes the slow path that names it.
    """

    __slots__ = ("items", "unwatched", "side_effects", "code", "_reads", "_values", "_anchors", "_places")

    def __init__(
        self, items: list[Constant], reads: list[tuple[Callable[[Any], Any], Any, bool]] = (),  # type: ignore[assignment]
        unwatched: Sequence[str] = (), side_effects: Sequence[str] = (),
    ) -> None:
        self.items = tuple(items)
        #: reads the place search cannot follow (:func:`flexsn_trace.unfollowed.unfollowed_reads`):
        #: a number read there is in the kernels but not watched, which the caller says once
        self.unwatched = tuple(unwatched)
        #: statements changing state outside the core's arguments (:func:`flexsn_trace.side_effects.side_effects`):
        #: the eager loop runs them at every step, fused kernels only while tracing, which the caller says once
        self.side_effects = tuple(side_effects)
        #: (getter, what it reads from, whether it returns a tuple), in the order of ``items``
        self._reads = tuple(reads)
        self._values = tuple([_plain(c.value) for c in items])
        #: per item, whether it holds code, which a caller compares by identity (``is``: what Dynamo can compare for
        #: every kind :func:`_watched` takes); worked out here, where Dynamo's ``isinstance`` cannot always tell a
        #: value's type (torch 2.11)
        self.code = tuple([is_code(c.value) for c in items])
        #: each item's place as an anchor and a constant path, which :meth:`current` reads (:mod:`flexsn_trace.anchors`)
        self._anchors, self._places = places_of([c.read for c in self.items])

    def __len__(self) -> int:
        return len(self._places)  # not self.items: Dynamo guards each object an item holds once code reads the tuple

    def rebound(self, found: "Constants") -> "Constants | None":
        """``found`` (:func:`find_constants` of a copy of the core) checked against the values these were found with.

        A deep copy of a network copies the numbers its cores read; the copy's kernels
        are the original's trace, so they must watch the copy's places for changes
        from the *traced* values. ``None`` when the places do not line up by name.
        """
        if [c.name for c in found.items] != [c.name for c in self.items]:
            return None
        return Constants(
            [c._replace(value=v) for c, v in zip(found.items, self._values)], list(found._reads), found.unwatched,
            found.side_effects,
        )

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

    @property
    def traced(self) -> tuple[object, ...]:
        """The values the kernels were traced with, in the order of :attr:`items` (NumPy scalars as Python numbers)."""
        return self._values

    def current(self, which: Sequence[bool] | None = None) -> tuple[object, ...]:
        """The value at each place now, in the order of :attr:`items` (a deleted one: a sentinel unequal to any number;
        a NumPy scalar as its Python number).

        Plain reads, one place at a time, so that ``torch.compile`` can trace
        them: Dynamo then guards on each place, and a later change compiles again
        (:meth:`flexsn_runtime.FlexSNKernel.run`). Eager callers ask :meth:`changed`.
        ``which``: one flag per item; only the flagged ones are read (those Dynamo can guard).
        Compare code (:attr:`code`) with ``is``: ``==`` on a bound method is a graph break on torch 2.11.
        """
        out: list[object] = []
        anchors = self._anchors
        for (i, steps, then), read, code in zip(self._places, (True,) * len(self._places) if which is None else which, self.code):
            if read:
                value = read_place(anchors[i], steps, then)
                out.append(value if code else _plain(value))  # Dynamo 2.11 fails on type(<function>).__module__
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
        for (name, read, value, _) in self.items:
            now = read_place(read)
            if now is not value and (now is _MISSING or now != value):
                out.append(_change(name, value, now))
        return out


def _change(name: str, was: object, now: object) -> str:
    """``"<name> (<was> -> <now>)"``; for a long sequence changed in place, its first changed item's."""
    first = None
    if isinstance(was, NumberItems) and isinstance(now, NumberItems) and len(was) == len(now):
        first = next((i for i, (a, b) in enumerate(zip(was, now)) if a is not b and a != b), None)
    if first is not None:
        name, was, now = f"{name}[{first}]", was[first], now[first]  # type: ignore[index]
    return f"{name} ({_shown(was)} -> {'deleted' if now is _MISSING else _shown(now)})"


def _shown(value: object) -> str:
    """``value`` as a change message names it: code by its qualified name (``torch.sigmoid``, ``cfg.fire_hard``, a
    bound method with its object's class), anything else as ``repr`` gives it."""
    if isinstance(value, types.MethodType):
        return f"{_shown(value.__func__)} of a {type(value.__self__).__name__}"
    if is_code(value):
        # a builtin's __qualname__ names the C class holding it (torch._VariableFunctionsClass.sigmoid)
        attr = "__name__" if isinstance(value, types.BuiltinFunctionType) else "__qualname__"
        module, name = getattr(value, "__module__", None), getattr(value, attr, None)
        if isinstance(name, str):
            return f"{module}.{name}" if isinstance(module, str) else name
    return repr(value)


def _plain(value: object) -> object:
    """A NumPy scalar as the Python number it holds (``np.float32(0.5).item()``), anything else as it is.

    What :meth:`Constants.current` returns is read by code Dynamo traces: Dynamo passes a NumPy scalar into
    the graph as an input it does not specialise on (no guard on its value, and a tuple comparison it cannot
    decide), but guards on the Python number ``.item()`` gives.
    """
    return value.item() if type(value).__module__ == "numpy" else value  # type: ignore[attr-defined]


def _defaults_now(places: list[tuple[str, Any]], func: types.FunctionType) -> tuple[object, ...]:
    """The current values of ``func``'s default arguments at ``places`` (``(kind, key)``, see
    :func:`flexsn_trace.roots.default_arguments`)."""
    return tuple([read_default(func, kind, key) for kind, key in places])


def _called(read: Callable[[], object]) -> object:
    return read()


def find_constants(core: Callable[..., Any]) -> Constants:
    """Find the numbers ``core`` reads from outside its arguments (see the module docstring).

    Args:
        core: a function, bound method, ``nn.Module``, callable object or
            ``functools.partial``, as :func:`flexsn_trace.find_captures` takes it.

    Returns:
        :class:`Constants` (empty for a callable of another kind).
    """
    func, owner = core_function(core)
    if func is None:
        return Constants([])
    beyond: list[str] = []
    called = helpers(func, owner, beyond)
    names = names_of(func, owner, called)
    found = _searched(roots(core, names, names))
    names |= held_names(found)  # CFG["a"]["b"][KEY] with a global KEY = "thr"
    items: list[Constant] = []
    reads: list[tuple[Callable[[Any], Any], Any, bool]] = []
    # the common roots read in one C-level getter per kind (the check runs before every call)
    for root in found:
        if root.kind == "cell" and _watched(root.value):
            items.append(Constant(root.name, root.read, root.value))
            reads.append((operator.attrgetter("cell_contents"), func.__closure__[root.key], False))  # type: ignore[index]
    picked = [r for r in found if r.kind == "global" and _watched(r.value)]
    items += [Constant(r.name, r.read, r.value, r.in_class) for r in picked]
    if picked:
        reads.append((operator.itemgetter(*[r.key for r in picked]), func.__globals__, len(picked) > 1))
    defaults = [r for r in found if r.kind in ("default", "kwdefault") and _watched(r.value)]
    items += [Constant(r.name, r.read, r.value) for r in defaults]
    if defaults:
        reads.append((functools.partial(_defaults_now, [(r.kind, r.key) for r in defaults]), func, True))
    # the rest one by one: a partial's arguments, an array, and what the roots hold (P["thr"], cfg.thr, K.thr)
    unwatched: list[str] = []
    #: numbers at attribute paths below the object's attributes (self.surrogate_function.alpha): read with them
    dotted: list[tuple[Constant, str]] = []
    for root in found:
        itself = root.kind in ("parg", "pkw") or by_contents(root.value) or isinstance(root.value, nn.Module)
        top = [((), root.value)] if itself else []  # the root's own value is watched, not only what it holds
        _add_nested(items, reads, unwatched, root, names, top, "", dotted if root.kind == "attr" else None)
    # then what the functions it calls read (a helper's global THRESH, a method's closure), each place once
    taken = {_place_id(func, r) for r in found}
    for helper in called:
        helper_roots = _searched(roots(helper, frozenset()))
        # the core's names too: a helper may return a container the core indexes (table()["a"]...["thr"])
        helper_names = names | names_of(helper, None) | held_names(helper_roots)
        for root in helper_roots:
            if _place_id(helper, root) in taken:
                continue
            taken.add(_place_id(helper, root))
            _add_nested(items, reads, unwatched, root, helper_names, [((), root.value)], f" (read by {helper.__qualname__})")
    # the object's attributes and the attribute paths below them: one getter (attrgetter follows dotted names)
    attrs = [r for r in found if r.kind == "attr" and _watched(r.value)]
    items += [Constant(r.name, r.read, r.value, r.in_class) for r in attrs] + [c for c, _ in dotted]
    keys = [r.key for r in attrs] + [key for _, key in dotted]
    if keys:
        reads.append((operator.attrgetter(*keys), owner, len(keys) > 1))
    if owner is not None and not isinstance(owner, type):
        _add_methods(items, reads, type(owner), methods(type(owner), names | {func.__name__}, own_attributes(owner)))
    return Constants(
        items, reads, [*unfollowed_reads([func, *called], owner), *beyond, *unwatched], side_effects(run_by_step(func, called)),
    )


def _add_methods(
    items: list[Constant], reads: list[tuple[Callable[[Any], Any], Any, bool]], klass: type,
    found: list[tuple[tuple[str, bool, bool], types.FunctionType]],
) -> None:
    """Watch the methods of the core's own class (:func:`flexsn_trace.places.methods`: ``K.fire = other`` after the
    trace inlined ``self.fire``), read from the class by one getter (``fire``, ``cm.__func__``)."""
    for (name, _, unbind), fn in found:
        read = functools.partial(follow, klass, (("method", (name, False, unbind)),))
        items.append(Constant(f"{klass.__qualname__}.{name}", read, fn))
    keys = [f"{name}.__func__" if unbind else name for (name, _, unbind), _ in found]
    if keys:
        reads.append((operator.attrgetter(*keys), klass, len(keys) > 1))


def _searched(found: list[Root]) -> list[Root]:
    """``found`` without the ``__class__`` cell ``super()`` gives a method: Python sets it once, to the class."""
    return [r for r in found if not (r.kind == "cell" and r.name == "closure __class__")]


def _place_id(func: types.FunctionType, root: Root) -> tuple[Any, ...]:
    """What two roots share when they are one place: a module's global, a closure cell, one function's default."""
    if root.kind == "global":
        return ("global", id(func.__globals__), root.key)
    if root.kind == "cell":
        return ("cell", id(func.__closure__[root.key]))  # type: ignore[index]
    return (root.kind, id(func), root.key)


def _sized(value: Any, depth: int) -> bool:
    """Whether the length of ``value`` (at ``depth`` steps below a root) is watched: a list, tuple or dict the search
    follows under every index or key (:func:`flexsn_trace.places.nested`), empty or holding a number, a flag, code,
    a tensor or a container. Its items are watched (or lifted) one by one, but ``SCHED[-1]`` after an append,
    ``len(LEVELS)``, ``CFG["a"].get("thr", 1.0)`` before the key exists or a loop over the items reads what they
    do not show."""
    if isinstance(value, SEQUENCES):
        if by_contents(value) or len(value) > (MAX_ITEMS if depth < MAX_DEPTH else MAX_NAMED_ITEMS):
            return False
        children: Iterable[Any] = value
    elif isinstance(value, dict):
        if depth >= MAX_DEPTH or len(value) > MAX_ITEMS:
            return False
        children = value.values()
    else:
        return False
    return not value or any(_watched(v) or isinstance(v, (*SEQUENCES, dict, torch.Tensor)) for v in children)


def _add_nested(
    items: list[Constant], reads: list[tuple[Callable[[Any], Any], Any, bool]], unwatched: list[str], root: Root,
    names: frozenset[str], top: Sequence[tuple[tuple[Step, ...], Any]], suffix: str,
    dotted: list[tuple[Constant, str]] | None = None,
) -> None:
    """Watch the numbers and arrays at ``top`` (places given as ``(path, value)``) and below ``root`` (:func:`nested`),
    one reader each; name in ``unwatched`` what cannot be watched (a larger array, a place the search's depth cuts).
    ``dotted``: receives, instead of a reader, each plain value at a path of attributes below ``root`` (an attribute
    of the core's object) with its dotted name, for the caller's one ``operator.attrgetter``."""
    cut: list[tuple[Step, ...]] = []
    below = [(path, leaf) for path, leaf, _ in nested(root.value, names, cut=cut)]
    for path, leaf in [((), root.value), *below]:  # the lengths of the containers followed under every key
        if _sized(leaf, len(path)):
            length = functools.partial(applied, len, reader(root.read, path))
            items.append(Constant(f"len({root.name}{describe(path)}{suffix})", length, len(leaf)))
            reads.append((_called, length, False))
    for path, leaf in [*top, *below]:
        where, whole = f"{root.name}{describe(path)}{suffix}", by_contents(leaf)
        size = (leaf.size if is_array(leaf) else len(leaf)) if whole else 0
        if size > MAX_ARRAY_ELEMENTS:
            name = type(leaf).__name__
            kind = "a NumPy array" if is_array(leaf) else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
            unwatched.append(f"{where} ({kind} of {size} elements: only up to {MAX_ARRAY_ELEMENTS} are compared)")
        elif whole or _watched(leaf) or isinstance(leaf, nn.Module):
            read = reader(root.read, path)
            # a number read through a class: torch 2.11's Dynamo did not guard one; it guards code read so (it compares
            # functions by identity: tools/results/gpu-2026-11-26-methods/method_guard.py)
            in_class = not is_code(leaf) and (
                root.in_class or any(isinstance(follow(root.value, path[:i]), type) for i in range(len(path)))
            )
            if whole:
                read, leaf = functools.partial(applied, _compared, read), _compared(leaf)  # rebound to a number: the number
            elif isinstance(leaf, nn.Module):  # its class: the forward the trace inlined (its numbers and tensors are
                read, leaf = functools.partial(applied, type, read), type(leaf)  # read through it, so an equal copy is no change)
                where = f"type({where})"
            elif dotted is not None and path and all(k == "attr" and "." not in n for k, n in path):  # compared as read
                dotted.append((Constant(where, read, leaf, in_class), ".".join([root.key, *(n for _, n in path)])))
                continue
            items.append(Constant(where, read, leaf, in_class))
            reads.append((_called, read, False))
    unwatched += [
        f"{root.name}{describe(path)}{suffix} (what it holds lies deeper than the "
        f"{MAX_DEPTH + MAX_NAMED_DEPTH} steps searched)" for path in cut
    ]
