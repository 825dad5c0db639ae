"""Watched places as an anchor object and a constant path: what code ``torch.compile`` traces reads them through.

Each watched place (:class:`flexsn_trace.Constant`) has a ``read``: a root's reader (``getattr(cell,
"cell_contents")``, ``operator.getitem(module_globals, "THRESH")``, ``getattr(self, "tau")``, a default
argument) with the path below it (:func:`flexsn_trace.places.reader`), wrapped (:func:`applied`) when the place is compared by
its contents, class or length. A compiled call traces a read of every place, so that Dynamo guards each number and
a change compiles again. Traced through those readers, Dynamo guarded every object of their nesting too (each
``functools.partial``, its arguments tuple and keywords, each path tuple, each function's code): about 25 guards
per place, checked before every compiled call (the convnet of ``tools/bench_net.py``: 294 of its 787 guards, 7.6
of its 18.2 µs of guard checking on the development CPU; ``tools/guard_probe.py``).

:func:`anchored` takes such a ``read`` apart into the object it starts from (a closure cell, a module's
globals, a function, the core's object or class, a partial's arguments) and one constant path of steps from
there. :class:`flexsn_trace.Constants` keeps the distinct anchors in one tuple and the places as
``(anchor index, steps, then)`` in another, which Dynamo guards as one value where it holds only constants;
reading a place (:func:`read_place`) then costs the guards on the objects its path passes and on the value.
:class:`flexsn_trace.Captures` reads the tensors a core captures the same way (:func:`value_at`), each a graph
input of the compiled call (about 14 guards per tensor went to its reader before).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

from .places import Step, _read_path, follow
from .roots import read_default

__all__ = ["GONE", "MISSING", "Place", "anchored", "applied", "places_of", "read_place", "value_at"]

#: what reading a place gives once it no longer holds a value (unequal to any value)
MISSING = object()
#: what reading a place that no longer holds its value raises (a deleted attribute, an emptied cell, a default removed)
GONE = (AttributeError, ValueError, KeyError, IndexError, TypeError)

#: one place: the index of its anchor, the steps from it (``None``: the anchor is a read, called as it is), and the
#: function applied to the value found there (``None``: none)
Place = tuple[int, tuple[Step, ...] | None, Callable[[Any], Any] | None]


def value_at(anchor: Any, steps: tuple[Step, ...] | None) -> Any:
    """The value at ``steps`` below ``anchor`` (``anchor()`` when ``steps`` is ``None``); raises what the read raises
    once the place no longer holds one (one of :data:`GONE`)."""
    return anchor() if steps is None else follow(anchor, steps)


def read_place(anchor: Any, steps: tuple[Step, ...] | None = None, then: Callable[[Any], Any] | None = None) -> Any:
    """:func:`value_at`, ``then`` applied; :data:`MISSING` once the place no longer holds a value."""
    try:
        value = value_at(anchor, steps)
        return value if then is None else then(value)
    except GONE:
        return MISSING


def applied(fn: Callable[[Any], Any], read: Callable[[], Any]) -> Any:
    """``fn(read())``: the read of a place compared by something of its value (its contents, class or length), as
    ``functools.partial(applied, len, read)``; :func:`anchored` takes ``fn`` apart as its ``then``."""
    return fn(read())


def anchored(read: Callable[[], Any]) -> tuple[Any, tuple[Step, ...] | None, Callable[[Any], Any] | None]:
    """``(anchor, steps, then)`` with ``read_place(anchor, steps, then)`` giving what ``read()`` gives.

    A read of another form than those :mod:`flexsn_trace.roots`, :func:`flexsn_trace.places.reader` and
    :func:`applied` build comes back as ``(read, None, None)``: called as it is.
    """
    then, inner = None, read
    if isinstance(read, functools.partial) and not read.keywords and read.func is applied and len(read.args) == 2:
        then, inner = read.args
    found = _path(inner)
    if found is None:  # the whole read, ``then`` included, called as it is
        return read, None, None
    return found[0], found[1], then


def _path(read: Any) -> tuple[Any, tuple[Step, ...]] | None:
    """``(anchor, steps)`` for the reads :mod:`flexsn_trace.roots` and :func:`flexsn_trace.places.reader` make."""
    if not isinstance(read, functools.partial) or read.keywords:
        return None
    func, args = read.func, read.args
    if func is _read_path and len(args) == 2:
        below = _path(args[0])
        return None if below is None else (below[0], below[1] + tuple(args[1]))
    if func is getattr and len(args) == 2 and isinstance(args[1], str):
        return args[0], (("attr", args[1]),)
    if func is operator.getitem and len(args) == 2:
        return args[0], (("item", args[1]),)
    if func is follow and len(args) == 2:
        return args[0], tuple(args[1])
    if func is read_default and len(args) == 3:
        return args[0], (("attr", "__defaults__" if args[1] == "default" else "__kwdefaults__"), ("item", args[2]))
    return None


def places_of(reads: Sequence[Callable[[], Any]]) -> tuple[tuple[Any, ...], tuple[Place, ...]]:
    """The distinct anchors of ``reads`` (by identity, in order of first use) and each read as a :data:`Place`."""
    anchors: list[Any] = []
    index: dict[int, int] = {}
    out: list[Place] = []
    for read in reads:
        anchor, steps, then = anchored(read)
        if id(anchor) not in index:
            index[id(anchor)] = len(anchors)
            anchors.append(anchor)
        out.append((index[id(anchor)], steps, then))
    return tuple(anchors), tuple(out)
