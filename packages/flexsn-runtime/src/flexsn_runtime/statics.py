"""Static inputs in the kernels' layout: one contiguous block of the per-step shape.

A static input (SpikingJelly 2.0's ``static_inputs``: a decay, a threshold,
an adaptation strength) is the same tensor at every step and broadcasts to
the per-step shape ``S`` (``torch.broadcast_to`` rules): a scalar, a
per-neuron tensor ``[*S]``, a per-channel ``[C, 1, 1]`` beside
``[B, C, H, W]``, a per-feature ``[N]`` beside ``[B, N]``. The kernels read
element ``(i // inner) % mid`` of it for neuron ``i`` (see
``flexsn_codegen.templates``), which needs the tensor in *layout form*:
contiguous, and, with its rank made ``len(S)`` by leading 1s, every dim 1 or
``S[d]``, the non-1 dims one contiguous run ``S[a:b]`` (then
``inner = prod(S[b:])``, ``mid = prod(S[a:b])``).

:func:`prepare_static` brings a static input into layout form with autograd
ops (``reshape``; ``expand`` only for 1-dims inside the run, e.g.
``[1, C, 1, W]`` beside ``[B, C, H, W]`` becomes ``[1, C, H, W]``, never an
``[NCL]`` copy for the common layouts), so autograd maps the kernels'
gradient back to the user's tensor. :func:`reduce_static_grads` sums the
backward kernel's per-neuron fp32 partial over the broadcast dimensions.
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import torch

__all__ = [
    "padded_shape", "permuted", "prepare_static", "reduce_static_grads", "static_dims", "static_layout", "static_partials", "static_problem",
]


def static_layout(shape: Sequence[int], step: Sequence[int]) -> tuple[int, int] | None:
    """``(inner, mid)`` of a static input of layout form ``shape`` beside per-step shape ``step``, else ``None``.

    Asked on every launch: answered from a cache of shape pairs (symbolic shapes under
    ``torch.compile`` are answered without it).
    """
    shape, step = tuple(shape), tuple(step)
    if _concrete(shape, step):
        return _layout_cached(shape, step)
    return _layout(shape, step)


def _concrete(*shapes: tuple[int, ...]) -> bool:
    """Whether the cache may answer: plain int shapes, and no Dynamo trace (it would trace around the cache)."""
    return not torch.compiler.is_compiling() and all(type(d) is int for sh in shapes for d in sh)


def _layout(shape: tuple[int, ...], step: tuple[int, ...]) -> tuple[int, int] | None:
    if len(shape) != len(step):  # leading 1s added or dropped: the same memory (a 0-d decay, a [C, 1, 1] beside [B, C, H, W])
        padded = _pad(shape, step)
        if padded is None:
            return None
        shape = padded
    if any(p not in (1, s) for p, s in zip(shape, step)):
        return None
    run = [d for d, p in enumerate(shape) if p != 1]
    if not run:
        return 1, 1
    a, b = run[0], run[-1] + 1
    if any(shape[d] != step[d] for d in range(a, b)):
        return None
    return math.prod(step[b:]), math.prod(step[a:b])


def static_problem(statics: Sequence[torch.Tensor], x: torch.Tensor) -> str | None:
    """Why the kernels cannot read these static inputs beside input sequence ``x``, or ``None``.

    They need floating-point tensors on ``x``'s device (a 0-d CPU tensor is
    moved) that broadcast to the per-step shape without enlarging it.
    """
    step = tuple(x.shape[1:])
    for k, w in enumerate(statics):
        if not w.is_floating_point():
            return f"static input {k} has dtype {w.dtype}; the fused kernels read floating-point static inputs"
        if w.device != x.device and not (w.dim() == 0 and w.device.type == "cpu"):
            return f"static input {k} is on {w.device} but the inputs are on {x.device}"
        if padded_shape(w.shape, step) is None:
            return f"static input {k} of shape {tuple(w.shape)} does not broadcast to the per-step shape {step}"
    return None


def padded_shape(shape: Sequence[int], step: Sequence[int]) -> tuple[int, ...] | None:
    """``shape`` with the rank of per-step shape ``step`` (leading 1s added or dropped), or ``None`` when it does not broadcast."""
    shape, step = tuple(shape), tuple(step)
    return _padded_cached(shape, step) if _concrete(shape, step) else _pad(shape, step)


def _in_order(
    shape: Sequence[int], step: Sequence[int], order: tuple[int, ...] | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A static's shape and the per-step shape as the kernels index them: dims in memory ``order`` (``flexsn_runtime.layout``)."""
    if order is None:
        return tuple(shape), tuple(step)
    padded = padded_shape(shape, step)
    assert padded is not None, "launch_order took this order only for statics that broadcast"
    return permuted(padded, order), permuted(step, order)


