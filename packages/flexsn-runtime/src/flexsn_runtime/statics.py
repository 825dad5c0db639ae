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
gradient back to the user's tensor. :class:`StaticPartials` holds the
backward kernel's fp32 partials (summed over time and, where a program's
neurons share static elements, over them) and sums them over the broadcast
dimensions.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import torch

__all__ = [
    "StaticPartials", "padded_shape", "partial_modes", "permuted", "prepare_static", "static_dims", "static_layout",
    "static_problem",
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


def partial_modes(dims: Sequence[int], block: int) -> tuple[int, ...]:
    """The backward kernel's ``RED{k}`` per static input (``flexsn_codegen.templates``): how a program stores its gradient.

    ``dims``: the statics' ``inner, mid`` ints (:func:`static_dims`); ``block``: the launch's
    ``BLOCK_NCL`` (a power of two). 1 when a program's neurons all read one element (a
    scalar, or ``inner`` a multiple of ``block``: a per-channel ``[C, 1, 1]`` beside
    ``[B, C, 32, 32]``); ``inner * mid`` when that period divides ``block`` (a channels-last
    per-channel static: ``inner = 1, mid = C``); else 0, one value per neuron.
    """
    modes = []
    for inner, mid in zip(dims[0::2], dims[1::2]):
        if mid == 1 or inner % block == 0:
            modes.append(1)
        elif block % (inner * mid) == 0:
            modes.append(inner * mid)
        else:
            modes.append(0)
    return tuple(modes)


@dataclass
class StaticPartials:
    """Fp32 buffers the backward kernel writes the static inputs' partial gradients into, and their reduction.

    Build with :meth:`allocate`; pass :attr:`rows` and :attr:`modes` to the
    launch, then :meth:`reduce`. Statics of one layout and mode in a row (a
    BatchNorm's per-channel mean, inverse standard deviation, weight and bias)
    share one ``[count, size]`` buffer and ONE reduction (a launch costs host
    time comparable to the reduction itself) unless ``distinct``.

    Attributes:
        modes: ``RED{k}`` per static (:func:`partial_modes`).
        rows: the kernel's ``grad_static_partials``: ``[NCL]`` (mode 0),
            ``[programs]`` (mode 1) or ``[programs * P]`` (mode ``P``), fp32.
    """

    dims: tuple[int, ...]
    ncl: int
    block: int
    modes: tuple[int, ...]
    rows: list[torch.Tensor]
    #: (first static, [count, size] buffer) per run sharing a reduction
    groups: list[tuple[int, torch.Tensor]]

    @classmethod
    def allocate(
        cls, dims: Sequence[int], ncl: int, block: int, device: torch.device, distinct: bool = False
    ) -> "StaticPartials":
        """Buffers for statics of ``inner, mid`` ints ``dims`` in a launch over ``ncl`` neurons with ``BLOCK_NCL = block``.

        ``distinct``: every static gets a buffer of its own (gradients a custom op
        returns must not share storage).
        """
        dims, modes = tuple(dims), partial_modes(dims, block)
        programs = -(-ncl // block)
        keys = [(dims[2 * k], dims[2 * k + 1], m) for k, m in enumerate(modes)]
        rows: list[torch.Tensor] = []
        groups: list[tuple[int, torch.Tensor]] = []
        k = 0
        while k < len(keys):
            j = k + 1
            while not distinct and j < len(keys) and keys[j] == keys[k]:
                j += 1
            mode = keys[k][2]
            size = ncl if mode == 0 else programs * mode
            buf = torch.empty((j - k, size), dtype=torch.float32, device=device)
            groups.append((k, buf))
            rows += buf.unbind(0)
            k = j
        return cls(dims, ncl, block, modes, rows, groups)

    def reduce(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[torch.dtype]) -> list[torch.Tensor]:
        """The static inputs' gradients: each partial summed over its broadcast dims, in layout-form ``shapes`` and ``dtypes``.

        The kernel holds the neurons in the launch's memory order; a static's non-1
        dims keep their relative order in it, so its sums are in its own order.
        """
        grads: list[torch.Tensor] = []
        for k, buf in self.groups:
            inner, mid, mode = self.dims[2 * k], self.dims[2 * k + 1], self.modes[k]
            count = buf.shape[0]
            if mode == 0:  # per neuron: [outer, mid, inner]
                split = (self.ncl // (inner * mid), mid, inner)
            elif mode == 1:  # per program: [outer, mid, programs per inner run], or all of them for a scalar
                split = (buf.shape[1], 1, 1) if mid == 1 else (self.ncl // (inner * mid), mid, inner // self.block)
            else:  # one period per program: [programs, mid, inner]
                split = (buf.shape[1] // mode, mid, inner)
            sums = buf.view(count, mid) if split[0] * split[2] == 1 else buf.view(count, *split).sum((1, 3))
            grads += [g.view(tuple(shapes[i])).to(dtypes[i]) for i, g in zip(range(k, k + count), sums.unbind(0))]
        return grads


_layout_cached = functools.lru_cache(maxsize=1024)(_layout)
_padded_cached = functools.lru_cache(maxsize=1024)(_pad)
