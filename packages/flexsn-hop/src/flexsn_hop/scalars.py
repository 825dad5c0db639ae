"""Floats Dynamo lifts into a scan's body: read by the fused kernels as scalar static inputs.

A float the body reads (``self.v_threshold``, a surrogate's ``alpha``) is a constant to
``torch.compile`` until it changes; then Dynamo compiles again with the float as a graph input
(PyTorch's "unspecialized float": ``torch._dynamo.config.specialize_float``), passed to the body as
a 0-d tensor that the body turns back into a number with ``.item()`` (or, under
``dynamic=True``, as a ``torch.SymFloat``, which :func:`flexsn_hop.sizes.split_sizes` makes a 0-d
tensor). The kernels cannot trace ``.item()``: a number read from a tensor would be baked in at the
tracing example's value. :func:`items_read_as_tensors` gives the fused path a copy of the body that
uses the 0-d tensor itself, detached, where the body used its ``.item()``, so the kernels read the
current value in place at every call (a scalar static input) and the scan stays fused after the
change; like the number, it carries no gradient (a parameter read through ``.item()`` gets none).
Arithmetic is the same: a 0-d tensor beside a per-step tensor takes that tensor's dtype, as a
Python number does (PyTorch's type promotion).

A float handed to a custom ``torch.autograd.Function`` (a surrogate's ``alpha``:
``Spike.apply(x, alpha)``) reaches Dynamo's ``autograd_function_apply`` as that 0-d tensor,
and the Function's bodies read it with ``.item()``: the forward body, or the backward body from
what the forward saved (a surrogate's formula reading ``math.pi``, which ``dynamic=True`` lifts
too). There the bodies read the 0-d tensor itself instead, detached (a number the forward saves
becomes that tensor), compute with it as with the number, and the Function gives it no
gradient, as before.
"""

from __future__ import annotations

import torch
from torch import fx

from ._types import CoreFn
from .per_body import PerBody

__all__ = ["items_read_as_tensors"]

#: (body, offset) -> (the body reading its lifted 0-d tensors as tensors, or the body itself; which lifted
#: arguments it reads only through .item())
_REWRITTEN: PerBody[int, tuple[CoreFn, tuple[int, ...]]] = PerBody()


#: Dynamo's higher-order op for a custom autograd.Function: (forward body, backward body, *its arguments)
_FUNCTION_APPLY = getattr(torch.ops.higher_order, "autograd_function_apply", None)


def _items_of(graph: fx.Graph, read: "list[fx.Node] | set[fx.Node]") -> list[fx.Node]:
    """The ``.item()`` calls of ``graph`` on one of the nodes ``read``."""
    return [
        n for n in graph.nodes
        if n.op == "call_method" and n.target == "item" and len(n.args) == 1 and not n.kwargs and n.args[0] in read
    ]


def _tensors_for_items(graph: fx.Graph, items: list[fx.Node]) -> None:
    """Each of ``items`` (``.item()`` calls of ``graph``) replaced by its tensor, detached."""
    for item in items:
        with graph.inserting_before(item):
            # detached: .item() carries no gradient, so neither may the tensor read in its place
            value = graph.call_method("detach", (item.args[0],))
        item.replace_all_uses_with(value)
        graph.erase_node(item)


def _zero_dim(node: fx.Node) -> bool:
    """Whether Dynamo's example of placeholder ``node`` is a 0-d tensor (a lifted float)."""
    value = node.meta.get("example_value", node.meta.get("val"))
    return isinstance(value, torch.Tensor) and value.dim() == 0


def _copy_reading_tensors(body: fx.GraphModule, read: "list[fx.Node] | set[fx.Node]", drop_dead: bool = False) -> fx.GraphModule:
    """A copy of ``body`` whose ``.item()`` calls on the placeholders ``read`` use the tensors, detached.

    ``drop_dead``: also drop calls whose results nobody uses (see :func:`_rewrite`).
    """
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    graph.output(graph.graph_copy(body.graph, env))  # graph_copy leaves the output node out
    _tensors_for_items(graph, _items_of(graph, {env[p] for p in read}))
    if drop_dead:
        graph.eliminate_dead_code()
    # built from the finished graph: GraphModule copies the submodules and attributes it reads from body
    return fx.GraphModule(body, graph, class_name=type(body).__name__)


