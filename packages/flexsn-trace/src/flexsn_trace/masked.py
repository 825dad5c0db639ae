"""Boolean-mask reads and writes of one shape, rewritten as elementwise selects.

Hand-written surrogate gradients often assign through a mask (SpikingJelly's ``LogTailedReLU``)::

    grad_x = torch.ones_like(x)
    grad_x[x > 1.0] = 1.0 / x[x > 1.0]   # aten.index_put(grad_x, [mask], f(aten.index(x, [mask])))
    grad_x[x <= 0.0] = alpha             # aten.index_put(grad_x, [mask2], alpha)

``x[mask]`` has a data-dependent shape, so the traced step does not lower to the elementwise kernels, and
such a core trained on the eager loop. Where the mask has the shape of the tensor written, the write is the
select ``torch.where(mask, value, grad_x)``, and the value computed elementwise from reads ``x[mask]`` of the
same mask is that computation on the whole of ``x``: the selected elements are the same numbers (PyTorch's
elementwise ops compute each element alone), the others are discarded. :func:`masked_writes_to_where` makes
that rewrite; anything else (a read used elsewhere, ``accumulate=True``, a mask of another shape, several
indices) stays as it was and the lowering refuses it by name. The joint trace is rewritten after autograd
recorded the gradients of the original reads and writes (``index_put(zeros, [mask], g, accumulate=True)``,
rewritten too), so no gradient flows through the discarded elements of a whole-tensor computation (where
``torch.where`` would give ``0 * inf = nan`` for ``log(x)`` at ``x = 0``).
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import fx

__all__ = ["masked_writes_to_where"]

_aten = torch.ops.aten
_INDEX = _aten.index.Tensor
_INDEX_PUT = _aten.index_put.default


def _val(node: object) -> torch.Tensor | None:
    val = node.meta.get("val") if isinstance(node, fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _same(a: object, b: object, depth: int = 8) -> bool:
    """The same node, or the same computation recorded twice: ``x[x > 1] = 1 / x[x > 1]`` records ``x > 1``
    twice, ``m = (x > 0) & (x < 2)`` written out at each use its three ops twice (compared ``depth`` calls deep)."""
    if a is b:
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, depth) for x, y in zip(a, b))
    if not (isinstance(a, fx.Node) and isinstance(b, fx.Node)):
        return type(a) is type(b) and a == b
    if depth == 0 or a.op != "call_function" or b.op != "call_function" or a.target is not b.target:
        return False
    if isinstance(a.target, torch._ops.OpOverload) and torch.Tag.nondeterministic_seeded in a.target.tags:
        return False  # two draws of rand_like(x) are two masks
    if len(a.args) != len(b.args) or a.kwargs.keys() != b.kwargs.keys():
        return False
    return all(_same(x, y, depth - 1) for x, y in zip(a.args, b.args)) and all(
        _same(a.kwargs[k], b.kwargs[k], depth - 1) for k in a.kwargs
    )


def _one_mask(indices: object, base: object) -> fx.Node | None:
    """The single boolean index of ``base``'s shape in ``indices``, or ``None``."""
    if not (isinstance(indices, (list, tuple)) and len(indices) == 1 and isinstance(indices[0], fx.Node)):
        return None
    mask, val, base_val = indices[0], _val(indices[0]), _val(base)
    if val is None or base_val is None or val.dtype != torch.bool or val.shape != base_val.shape:
        return None
    return mask


#: ops that give their argument's values as they are (what autograd saves of a result is its detach)
_IDENTITY = (_aten.detach.default, _aten.alias.default)


def _pointwise(node: fx.Node) -> bool:
    target = node.target
    return node.op == "call_function" and isinstance(target, torch._ops.OpOverload) and torch.Tag.pointwise in target.tags


