"""Memory order of the sequences a launch reads and writes: contiguous, or the caller's dense layout.

The scan is elementwise over the neurons of a step: the kernels read and
write ``[T, NCL]`` memory, element ``i`` of every tensor being the same
neuron. Any *dense* per-step layout whose time dimension is outermost is
therefore read as it is, provided every tensor of the launch shares it. A
channels-last convolution's output (``torch.channels_last``, which Inductor's
layout optimisation picks for convolutions on the GPU) viewed as
``[T, B, C, H, W]`` is such a layout: its per-step dims in memory order are
``(B, H, W, C)``. Copying it to contiguous memory before the scan (and the
spikes back after) costs two passes over the sequence, as much as the scan
itself at T = 8.

A launch's *order* (:func:`launch_order`) is ``None`` for contiguous
memory, the common case, or the permutation of the per-step dims from the
outermost in memory to the innermost. Outputs are allocated in it
(:func:`empty_in_order`), as PyTorch's pointwise operators
keep their input's memory format. Any other tensor of the launch is read
where it lies when its order is the launch's, or the launch's with its two
innermost groups of dims swapped (a contiguous state beside channels-last
sequences, a channels-last saved input in a contiguous backward: the
kernels' second memory order, :func:`fit_orders`); else it is copied to the
launch's order (:func:`in_order`). Static inputs
broadcast through index arithmetic on the memory index
(:mod:`flexsn_runtime.statics`), so a layout is taken only where every static
input reads correctly in it: its non-1 dims must keep their relative order
(a per-channel ``[C, 1, 1]`` or a scalar always do) and stay one run of the
permuted per-step shape; otherwise the launch falls back to contiguous copies.

The custom ops' fake implementations allocate with the same functions, so
the strides ``torch.compile`` plans with are the strides the kernels write
(Inductor re-runs them on the strides it chose, ``ir.FallbackKernel.process_kernel``).
"""

from __future__ import annotations

import math
from typing import Collection, Sequence

import torch

from flexsn_codegen import checkpoint_rows
from flexsn_trace import FlexSNInfo

from .statics import padded_shape, permuted, static_layout

__all__ = ["Order", "backward_order", "call_order", "empty_in_order", "fit_orders", "in_order", "launch_order", "seq_order", "stored_shape", "strides_in_order"]

#: per-step dims from the outermost in memory to the innermost; ``None`` = contiguous
Order = tuple[int, ...] | None


def seq_order(x: torch.Tensor) -> Order:
    """The memory order of sequence ``x`` (``[T, *S]``) if the kernels can read it as it is, else ``None``.

    ``None`` when ``x`` is contiguous (read as it is) or when no other order
    serves: overlapping or gapped memory, or time not the outermost dim (such
    inputs are copied to contiguous memory).
    """
    if x.dim() < 2 or x.is_contiguous():
        return None
    shape, stride = x.shape, x.stride()
    if shape[0] == 0 or math.prod(shape[1:]) == 0:
        return None
    # dims of size 1 do not move memory: innermost, in their own order. bool(): a fake tensor's sizes are
    # symbolic under torch.compile's dynamic shapes, and sorting compares the keys; two symbolic bools cannot be
    # compared (sympy's "BooleanAtom not allowed"), so each size-1 test is decided (and guarded) first
    order = tuple(sorted(range(x.dim() - 1), key=lambda d: (bool(shape[d + 1] == 1), -stride[d + 1], d)))
    acc = 1
    for d in reversed(order):  # dense: each dim's stride is the size of the dims inside it
        if shape[d + 1] != 1 and stride[d + 1] != acc:
            return None
        acc *= shape[d + 1]
    if shape[0] > 1 and stride[0] != acc:
        return None
    return order


def _static_fits(shape: Sequence[int], step: tuple[int, ...], order: tuple[int, ...]) -> bool:
    """Whether a static input of layout form ``shape`` is read correctly in ``order`` (see the module docstring)."""
    padded = padded_shape(shape, step)
    if padded is None:
        return False
    kept = [d for d in order if padded[d] != 1]
    if kept != sorted(kept):  # flattened in order, its memory must stay its own
        return False
    return static_layout(permuted(padded, order), permuted(step, order)) is not None


def launch_order(x: torch.Tensor, static_shapes: Sequence[Sequence[int]] = ()) -> Order:
    """The order of a launch over sequence ``x`` with static inputs of layout forms ``static_shapes``.

    :func:`seq_order` of ``x``, or ``None`` (contiguous) when a static input
    would not be read correctly in it.
    """
    order = seq_order(x)
    if order is None or not static_shapes:
        return order
    step = tuple(x.shape[1:])
    return order if all(_static_fits(s, step, order) for s in static_shapes) else None


