"""Hoist what a step computes from static inputs alone out of the time loop.

A step graph recomputes ``sigmoid(w)`` of a learnable decay (and, in the
backward graph, its derivative) at every time step although ``w`` is the
same at every step: an ``exp`` per neuron per step, which costs as much as
the memory traffic on a GPU's special-function units. :func:`split_invariants`
cuts the graph in two: a *prologue* graph computing, from the static inputs,
the values the rest needs, and a *loop* graph taking them as extra trailing
placeholders. The scan kernels run the prologue once per program, before
the time loop.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from torch import fx

from .info import graph_output_nodes, placeholders

__all__ = ["SplitGraph", "split_invariants"]


class SplitGraph(NamedTuple):
    """A step graph cut at its loop invariants.

    Attributes:
        prologue: ``[*statics] -> [*invariants]`` (the static placeholders
            in their order in the step graph), or ``None`` when nothing is
            invariant (then ``loop`` is the step graph itself).
        loop: the step graph with ``len(invariants)`` placeholders appended,
            the invariant computations replaced by them.
        num_invariants: how many values the prologue passes to the loop.
    """

    prologue: fx.Graph | None
    loop: fx.Graph
    num_invariants: int


def split_invariants(graph: fx.Graph, static_positions: Sequence[int]) -> SplitGraph:
    """Cut ``graph`` into a prologue of values computed from the placeholders at ``static_positions`` alone, and the rest.

    A node is invariant when it is a ``call_function`` whose inputs are
    static placeholders or invariant nodes, with at least one static
    placeholder among its ancestors (constants stay in the loop: they are
    free). The invariants the rest of the graph (or its output) reads are
    the prologue's outputs.

    Args:
        graph: a step graph (any placeholder order).
        static_positions: indices of the placeholders that are static inputs.

    Returns:
        :class:`SplitGraph`.
    """
    phs = placeholders(graph)
    statics = [phs[i] for i in static_positions]
    invariant: set[fx.Node] = set(statics)
    for node in graph.nodes:
        if node.op == "call_function" and node.all_input_nodes and all(a in invariant for a in node.all_input_nodes):
            invariant.add(node)
    computed = invariant - set(statics)
    outputs = graph_output_nodes(graph)
    frontier = [
        n for n in graph.nodes
        if n in computed and (any(u not in invariant for u in n.users) or n in outputs)
    ]
    if not frontier:
        return SplitGraph(None, graph, 0)
    # the step graph's module holds its tensor constants (get_attr): the two new graphs read them from it too
    prologue = fx.Graph(owning_module=graph.owning_module)
    env: dict[fx.Node, fx.Node] = {}
    for p in statics:
        env[p] = prologue.placeholder(p.name)
        env[p].meta = dict(p.meta)
    for node in graph.nodes:
        if node in computed:
            env[node] = prologue.node_copy(node, lambda a: env[a])
    prologue.output(tuple(env[n] for n in frontier))
    prologue.eliminate_dead_code()
    loop = fx.Graph(owning_module=graph.owning_module)
    lenv: dict[fx.Node, fx.Node] = {}
    for p in phs:
        lenv[p] = loop.placeholder(p.name)
        lenv[p].meta = dict(p.meta)
    for k, n in enumerate(frontier):
        lenv[n] = loop.placeholder(f"invariant_{k}")
        lenv[n].meta = dict(n.meta)
    for node in graph.nodes:
        if node.op == "placeholder" or node in lenv or node in computed:
            continue
        lenv[node] = loop.node_copy(node, lambda a: lenv[a])
    loop.eliminate_dead_code()
    return SplitGraph(prologue, loop, len(frontier))