def _masked(graph: fx.Graph, mask: fx.Node) -> list[fx.Node]:
    """The nodes of shape ``x[mask]``: reads of ``mask`` and what is computed elementwise from them (with 0-d
    tensors, which broadcast against the selected elements as against all of them; a ``detach`` of one, as autograd
    saves ``tanh(x[mask])`` for its backward), in graph order."""
    found: dict[fx.Node, None] = {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is _INDEX:
            read = _one_mask(node.args[1], node.args[0])
            if read is not None and _same(read, mask):
                found[node] = None
        elif node.target in _IDENTITY and node.args[0] in found:  # autograd's detach of a saved tanh(x[mask])
            found[node] = None
        elif _pointwise(node):
            tensors = [a for a in (*node.args, *node.kwargs.values()) if isinstance(a, fx.Node)]
            listed = any(isinstance(a, (list, tuple)) for a in node.args)
            inside = [a in found for a in tensors]
            if any(inside) and not listed and all(i or _is_0d(a) for a, i in zip(tensors, inside)):
                found[node] = None
    return list(found)


def _is_0d(node: fx.Node) -> bool:
    val = _val(node)
    return val is not None and val.dim() == 0


def _meta_call(target: Any, args: Any, kwargs: Any, vals: dict[fx.Node, Any]) -> Any:
    """``target`` run on the meta tensors of its arguments (``vals`` first, else each node's ``meta["val"]``)."""
    def meta(a: Any) -> Any:
        return vals.get(a, _val(a)) if isinstance(a, fx.Node) else a

    return target(*fx.node.map_aggregate(args, meta), **fx.node.map_aggregate(kwargs, meta))


def _refresh(node: fx.Node) -> None:
    """Recompute ``node``'s ``meta["val"]`` (a meta tensor) from its arguments'."""
    node.meta["val"] = _meta_call(node.target, node.args, node.kwargs, {})


def _select(put: fx.Node, emit: Callable[[Any, tuple[Any, ...]], Any]) -> Any:
    """The select that replaces ``put``, built by ``emit(target, args)`` (graph nodes, or meta tensors for a dry run):
    ``where(mask, value, t)``, or with ``accumulate=True`` ``t + where(mask, value, 0)`` (a boolean mask selects each
    element once). A value filled with one number (:func:`_fill`) is that number."""
    t, mask, value = put.args[0], put.args[1][0], put.args[2]  # type: ignore[index]
    fill = _fill(value)
    accumulate = put.args[3] if len(put.args) > 3 else put.kwargs.get("accumulate", False)
    if fill is not None:
        if accumulate:
            return emit(_aten.add.Tensor, (t, emit(_aten.where.Scalar, (mask, fill, 0.0))))
        return emit(_aten.where.ScalarSelf, (mask, fill, t))
    if accumulate:
        return emit(_aten.add.Tensor, (t, emit(_aten.where.ScalarOther, (mask, value, 0.0))))
    return emit(_aten.where.self, (mask, value, t))


#: factories of a tensor filled with one number: its value for ``aten.zeros`` / ``aten.ones``, the argument for ``full``
_FILLS = {_aten.zeros.default: 0.0, _aten.ones.default: 1.0, _aten.full.default: None}


def _fill(value: object) -> float | None:
    """The number a write's value is filled with, when it is a one-dimensional ``zeros`` / ``ones`` / ``full`` (the
    gradient of a masked write's base is ``index_put(g, [mask], zeros(count))``: its length is the count of selected
    elements at the trace, the same number at every one); ``None`` otherwise."""
    if not isinstance(value, fx.Node) or value.op != "call_function" or value.target not in _FILLS:
        return None
    val = _val(value)
    if val is None or val.dim() != 1 or not val.dtype.is_floating_point:
        return None
    if value.target is _aten.full.default:
        number = value.args[1] if len(value.args) > 1 else None
        return float(number) if isinstance(number, (int, float)) and not isinstance(number, bool) else None
    return _FILLS[value.target]


def _runs_on_meta(members: list[fx.Node], writes: list[fx.Node]) -> bool:
    """Whether the rewrite's shapes and dtypes can be worked out (every op on meta tensors) before anything changes."""
    vals: dict[fx.Node, Any] = {}
    try:
        for node in members:
            vals[node] = _val(node.args[0]) if node.target is _INDEX else _meta_call(node.target, node.args, node.kwargs, vals)
        for put in writes:
            _select(put, lambda target, args: _meta_call(target, args, {}, vals))
    except Exception:  # noqa: BLE001 - an op without a meta kernel: leave the writes for the lowering to name
        return False
    return True


#: factories that take a tensor for its dtype and device only (autograd's zeros for a read's gradient)
_LIKE = (_aten.new_zeros.default, _aten.new_empty.default, _aten.new_full.default, _aten.new_ones.default)


def _reads_only_kind(user: fx.Node, node: fx.Node) -> bool:
    """``user`` takes ``node`` for its dtype and device only (``node.new_zeros(size)``), not its shape or values."""
    return user.target in _LIKE and user.args[0] is node and node not in user.args[1:] and node not in user.kwargs.values()


def _puts(graph: fx.Graph) -> list[tuple[fx.Node, fx.Node]]:
    """Every ``index_put`` of one whole-shape boolean mask, with that mask."""
    out = []
    for put in graph.nodes:
        if put.op == "call_function" and put.target is _INDEX_PUT and len(put.args) >= 3:
            mask = _one_mask(put.args[1], put.args[0])
            if mask is not None and isinstance(put.args[2], fx.Node) and _val(put.args[2]) is not None:
                out.append((put, mask))
    return out


def masked_writes_to_where(graph: fx.Graph) -> int:
    """Rewrite each ``index_put(t, [mask], value)`` of a whole-shape boolean mask into ``where(mask, value, t)``
    (with ``accumulate=True``, the gradient of a read ``x[mask]``: ``t + where(mask, value, 0)``).

    ``value`` is a 0-d tensor, a one-dimensional ``zeros`` / ``ones`` / ``full`` (:func:`_fill`: autograd's
    gradient of the base written, ``index_put(g, [mask], zeros(count))``), or computed elementwise from reads
    ``x[mask]`` of the same mask (and 0-d tensors); those reads become ``x``, when every use of them and of what
    is computed from them is such a computation or such a write (else the mask's writes stay). The result keeps
    ``t``'s dtype, as the write did. Returns the number of writes rewritten (the module docstring says why the
    numbers do not change).
    """
    done = 0
    groups: list[tuple[fx.Node, list[fx.Node]]] = []  # one per mask (a rewrite changes no write's mask or value)
    for put, mask in _puts(graph):
        group = next((g for m, g in groups if _same(m, mask)), None)
        if group is None:
            groups.append((mask, [put]))
        else:
            group.append(put)
    for mask, puts in groups:
        members = _masked(graph, mask)
        inside = set(members)
        chained = [p for p in puts if p.args[2] in inside and p.args[0] not in inside]
        # a number's write: a 0-d value, or one filled with a number (the gradient of a written base)
        filled = {p: _fill(p.args[2]) is not None for p in puts}
        scalar = [
            p for p in puts
            if p.args[2] not in inside and p.args[0] not in inside
            and (filled[p] or _is_0d(p.args[2]))  # type: ignore[arg-type]
        ]
        writes = set(chained)
        if members and any(u not in inside and u not in writes and not _reads_only_kind(u, n) for n in members for u in n.users):
            chained = []  # a masked value read elsewhere (a sum, an output): its shape matters there
        if not _runs_on_meta(members if chained else [], [*chained, *scalar]):
            continue
        if chained:
            for node in members:
                if node.target is _INDEX:
                    node.replace_all_uses_with(node.args[0])  # type: ignore[arg-type]
            for node in members:
                if node.target is not _INDEX:
                    _refresh(node)
        # taken before the rewrite: fx clears an erased node's arguments
        factories: dict[fx.Node, None] = {p.args[2]: None for p in scalar if filled[p]}  # type: ignore[misc]
        for p in (*chained, *scalar):
            _to_where(graph, p)
            done += 1
        for node in reversed(members):
            if node.target is _INDEX and not node.users:
                graph.erase_node(node)
        for value in factories:  # each once, when nothing else reads it
            if not value.users:
                graph.erase_node(value)
    return done


def _to_where(graph: fx.Graph, put: fx.Node) -> None:
    """Replace one ``index_put`` (checked by the caller) by its select (:func:`_select`), in ``t``'s dtype."""
    t_val = _val(put.args[0])
    assert t_val is not None

    def emit(target: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> fx.Node:
        node = graph.call_function(target, args, kwargs or {})
        _refresh(node)
        return node

    with graph.inserting_before(put):
        where = _select(put, emit)
        if _val(where).dtype != t_val.dtype:  # type: ignore[union-attr]
            where = emit(_aten._to_copy.default, (where,), {"dtype": t_val.dtype})
    put.replace_all_uses_with(where)
    graph.erase_node(put)
