"""The minimum s-t cut of the joint split (:mod:`flexsn_trace.joint`): a small max-flow of our own.

:func:`flexsn_trace.joint.partition_joint` needs one thing of a flow network:
the source side of a minimum cut, the one networkx's ``minimum_cut`` returns
(PyTorch's partitioner takes the same): every vertex that cannot reach the sink
in the residual network, the minimum cut closest to the sink. That set does
not depend on which maximum flow finds it: the vertices that can reach the
sink in the residual network of *any* maximum flow form the same set (Ford and
Fulkerson, *Flows in Networks*, 1962; the lattice of minimum cuts). So the
answer is networkx's (``networkx.algorithms.flow``, which the tests use as the
reference), computed here with Edmonds and Karp's shortest-augmenting-path
method (J. ACM 19(2), 1972) on dicts.

Why not networkx itself: importing it costs 0.18 s in a process with bytecode
and 0.6 s without (``import networkx`` loads every algorithm and reader), the
largest share of the trace in a fresh process's first training result once
torch's compiler and sympy are out of it (issue #13's 1 s target); the
networks here have tens to a few hundred vertices.

Capacities are floats (bytes, weighted) or ``math.inf``, compared exactly as
networkx compares them: Edmonds and Karp's bound on the number of
augmentations holds for real capacities, and a bottleneck edge's residual
``r - r`` is exactly 0.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Dict, Hashable, Iterable, Tuple

__all__ = ["UnboundedCut", "source_side"]

Edge = Tuple[Hashable, Hashable, float]


class UnboundedCut(ValueError):
    """Every cut crosses an edge of infinite capacity (a source-to-sink path of them)."""


def source_side(edges: Iterable[Edge], source: Hashable, sink: Hashable) -> set[Hashable]:
    """The source side of the minimum ``source``-``sink`` cut closest to the sink.

    Args:
        edges: ``(u, v, capacity)`` per directed edge, capacity ``>= 0`` (a float or
            ``math.inf``); an edge given twice adds its capacities.
        source, sink: two distinct vertices (absent ones are isolated).

    Returns:
        The vertices that cannot reach ``sink`` in the residual network of a maximum flow
        (``source`` included): networkx's ``minimum_cut(G, source, sink)[1][0]``.

    Raises:
        UnboundedCut: a path of infinite-capacity edges joins ``source`` to ``sink``.
        ValueError: a negative or NaN capacity, or ``source == sink``.
    """
    if source == sink:
        raise ValueError(f"source and sink must differ; both are {source!r}")
    residual: Dict[Hashable, Dict[Hashable, float]] = {source: {}, sink: {}}
    for u, v, c in edges:
        if not c >= 0:
            raise ValueError(f"edge {u!r} -> {v!r}: capacity must be >= 0, got {c!r}")
        residual.setdefault(u, {})
        residual.setdefault(v, {})
        residual[u][v] = residual[u].get(v, 0.0) + c
        residual[v].setdefault(u, 0.0)  # the reverse edge, for flow pushed back
    while True:
        parent = _shortest_path(residual, source, sink)
        if sink not in parent:
            return set(residual) - _reaching(residual, sink)
        path = []
        v = sink
        while v != source:
            u = parent[v]
            path.append((u, v))
            v = u
        push = min(residual[u][v] for u, v in path)
        if push == math.inf:
            raise UnboundedCut(f"an infinite-capacity path joins {source!r} to {sink!r}")
        for u, v in path:
            residual[u][v] -= push
            residual[v][u] += push


def _reaching(residual: Dict[Hashable, Dict[Hashable, float]], sink: Hashable) -> set[Hashable]:
    """The vertices with a path of positive residual to ``sink`` (``sink`` included)."""
    into: Dict[Hashable, list[Hashable]] = {v: [] for v in residual}
    for u, out in residual.items():
        for v, r in out.items():
            if r > 0:
                into[v].append(u)
    seen = {sink}
    todo = [sink]
    while todo:
        for u in into[todo.pop()]:
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


def _shortest_path(
    residual: Dict[Hashable, Dict[Hashable, float]], source: Hashable, sink: Hashable
) -> Dict[Hashable, Hashable]:
    """Breadth-first search over edges with positive residual: each reached vertex's predecessor (stops at ``sink``)."""
    parent: Dict[Hashable, Hashable] = {source: source}
    todo = deque([source])
    while todo:
        u = todo.popleft()
        for v, r in residual[u].items():
            if r > 0 and v not in parent:
                parent[v] = u
                if v == sink:
                    return parent
                todo.append(v)
    return parent