def call_order(flat_args: Sequence[torch.Tensor], num_static: int) -> Order:
    """The :func:`launch_order` of a call's flat arguments ``[*input_seqs, *init_states?, *static_inputs]``
    (``num_static`` of them last): what the launchers launch in, the ops' fakes allocate in and the prewarm guesses."""
    return launch_order(flat_args[0], [w.shape for w in flat_args[len(flat_args) - num_static :]])


def _strides(shape: Sequence[int], order: tuple[int, ...], lead: int) -> tuple[int, ...]:
    """Strides of a tensor whose last ``len(order)`` dims are laid out in ``order`` after ``lead`` leading dims."""
    rank = len(shape)
    strides = [0] * rank
    acc = 1
    for d in reversed(order):
        strides[lead + d] = acc
        acc *= shape[lead + d]
    for d in reversed(range(lead)):
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def strides_in_order(shape: Sequence[int], order: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of a dense sequence ``[T, *S]`` or state ``[*S]`` of ``shape`` whose per-step dims lie in ``order``."""
    return _strides(shape, order, len(shape) - len(order))


def empty_in_order(shape: Sequence[int], order: Order, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """An uninitialised sequence ``[T, *S]`` or state ``[*S]`` in ``order`` (contiguous for ``None``)."""
    if order is None:
        return torch.empty(tuple(shape), dtype=dtype, device=device)
    return torch.empty_strided(tuple(shape), strides_in_order(shape, order), dtype=dtype, device=device)


def backward_order(
    tensors: Sequence[torch.Tensor | None], seq_shape: Sequence[int], static_shapes: Sequence[Sequence[int]] = ()
) -> Order:
    """The order of a backward launch: the :func:`launch_order` most of the ``[T, *S]`` tensors of ``tensors`` share.

    ``tensors`` are the saved tensors then the incoming gradients; the fewest
    of them are copied. Under ``torch.compile`` they come in the strides
    Inductor chose, which may differ: a saved output traced contiguous is kept
    so while the convolution beside it went channels-last. Between orders that
    as many sequences share, the one more of the call's per-step tensors share
    (states ``[*S]``, checkpoint rows ``[R, *S]``) wins, then the earliest
    sequence's: a gradient and a saved input of one order each, beside three
    contiguous states and rows, copy the input alone instead of four tensors.
    A tensor no launch reads as it is (gapped or overlapping memory: the
    expanded gradient of a ``sum()``) is copied whatever the order and has no
    say. ``None`` (contiguous) when none is a sequence.

    The choice reads shapes and strides only, so a fake implementation that
    plans an op's outputs from it agrees with the call that writes them.
    """
    seq_shape = tuple(seq_shape)
    step = seq_shape[1:]
    votes: dict[Order, list[int]] = {}
    by_first_seq: list[Order] = []  # the sequences' orders, in the order a sequence first took each
    for t in tensors:
        if t is None:
            continue
        shape = tuple(t.shape)
        if shape == seq_shape:
            kind, seq = 0, t
        elif shape == step:  # a state: the order of its steps (T = 1 frees the outer stride)
            kind, seq = 1, t.unsqueeze(0)
        elif len(shape) == len(seq_shape) and shape[1:] == step:  # checkpoint rows
            kind, seq = 1, t
        else:
            continue
        if not seq.is_contiguous() and seq_order(seq) is None:
            continue  # copied to whichever order the launch takes (an expanded gradient of a sum): no vote
        order = launch_order(seq, static_shapes)
        counts = votes.setdefault(order, [0, 0])
        counts[kind] += 1
        if kind == 0 and order not in by_first_seq:
            by_first_seq.append(order)
    return max(by_first_seq, key=lambda o: tuple(votes[o])) if by_first_seq else None  # max keeps the first of equals


def in_order(t: torch.Tensor, order: Order) -> torch.Tensor:
    """``t`` (a sequence or a state) in the launch's memory order: itself when it is, else a copy.

    A tensor of lower rank (a static input among the saved tensors: the
    kernels read those in their own layout form) is made contiguous; a
    static input of the per-step rank is in the order already when
    :func:`launch_order` took it (its non-1 dims keep their relative order).
    """
    lead = t.dim() - (0 if order is None else len(order))
    if order is None or lead < 0:
        return t.contiguous()
    if _in_order_already(t, order, lead):
        return t
    return torch.empty_strided(t.shape, _strides(t.shape, order, lead), dtype=t.dtype, device=t.device).copy_(t)


def _own_order(t: torch.Tensor, lead: int) -> tuple[int, ...] | None:
    """The per-step order of ``t`` (``lead`` 0: a state ``[*S]``; 1: a sequence or rows ``[R, *S]``), or ``None``
    where the kernels cannot index it one element per neuron (gapped, overlapping, time not outermost)."""
    if t.is_contiguous():
        return tuple(range(t.dim() - lead))
    return seq_order(t if lead else t.unsqueeze(0))


def _swap(step: tuple[int, ...], launch: tuple[int, ...], own: tuple[int, ...]) -> tuple[int, int] | None:
    """``(inner, mid)`` when ``own`` is ``launch`` with its two innermost groups of dims swapped, else ``None``.

    Size-1 dims are left out (they move no memory). ``launch = P + G1 + G2`` and ``own = P + G2 + G1``:
    ``inner`` is the size of ``G2``, ``mid`` of ``G1``; neuron ``i`` of the launch is element
    ``(i // (inner * mid)) * inner * mid + (i % inner) * mid + (i // inner) % mid`` of the tensor
    (``flexsn_codegen.addressing._offsets``). Contiguous ``[B, C, H, W]`` beside channels-last
    (``(B, H, W, C)``): ``G1 = (H, W)``, ``G2 = (C,)``.
    """
    a = [d for d in launch if step[d] != 1]
    b = [d for d in own if step[d] != 1]
    p = 0
    while p < len(a) and a[p] == b[p]:
        p += 1
    for k in range(p + 1, len(a)):
        if b[p:] == a[k:] + a[p:k]:
            return math.prod(step[d] for d in a[k:]), math.prod(step[d] for d in a[p:k])
    return None


def fit_orders(
    tensors: Sequence[torch.Tensor | None], order: Order, step: Sequence[int], zeros: Collection[int] = ()
) -> tuple[list[torch.Tensor | None], tuple[int, int, int]]:
    """The first tensor arguments of a launch in ``order``, and the launch's second memory order.

    Each tensor is kept as it is when it is in ``order``, or when its per-step
    dims lie in ``order`` with the two innermost groups swapped (the kernel
    then indexes it so, ``flexsn_codegen.addressing._offsets``: bit ``k`` of the
    mask for ``tensors[k]``); every tensor so kept shares one swap. Others are
    copied (:func:`in_order`). A contiguous state or checkpoint rows beside
    channels-last sequences, or a channels-last saved input in a contiguous
    launch, are read where they lie: the copy wrote and read them once more.

    Args:
        tensors: the launch's leading tensor arguments (kernel order; ``None``
            entries are kept), sequences ``[T, *S]``, rows ``[R, *S]``, states
            ``[*S]``, or static inputs of lower rank (made contiguous).
        order: the launch's memory order (:func:`launch_order`, :func:`backward_order`).
        step: ``S``.
        zeros: positions of dense zero tensors, read alike in any order: kept as they are.

    Returns:
        ``(tensors, (mask, inner, mid))``; ``(0, 1, 1)`` when every tensor is in ``order``
        (or was copied to it).
    """
    step = tuple(step)
    launch = tuple(range(len(step))) if order is None else order
    out = list(tensors)
    mask, swap = 0, None
    for k, t in enumerate(tensors):
        if t is None or k in zeros:
            continue
        lead = t.dim() - len(step)
        if lead in (0, 1) and tuple(t.shape[lead:]) == step:
            if _in_order_already(t, order, lead):
                continue  # the common case: as it is, without in_order asking the same again
            own = _own_order(t, lead)
            sw = None if own is None else _swap(step, launch, own)
            if sw is not None and swap in (None, sw):
                swap, mask = sw, mask | (1 << k)
                continue
        out[k] = in_order(t, order)
    return out, (mask, *swap) if swap is not None else (0, 1, 1)


def _in_order_already(t: torch.Tensor, order: Order, lead: int) -> bool:
    """Whether ``t`` (a sequence, rows or state of the launch's rank, ``lead`` leading dims) lies in ``order``."""
    if order is None:
        return t.is_contiguous()
    want = _strides(t.shape, order, lead)
    return all(s == w for s, w, n in zip(t.stride(), want, t.shape) if n != 1)


def stored_shape(info: FlexSNInfo, k: int, shape: Sequence[int]) -> tuple[int, ...]:
    """Shape of return ``k`` of the final-state training forward for input sequences of ``shape`` ``[T, *S]``.

    ``[T, *S]``, or ``[ceil(T / chunk), *S]`` for a state's checkpoints when the
    backward recomputes the steps (:func:`flexsn_codegen.checkpoint_rows`).
    """
    rows = checkpoint_rows(info, shape[0])
    if rows is not None and info.num_outputs <= k < info.num_outputs + info.num_states:
        return (rows, *shape[1:])
    return tuple(shape)