def permuted(shape: Sequence[int], order: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` (of the per-step rank) with its dims in memory ``order`` (``flexsn_runtime.layout``)."""
    return tuple(shape[d] for d in order)


def _pad(shape: tuple[int, ...], step: tuple[int, ...]) -> tuple[int, ...] | None:
    """``shape`` with the rank of ``step`` (leading 1s added or dropped), or ``None`` when it does not broadcast to ``step``."""
    extra = len(shape) - len(step)
    if extra > 0 and any(d != 1 for d in shape[:extra]):
        return None
    padded = shape[extra:] if extra > 0 else (1,) * -extra + shape
    return padded if all(p in (1, s) for p, s in zip(padded, step)) else None


def prepare_static(w: torch.Tensor, step: Sequence[int], index: int = 0, device: torch.device | None = None) -> torch.Tensor:
    """Static input ``w`` in layout form for per-step shape ``step`` (contiguous; differentiable).

    ``w`` itself when it is contiguous, on ``device``, and in layout form but
    for its rank (a scalar, ``[C, 1, 1]``, ``[N]``): the kernels read its
    memory as it is and its gradient comes back in its own shape.

    Raises:
        ValueError: ``w`` does not broadcast to ``step`` (the message names
            the static input by ``index``; :func:`static_problem` tells before).
    """
    step = tuple(step)
    shape = tuple(w.shape)
    padded = padded_shape(shape, step)
    if padded is None:
        raise ValueError(f"static input {index} of shape {shape} does not broadcast to the per-step shape {step}")
    run = [d for d, p in enumerate(padded) if p != 1]
    target = padded
    if run:
        a, b = run[0], run[-1] + 1
        target = padded[:a] + step[a:b] + padded[b:]
    here = device is None or w.device == device
    if here and target == padded and w.is_contiguous():
        # already the kernels' memory (rank aside, which static_layout pads): no view node per call
        return w
    v = w.reshape(padded) if here else w.to(device).reshape(padded)
    if target != padded:
        v = v.expand(target)
    return v.contiguous()


def static_dims(shapes: Sequence[Sequence[int]], step: Sequence[int], order: tuple[int, ...] | None = None) -> list[int]:
    """The kernels' ``inner, mid`` ints of the static inputs of layout-form ``shapes``, flattened.

    ``order``: the launch's memory order (:func:`flexsn_runtime.layout.launch_order`; ``None`` = contiguous),
    in which the kernels index the neurons.

    Raises:
        ValueError: a shape that is not in layout form for ``step``.
    """
    dims: list[int] = []
    for k, shape in enumerate(shapes):
        layout = static_layout(*_in_order(shape, step, order))
        if layout is None:
            raise ValueError(
                f"static input {k} of shape {tuple(shape)} is not in the kernels' layout for the per-step shape "
                f"{tuple(step)} (flexsn_runtime.statics.prepare_static makes it so)"
            )
        dims += layout
    return dims


def static_partials(
    count: int, step: Sequence[int], device: torch.device, distinct: bool = False
) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    """Fp32 ``[*step]`` tensors for the backward kernel's per-neuron partial sums, one per static input.

    Returns ``(buffer, rows)``: one ``[count, *step]`` allocation and its rows,
    so that :func:`reduce_static_grads` can sum statics of one layout in one
    kernel; with ``distinct`` (gradients a custom op returns, which must not share
    storage), ``(None, rows)`` of separate tensors.
    """
    if distinct or count == 0:
        return None, [torch.empty(tuple(step), dtype=torch.float32, device=device) for _ in range(count)]
    buf = torch.empty((count, *step), dtype=torch.float32, device=device)
    return buf, list(buf.unbind(0))


def reduce_static_grads(
    buf: torch.Tensor | None, rows: Sequence[torch.Tensor], shapes: Sequence[Sequence[int]], step: Sequence[int],
    dtypes: Sequence[torch.dtype], order: tuple[int, ...] | None = None,
) -> list[torch.Tensor]:
    """The static inputs' gradients from :func:`static_partials`: each row summed over its broadcast dims.

    ``shapes`` are the statics' layout forms, ``dtypes`` their dtypes. With a
    ``buf``, a run of statics of the same layout (a BatchNorm's per-channel mean,
    inverse standard deviation, weight and bias) is summed by ONE reduction (on
    the GPU a launch costs host time comparable to the reduction itself) and the
    gradients are views of its result; without, each row is summed on its own.
    ``order``: the launch's memory order, in which the rows hold the neurons (a static's
    non-1 dims keep their relative order in it, so its sums are in its own order).
    """
    n, ncl = len(shapes), math.prod(step)
    layouts = [static_layout(*_in_order(shape, step, order)) for shape in shapes]
    assert all(layout is not None for layout in layouts), "static_dims checked the layout before the launch"
    grads: list[torch.Tensor] = []
    k = 0
    while k < n:
        j = k + 1
        while buf is not None and j < n and layouts[j] == layouts[k]:
            j += 1
        inner, mid = layouts[k]  # type: ignore[misc]
        run = buf.view(n, ncl)[k:j] if buf is not None else rows[k].view(1, ncl)
        sums = run if inner == 1 and mid == ncl else run.view(j - k, ncl // (inner * mid), mid, inner).sum((1, 3))
        grads += [g.view(tuple(shapes[i])).to(dtypes[i]) for i, g in zip(range(k, j), sums.unbind(0))]
        k = j
    return grads


_layout_cached = functools.lru_cache(maxsize=1024)(_layout)
_padded_cached = functools.lru_cache(maxsize=1024)(_pad)
