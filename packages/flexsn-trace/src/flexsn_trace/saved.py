"""Shrink what the forward step saves for the backward step.

In a multi-step kernel every saved value is one extra sequence written by
the forward kernel and read back by the backward kernel, so the cost model
differs from PyTorch's min-cut partitioner (which treats forward outputs as
free to save). Here a saved value is dropped when the backward graph can
recompute it from the other saved values, optionally plus at most one input
of the step (an input sequence already lives in memory: reading it back
costs no more than reading the saved value, and the forward write
disappears), plus any static inputs (read once per program, not per step).
Elementwise recomputation is free next to memory traffic. A value that
depends on static inputs only (``sigmoid(w)`` of a learnable decay) is
therefore always recomputed from them, never stored per step.
"""

from __future__ import annotations

from typing import Any, Callable

from torch import fx, nn

from .info import graph_output_nodes, placeholders

__all__ = ["cone", "minimize_saved", "node_copier"]


def cone(node: fx.Node, stop: set[fx.Node]) -> tuple[set[fx.Node], set[fx.Node]] | None:
    """Nodes needed to recompute ``node`` from ``stop``; ``None`` if impossible.

    Returns ``(cone, placeholders_reached)``.
    """
    cone: set[fx.Node] = set()
    reached: set[fx.Node] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if n in stop or n in cone:
            continue
        if n.op == "placeholder":
            reached.add(n)
            continue
        if n.op != "call_function":
            return None
        cone.add(n)
        todo.extend(a for a in n.all_input_nodes)
    return cone, reached


def copy_node(g: fx.Graph, node: fx.Node, arg_transform: Callable[[fx.Node], Any]) -> fx.Node:
    """``g.node_copy(node, arg_transform)``, with a ``get_attr`` node's tensor carried into ``g``'s owning module.

    A tensor constant of a traced step (``out[x < -1] = -1.0`` records one) lives in the module owning the graph
    it was traced in; a graph built here (``fx.Graph()``) has none, and another graph's module may hold another
    tensor under the same name (the forward's and the backward's modules each number their own). The tensor
    ``node`` reads is set on ``g``'s module (one is made when ``g`` has none) under ``node``'s name and a suffix of
    its own, so a foreign tensor's prefix (:data:`flexsn_trace.recorder.FOREIGN_PREFIX`) stays for the codegen's check.
    """
    if node.op != "get_attr":
        return g.node_copy(node, arg_transform)
    source = node.graph.owning_module
    value = getattr(source, str(node.target), None) if source is not None else None
    holder = g.owning_module
    if value is None or holder is source:  # nothing to carry (codegen names what it cannot read), or the same module
        return g.node_copy(node, arg_transform)
    if holder is None:
        holder = fx.GraphModule(nn.Module(), fx.Graph())  # holds the carried tensors only
        g.owning_module = holder
    k = 0
    while hasattr(holder, f"{node.target}_carried_{k}"):
        k += 1
    name = f"{node.target}_carried_{k}"
    if isinstance(value, nn.Parameter):
        holder.register_parameter(name, value)
    else:
        holder.register_buffer(name, value)
    copied = g.get_attr(name)
    copied.meta = dict(node.meta)
    return copied


def node_copier(g: fx.Graph, env: dict[fx.Node, fx.Node]) -> Callable[[fx.Node], fx.Node]:
    """Recompute nodes of another graph in ``g``, once each, from what ``env`` maps (placeholders must be mapped).

    The returned function copies a node with its inputs (memoised in ``env``);
    an unmapped placeholder raises ``KeyError``.
    """

    def get(n: fx.Node) -> fx.Node:
        if n not in env:
            if n.op == "placeholder":
                raise KeyError(n.name)
            env[n] = copy_node(g, n, get)
        return env[n]

    return get


def minimize_saved(
    fwd: fx.Graph, bwd: fx.Graph, num_inputs: int, num_visible: int, num_static: int = 0
) -> tuple[fx.Graph, fx.Graph]:
    """Drop recomputable saved values from a forward/backward graph pair.

    Args:
        fwd: ``[*inputs, *states, *statics] -> [*visible, *saved]``.
        bwd: ``[*saved, *tangents] -> [*grads]`` (saved in the same order).
        num_inputs: leading forward placeholders that are input sequences.
        num_visible: forward results that are not saved values
            (``num_outputs + num_states``).
        num_static: trailing forward placeholders that are static inputs.

    Returns:
        A new ``(fwd, bwd)`` pair with the same signature shape: fewer
        saved values, the backward graph recomputing the dropped ones.
    """
    outs = graph_output_nodes(fwd)
    visible = outs[:num_visible]
    saved = [o for o in outs[num_visible:] if isinstance(o, fx.Node)]
    if len(saved) != len(outs) - num_visible:
        return fwd, bwd
    phs = placeholders(fwd)
    inputs = phs[:num_inputs]
    statics = set(phs[len(phs) - num_static :]) if num_static else set()
    current: list[fx.Node] = []
    for n in saved:
        if n not in current:
            current.append(n)
    # Try visible outputs first: min-cut likes to save them, but they are
    # usually cheap functions of the other saved values (spikes of a membrane).
    order = sorted(current, key=lambda n: 0 if n in visible else 1)
    for n in order:
        if n.op == "placeholder":
            continue
        others = [m for m in current if m is not n]
        found = cone(n, set(others))
        if found is None:
            continue
        _, reached = found
        per_step = [p for p in reached if p not in statics]
        if any(p not in inputs for p in per_step) or len(per_step) > 1:
            continue
        # in placeholder order, not the set's (hash) order: the kernels' argument order must not vary between traces
        current = others + [p for p in phs if p in reached and p not in others]

    if set(current) == set(saved) and len(current) == len(saved):
        return fwd, bwd

    new_bwd = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    new_ph: dict[fx.Node, fx.Node] = {}
    for m in current:
        ph = new_bwd.placeholder(m.name)
        ph.meta = dict(m.meta)
        new_ph[m] = ph
    bwd_ph = placeholders(bwd)
    for ph in bwd_ph[len(saved) :]:
        env[ph] = new_bwd.placeholder(ph.name)
        env[ph].meta = dict(ph.meta)
    recompute = node_copier(new_bwd, dict(new_ph))
    for ph, n in zip(bwd_ph[: len(saved)], saved):
        env[ph] = recompute(n)
    for node in bwd.nodes:
        if node.op == "placeholder":
            continue
        env[node] = copy_node(new_bwd, node, lambda a: env[a])
    new_bwd.eliminate_dead_code()
    new_bwd.lint()

    new_fwd = fx.Graph()
    fenv: dict[fx.Node, fx.Node] = {}
    for node in fwd.nodes:
        if node.op == "output":
            new_fwd.output(tuple(fenv[v] for v in [*visible, *current]))  # type: ignore[index]
            continue
        fenv[node] = copy_node(new_fwd, node, lambda a: fenv[a])
    new_fwd.eliminate_dead_code()
    new_fwd.lint()
    return new_fwd, new_bwd
