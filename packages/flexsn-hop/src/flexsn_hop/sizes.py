"""Sizes among ``flex_sn_scan``'s lifted arguments: the symbolic ints Dynamo lifts (and the floats it lifts).

When ``torch.compile`` meets a second batch size it recompiles with dynamic
shapes, and Dynamo's ``speculate_subgraph`` then lifts every free symbol of
the body's input shapes (the batch size ``s0`` of ``x[0]``) as one more body
input: an ``int`` / ``torch.SymInt`` among the lifted arguments, as torch's
own ``cond`` and ``while_loop`` take sizes among their operands.

The eager loop passes them to the body where they came. The fused kernels take
tensors only, so they are built from a copy of the body without those
parameters (:func:`without_sizes`); their shape check keeps a body that
computes with a size on the loop. A float Dynamo lifts (a ``torch.SymFloat``
under ``dynamic=True``) is made a 0-d tensor (:func:`split_sizes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
from torch import fx

from ._types import CoreFn
from .per_body import PerBody

__all__ = ["LiftedSizes", "is_size", "split_sizes", "without_sizes"]

#: (body, (offset, positions)) -> the body with probes for its sizes, or the reason there is none
_PROBED: PerBody[tuple[int, tuple[int, ...]], CoreFn | str] = PerBody()


def is_size(value: object) -> bool:
    """``True`` for an ``int`` or ``torch.SymInt`` (a ``bool`` is not a size)."""
    return isinstance(value, (int, torch.SymInt)) and not isinstance(value, bool)


class LiftedSizes(NamedTuple):
    """The sizes among one call's lifted arguments.

    Attributes:
        positions: their indices among the lifted arguments (tensors and
            sizes together, the body's order), ascending.
        values: the sizes, ``int`` or ``torch.SymInt``.
    """

    positions: tuple[int, ...] = ()
    values: tuple[int | torch.SymInt, ...] = ()

    def bind(self, core: CoreFn, offset: int) -> CoreFn:
        """``core`` taking the lifted tensors only; the sizes go back in their places.

        ``offset`` is the number of body arguments before the lifted ones
        (``num_inputs + num_states``). Returns ``core`` itself when there are no sizes.
        """
        if not self.positions:
            return core
        slots = dict(zip(self.positions, self.values))
        count = len(self.positions)

        def with_sizes(*args: Any) -> Any:
            full = list(args[:offset])
            rest = iter(args[offset:])
            for k in range(len(args) - offset + count):
                full.append(slots[k] if k in slots else next(rest))
            return core(*full)

        with_sizes.__name__ = getattr(core, "__name__", type(core).__name__)
        return with_sizes


def split_sizes(
    lifted: Sequence[object], first_index: int, like: object = None
) -> tuple[tuple[torch.Tensor, ...], LiftedSizes]:
    """Split the lifted arguments into tensors and :class:`LiftedSizes`.

    ``first_index`` is the first lifted argument's index in ``flat_args`` (for messages). A ``float`` or
    ``torch.SymFloat`` (a float attribute the body reads, lifted by ``torch.compile(dynamic=True)``) becomes
    a 0-d tensor in its place, float32 (float64 beside float64 sequences) on ``like``'s device: the body
    computes with it as with the number, and the fused kernels read it as a scalar static input each call
    instead of baking a value Dynamo does not guard.

    Raises:
        TypeError: a lifted argument that is neither a tensor, a size nor a float.
    """
    tensors: list[torch.Tensor] = []
    positions: list[int] = []
    values: list[int | torch.SymInt] = []
    for k, a in enumerate(lifted):
        if isinstance(a, torch.Tensor):
            tensors.append(a)
        elif is_size(a):
            positions.append(k)
            values.append(a)  # type: ignore[arg-type]
        elif isinstance(a, (float, torch.SymFloat)):
            tensors.append(_scalar_tensor(a, like))
        else:
            raise TypeError(
                f"flex_sn_scan: flat_args[{first_index + k}] must be a torch.Tensor (or, among the lifted "
                f"arguments, an int / SymInt size or a float), got {type(a).__name__}"
            )
    return tuple(tensors), LiftedSizes(tuple(positions), tuple(values))


def _scalar_tensor(value: float | torch.SymFloat, like: object) -> torch.Tensor:
    """``value`` as a 0-d tensor beside ``like`` (input 0; see :func:`split_sizes`)."""
    ref = like if isinstance(like, torch.Tensor) else None
    dtype = torch.float64 if ref is not None and ref.dtype == torch.float64 else torch.float32
    # a SymFloat is taken at run time (recorded as aten.scalar_tensor while tracing); the stubs say number only
    return torch.scalar_tensor(value, dtype=dtype, device=None if ref is None else ref.device)  # type: ignore[arg-type]


def _probe(core: fx.GraphModule, offset: int, positions: tuple[int, ...]) -> CoreFn | str:
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    placeholders = [n for n in core.graph.nodes if n.op == "placeholder"]
    drop = {offset + k for k in positions}
    if not placeholders or max(drop) >= len(placeholders):
        return "the body has fewer parameters than the call passes"
    for i, node in enumerate(placeholders):
        if i not in drop:
            env[node] = graph.node_copy(node, lambda n: env[n])
    probe = graph.call_method("numel", (env[placeholders[0]],))
    for i in drop:
        env[placeholders[i]] = probe
    for node in core.graph.nodes:
        if node.op != "placeholder":
            env[node] = graph.node_copy(node, lambda n: env[n])
    return fx.GraphModule(core, graph, class_name=type(core).__name__)


def without_sizes(core: CoreFn, offset: int, sizes: LiftedSizes) -> CoreFn | str:
    """``core`` taking the lifted tensors only, or the reason there is no such body.

    Each size parameter is replaced by a probe: the element count of the
    body's first input. The fused kernels trace the body at two per-step
    shapes and refuse a step whose arithmetic changes with the shape
    (:class:`flexsn_runtime.FlexSNKernel`), so a body that computes with a
    size runs on the eager loop, with the real sizes and a warning, and a
    body that only receives one (the common case: the size sits in the step
    tensors' shapes) runs fused.

    The copy is made once per body and kept while the body lives (Dynamo
    makes one body per compilation), so the kernels built for it are
    reused. ``offset`` is ``num_inputs + num_states``.
    """
    if not sizes.positions:
        return core
    if not isinstance(core, fx.GraphModule):
        return "sizes among the lifted arguments are only taken out of a torch.fx.GraphModule body (Dynamo's)"
    return _PROBED.get(core, (offset, sizes.positions), lambda: _probe(core, offset, sizes.positions))