def _function_bodies(core: fx.GraphModule, lifted: list[fx.Node]) -> dict[str, fx.GraphModule]:
    """The bodies of custom autograd.Functions that read a lifted float with ``.item()``, rewritten, by attribute name.

    The forward body takes the Function's arguments in order; the backward body takes one gradient per
    output of the forward, then what the forward saved (its second result).
    """
    out: dict[str, fx.GraphModule] = {}
    for node in core.graph.nodes:
        if _FUNCTION_APPLY is None or node.op != "call_function" or node.target is not _FUNCTION_APPLY:
            continue
        names = [a.target for a in node.args[:2] if isinstance(a, fx.Node) and a.op == "get_attr" and isinstance(a.target, str)]
        if len(names) != 2:
            continue
        fwd_name, bwd_name = names
        fwd, bwd = getattr(core, fwd_name, None), getattr(core, bwd_name, None)
        if not isinstance(fwd, fx.GraphModule) or not isinstance(bwd, fx.GraphModule):
            continue
        inner = [n for n in fwd.graph.nodes if n.op == "placeholder"]
        floats = {inner[j] for j, a in enumerate(node.args[2:]) if j < len(inner) and a in lifted and _zero_dim(a)}
        if not floats:
            continue
        if _items_of(fwd.graph, floats):
            out[fwd_name] = _copy_reading_tensors(fwd, floats)
        # a float the forward saves as it came (a tensor) and the backward reads with .item()
        result = next(n for n in fwd.graph.nodes if n.op == "output").args[0]
        if isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(result[0], (tuple, list)):
            grads = len(result[0])
            saved = [grads + k for k, v in enumerate(result[1]) if v in floats]
            bwd_inner = [n for n in bwd.graph.nodes if n.op == "placeholder"]
            read = {bwd_inner[k] for k in saved if k < len(bwd_inner)}
            if read and _items_of(bwd.graph, read):
                out[bwd_name] = _copy_reading_tensors(bwd, read)
    return out


def _rewrite(core: fx.GraphModule, offset: int) -> tuple[CoreFn, tuple[int, ...]]:
    placeholders = [n for n in core.graph.nodes if n.op == "placeholder"]
    lifted = placeholders[offset:]
    items = _items_of(core.graph, lifted)
    bodies = _function_bodies(core, lifted)
    if not items and not bodies:
        return core, ()
    only_items = tuple(k for k, p in enumerate(lifted) if p.users and all(u in items for u in p.users))
    # Dynamo may keep a dead call on the number (math.exp(x.item()) whose value it folded in as a guarded
    # constant): on a tensor it would fail the kernels' trace for nothing
    rewritten = _copy_reading_tensors(core, lifted, drop_dead=True)
    for name, body in bodies.items():  # this copy's own Function bodies (core keeps its)
        setattr(rewritten, name, body)
    return rewritten, only_items


def items_read_as_tensors(core: CoreFn, offset: int) -> tuple[CoreFn, tuple[int, ...]]:
    """``core``, or a copy using each lifted 0-d tensor where ``core`` used its ``.item()`` (module docstring).

    Only a ``torch.fx.GraphModule`` (the body Dynamo traced) is rewritten, only ``.item()`` of a
    lifted argument (position ``offset`` = ``num_inputs + num_states`` on), once per body.

    Returns:
        ``(body, only_items)``: ``only_items`` are the lifted arguments (indices among them) the body
        reads through ``.item()`` alone; the caller passes them detached, so that a parameter read
        that way gets no gradient (``None``), as in the loop.
    """
    if not isinstance(core, fx.GraphModule):
        return core, ()
    return _REWRITTEN.get(core, offset, lambda: _rewrite(core, offset))
