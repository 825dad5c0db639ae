"""The forward/backward pair of a step: one joint trace, split by a minimum cut.

The joint graph computes a step's results and, from one tangent per
differentiable result, the gradients of its inputs (``torch.autograd.grad``
recorded by :func:`flexsn_trace.recorder.record`, as AOTAutograd's joint
graph). :func:`partition_joint` splits it into a forward graph that also
returns the values the backward needs, and a backward graph that takes them:
which values cross is a minimum cut (:func:`flexsn_trace.mincut.source_side`), the
rematerialization idea of Checkmate (Jain et al., MLSys 2020) in the form of
PyTorch's ``min_cut_rematerialization_partition``: elementwise values are
cheap to recompute and each saved value costs its bytes, so the backward
recomputes what it can from fewer saved values. The cost model is that
partitioner's (bytes, weighted by distance from the backward; a value every
user can fuse with costs twice, placeholders once); the pair then goes
through :func:`flexsn_trace.saved.minimize_saved`, whose model is the
kernels' own.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
from torch import fx

from .info import graph_output_nodes, placeholders
from .mincut import UnboundedCut, source_side
from .masked import masked_writes_to_where
from .recorder import functional_in_place, is_view, op_name, record
from .saved import node_copier

__all__ = ["flow_network", "partition_joint", "recompute_partition", "trace_joint"]


def trace_joint(
    fn: Callable[..., tuple[torch.Tensor, ...]],
    examples: Sequence[torch.Tensor],
    flags: Sequence[bool],
    results: Sequence[torch.Tensor],
) -> fx.GraphModule:
    """Record ``(*primals, *tangents) -> (*results, *grads)`` for ``fn``.

    In-place operations are made functional
    (:func:`flexsn_trace.recorder.functional_in_place`, else
    ``torch.func.functionalize`` of the step).

    Args:
        fn: the step, returning a tuple of tensors.
        examples: one real tensor per argument (the primals).
        flags: per primal, whether its gradient is asked for.
        results: ``fn``'s results on ``examples`` with gradients enabled: the
            ones that require grad get a tangent (ones, of their shape and dtype).

    Returns:
        The joint ``GraphModule``: placeholders ``len(examples)`` primals
        (``primals_1``, ...), then one tangent per result that requires grad
        (``tangents_1``, ...); outputs the results, then
        one gradient per primal (``None`` where not asked for or unused).
    """
    n = len(examples)
    tangent_mask = [bool(r.requires_grad) for r in results]

    def joint_of(step: Callable[..., tuple[torch.Tensor, ...]]) -> Callable[..., tuple[Any, ...]]:
        def joint(*args: torch.Tensor) -> tuple[Any, ...]:
            primals, tangents = args[:n], args[n:]  # leaves made outside (args())
            with torch.enable_grad():
                outs = step(*primals)
                diff = [o for o, m in zip(outs, tangent_mask) if m]
                wrt = [p for p, f in zip(primals, flags) if f]
                got = iter(_vjp(diff, wrt, tangents))
            grads = [next(got) if f else None for f in flags]
            return (*outs, *grads)

        return joint

    def args() -> list[torch.Tensor]:
        primals = [e.detach().clone().requires_grad_(f) for e, f in zip(examples, flags)]
        return [*primals, *(torch.ones_like(r).detach() for r in results if r.requires_grad)]

    # AOTAutograd's placeholder names, which readers of these graphs know
    names = [f"primals_{i + 1}" for i in range(n)] + [f"tangents_{k + 1}" for k in range(sum(tangent_mask))]
    gm = record(joint_of(fn), args(), names)
    if not functional_in_place(gm.graph):
        # the step functionalized, differentiated from outside: autograd sees through
        # functionalize's wrappers, where a leaf made inside the transform would not be one
        gm = record(joint_of(torch.func.functionalize(fn, remove="mutations_and_views")), args(), names)
        functional_in_place(gm.graph)
    masked_writes_to_where(gm.graph)
    return gm


def _vjp(
    outputs: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor], tangents: Sequence[torch.Tensor]
) -> tuple[torch.Tensor | None, ...]:
    """``torch.autograd.grad(outputs, inputs, tangents, allow_unused=True)``, without its first-call import.

    ``torch.autograd.grad`` checks each tangent's shape against its output with
    ``torch.fx.experimental.symbolic_shapes`` (for unbacked symbolic sizes), whose
    first import pulls in sympy: 0.35 s with bytecode, 2.3 s on an install without it,
    the largest share of a fresh process's first training result. The tangents
    here are plain tensors made like their outputs (``ones_like``), so that check
    has nothing to find; the same shape and dtype check is done here and the C++
    engine runs directly, as ``grad`` itself does after its checks
    (``torch.autograd.graph._engine_run_backward``). Anything else (a tensor
    subclass, a torch without that function) takes ``torch.autograd.grad``.
    """
    engine = getattr(torch.autograd.graph, "_engine_run_backward", None)
    plain = all(type(t) is torch.Tensor for t in (*outputs, *inputs, *tangents))
    alike = len(outputs) == len(tangents) and all(
        o.shape == g.shape and o.dtype == g.dtype for o, g in zip(outputs, tangents)
    )
    if engine is None or not (plain and alike):
        return tuple(torch.autograd.grad(outputs, inputs, tangents, allow_unused=True))
    got = engine(tuple(outputs), tuple(tangents), False, False, tuple(inputs), True, accumulate_grad=False)
    return tuple(got)


def _bytes(node: fx.Node) -> float:
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return math.inf  # not a tensor: it cannot cross as a saved value
    return float(max(val.numel(), 1) * val.element_size())


def _draws_random(node: fx.Node) -> bool:
    """An op whose recomputation would draw random numbers again."""
    target = node.target
    return node.op == "call_function" and isinstance(target, torch._ops.OpOverload) and (
        torch.Tag.nondeterministic_seeded in target.tags
    )


def _recomputable(node: fx.Node) -> bool:
    """Elementwise and view/factory calls: free to recompute next to memory traffic."""
    target = node.target
    if node.op != "call_function":
        return False
    if not isinstance(target, torch._ops.OpOverload):
        return True  # operator.getitem
    if _draws_random(node):
        return False
    return torch.Tag.pointwise in target.tags or is_view(node) or op_name(target) in _FACTORIES


#: copies, conversions and tensor factories (views: flexsn_trace.recorder.VIEW_OPS)
_FACTORIES = {
    "clone", "_to_copy", "to", "full", "full_like", "zeros", "zeros_like", "ones", "ones_like", "empty", "empty_like",
    "scalar_tensor", "new_zeros", "new_ones", "new_full", "lift_fresh", "lift_fresh_copy", "where",
    "broadcast_tensors", "type_as",
}


def partition_joint(joint: fx.Graph, num_primals: int, num_results: int) -> tuple[fx.Graph, fx.Graph]:
    """Split a joint graph (:func:`trace_joint`) into a forward and a backward graph.

    Returns:
        ``fwd: [*primals] -> [*results, *saved]`` and
        ``bwd: [*saved, *tangents] -> [*grads]`` (``None`` for gradients not
        computed), saved values in the joint graph's order.

    Raises:
        ValueError: no cut exists (a value the backward needs can be neither
            saved nor recomputed).
    """
    primals, tangents, results, grads = _ends(joint, num_primals, num_results)
    _skip_identities(joint, set(results))
    edges = flow_network(joint, num_primals, num_results)
    try:
        reachable = source_side(edges, "source", "sink")
    except UnboundedCut as exc:
        raise ValueError("no forward/backward split of the step exists: a value the backward needs can be "
                         "neither saved nor recomputed") from exc
    # a cut n_in -> n_out edge saves n; a value after the tangents has no such edge, but its
    # n_in drains to the sink through an infinite edge, so it is never on the source side
    saved = [n for n in joint.nodes if n.name + "_in" in reachable and n.name + "_out" not in reachable]
    return _forward(joint, primals, results, saved), _backward(joint, saved, tangents, grads)


def recompute_partition(joint: fx.Graph, num_primals: int, num_results: int) -> tuple[fx.Graph, fx.Graph] | None:
    """Split a joint graph so the backward recomputes the whole step from its arguments.

    The forward saves nothing it computes: its saved values are every primal
    (inputs, states before the step, static inputs), in order, and the backward
    graph recomputes what it needs from them. The kernels built on this pair
    keep the states only every few steps and recompute the ones between
    (:mod:`flexsn_trace.recompute`), the checkpointing of Chen et al.,
    "Training Deep Nets with Sublinear Memory Cost" (2016), along time.

    Returns:
        ``fwd: [*primals] -> [*results, *primals]`` and
        ``bwd: [*primals, *tangents] -> [*grads]``; ``None`` when the step draws
        random numbers (recomputing it would draw again).
    """
    primals, tangents, results, grads = _ends(joint, num_primals, num_results)
    if any(_draws_random(n) for n in joint.nodes):
        return None
    return _forward(joint, primals, results, primals), _backward(joint, primals, tangents, grads)


def _ends(joint: fx.Graph, num_primals: int, num_results: int) -> tuple[list[fx.Node], list[fx.Node], list[Any], list[Any]]:
    phs = placeholders(joint)
    outs = graph_output_nodes(joint)
    return phs[:num_primals], phs[num_primals:], outs[:num_results], outs[num_results:]


def flow_network(joint: fx.Graph, num_primals: int, num_results: int) -> list[tuple[str, str, float]]:
    """The flow network whose minimum cut picks the saved values: ``(u, v, capacity)`` edges.

    Each node ``n`` is split into ``n_in -> n_out`` with its cost (bytes,
    weighted by distance from the backward, doubled for a computed value); its
    uses are infinite edges ``n_out -> user_in``. ``source`` feeds the primals
    and what the forward needs but cannot recompute; what the backward needs
    drains to ``sink`` (values after the tangents from ``n_in``: they cannot be
    saved). Cutting ``n_in -> n_out`` saves ``n``. The construction of
    PyTorch's ``min_cut_rematerialization_partition``
    (``torch/_functorch/partitioners.py``).
    """
    primals, tangents, results, grads = _ends(joint, num_primals, num_results)
    required_fw: set[fx.Node] = set()
    todo = [r for r in results if isinstance(r, fx.Node)]
    while todo:
        n = todo.pop()
        if n not in required_fw:
            required_fw.add(n)
            todo.extend(n.all_input_nodes)
    closure: set[fx.Node] = set(tangents)
    for n in joint.nodes:
        if n in closure:
            closure.update(u for u in n.users if u.op != "output")
    required_bw = closure | {g for g in grads if isinstance(g, fx.Node)}

    dist: dict[fx.Node, int] = {}
    for n in reversed(joint.nodes):
        if n.op == "output":
            continue
        if n not in required_fw:
            dist[n] = 0
        else:
            dist[n] = min((dist[u] + 1 for u in n.users if u.op != "output"), default=10**9)

    edges: list[tuple[str, str, float]] = []
    for n in joint.nodes:
        if n.op == "output":
            continue
        if n in required_bw:
            if n in closure:
                edges.append((n.name + "_in", "sink", math.inf))
                continue
            edges.append((n.name + "_out", "sink", math.inf))
        if n in primals or (n in required_fw and not _recomputable(n)):
            edges.append(("source", n.name + "_in", math.inf))
        weight = _bytes(n) * 1.1 ** max(min(dist[n], 100), 1)
        if n.op == "call_function":
            weight *= 2  # every user fuses with it (elementwise step): materialising it is the extra cost
        edges.append((n.name + "_in", n.name + "_out", weight))
        for u in n.users:
            if u.op != "output":
                edges.append((n.name + "_out", u.name + "_in", math.inf))
    return edges


_IDENTITIES = (torch.ops.aten.detach.default, torch.ops.aten.alias.default)


def _skip_identities(joint: fx.Graph, keep: set[Any]) -> None:
    """Point users of ``detach`` / ``alias`` at their input (not the results themselves).

    After autograd they are the identity, but to the cut a ``detach`` of a
    value is another value: it could be saved in the value's place, a
    sequence no kernel source recognises as a result (the saved value of a
    functionalized step).
    """
    for n in list(joint.nodes):
        if n.op == "call_function" and n.target in _IDENTITIES and n not in keep and isinstance(n.args[0], fx.Node):
            n.replace_all_uses_with(n.args[0])
            joint.erase_node(n)


def _forward(joint: fx.Graph, primals: list[fx.Node], results: list[Any], saved: list[fx.Node]) -> fx.Graph:
    """``[*primals] -> [*results, *saved]``, each node copied from ``joint`` once."""
    fwd = fx.Graph(owning_module=joint.owning_module)
    env: dict[fx.Node, fx.Node] = {}
    for p in primals:
        env[p] = fwd.placeholder(p.name)
        env[p].meta = dict(p.meta)
    copy = node_copier(fwd, env)
    fwd.output(tuple(copy(r) if isinstance(r, fx.Node) else r for r in [*results, *saved]))
    return fwd


def _backward(joint: fx.Graph, saved: list[fx.Node], tangents: list[fx.Node], grads: list[Any]) -> fx.Graph:
    """``[*saved, *tangents] -> [*grads]``: what the gradients need beyond the saved values is recomputed."""
    bwd = fx.Graph(owning_module=joint.owning_module)
    env: dict[fx.Node, fx.Node] = {}
    for n in [*saved, *tangents]:
        env[n] = bwd.placeholder(n.name)
        env[n].meta = dict(n.meta)
    copy = node_copier(bwd, env)
    bwd.output(tuple(copy(gr) if isinstance(gr, fx.Node) else None for gr in grads))
    return bwd
