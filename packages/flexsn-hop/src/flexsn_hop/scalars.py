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
"""

from __future__ import annotations

from torch import fx

from ._types import CoreFn
from .per_body import PerBody

__all__ = ["items_read_as_tensors"]

#: (body, offset) -> (the body reading its lifted 0-d tensors as tensors, or the body itself; which lifted
#: arguments it reads only through .item())
_REWRITTEN: PerBody[int, tuple[CoreFn, tuple[int, ...]]] = PerBody()


def _rewrite(core: fx.GraphModule, offset: int) -> tuple[CoreFn, tuple[int, ...]]:
    placeholders = [n for n in core.graph.nodes if n.op == "placeholder"]
    lifted = placeholders[offset:]
    items = [
        n for n in core.graph.nodes
        if n.op == "call_method" and n.target == "item" and len(n.args) == 1 and not n.kwargs and n.args[0] in lifted
    ]
    if not items:
        return core, ()
    only_items = tuple(k for k, p in enumerate(lifted) if p.users and all(u in items for u in p.users))
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    graph.output(graph.graph_copy(core.graph, env))  # graph_copy leaves the output node out
    for node in items:
        item = env[node]
        with graph.inserting_before(item):
            # detached: .item() carries no gradient, so neither may the tensor read in its place
            value = graph.call_method("detach", (item.args[0],))
        item.replace_all_uses_with(value)
        graph.erase_node(item)
    # Dynamo may keep a dead call on the number (math.exp(x.item()) whose value it folded in as a guarded
    # constant): on a tensor it would fail the kernels' trace for nothing
    graph.eliminate_dead_code()
    # built from the finished graph: GraphModule copies the submodules and attributes it reads from core
    return fx.GraphModule(core, graph, class_name=type(core).__name__), only_items


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
