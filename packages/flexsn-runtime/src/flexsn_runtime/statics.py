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
import itertools
import math
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import torch

__all__ = [
    "PartialsLayout", "StaticPartials", "padded_shape", "partial_modes", "partials_layout", "permuted", "prepare_static",
    "kept_as_is", "readable_on", "run_gradients", "run_starts", "split_sums", "static_dims", "static_layout", "static_problem", "static_runs",
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
    if not all(p == 1 or p == s for p, s in zip(shape, step)):  # not `p in (1, s)`: see _pad
        return None
    run = [d for d, p in enumerate(shape) if p != 1]
    if not run:
        return 1, 1
    a, b = run[0], run[-1] + 1
    if any(shape[d] != step[d] for d in range(a, b)):
        return None
    return math.prod(step[b:]), math.prod(step[a:b])


def static_problem(statics: Sequence[object], x: torch.Tensor) -> str | None:
    """Why the kernels cannot read these static inputs beside input sequence ``x``, or ``None``.

    They need floating-point tensors on ``x``'s device (a 0-d CPU tensor is
    moved) that broadcast to the per-step shape without enlarging it.
    """
    step = tuple(x.shape[1:])
    for k, w in enumerate(statics):
        if not isinstance(w, torch.Tensor):  # a captured place now holding a number: the loop reads it as it is
            return f"static input {k} is a {type(w).__name__}, not a tensor"
        if not w.is_floating_point():
            return f"static input {k} has dtype {w.dtype}; the fused kernels read floating-point static inputs"
        if not readable_on(w, x.device):
            return f"static input {k} is on {w.device} but the inputs are on {x.device}"
        if padded_shape(w.shape, step) is None:
            return f"static input {k} of shape {tuple(w.shape)} does not broadcast to the per-step shape {step}"
    return None


def readable_on(w: torch.Tensor, device: torch.device) -> bool:
    """Whether static input ``w`` can be read beside inputs on ``device``: it is there, or a 0-d CPU tensor (moved, as PyTorch moves it)."""
    return w.device == device or (w.dim() == 0 and w.device.type == "cpu")


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
    # `p == 1 or p == s`, not `p in (1, s)`: Dynamo (torch 2.13) answers `3 in (1, s)` False for a symbolic
    # size s of 3 (torch.compile(dynamic=True)), which sent every non-scalar static to the eager loop there
    return padded if all(p == 1 or p == s for p, s in zip(padded, step)) else None


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
    forms = _forms(shape, step)
    if forms is None:
        raise ValueError(f"static input {index} of shape {shape} does not broadcast to the per-step shape {step}")
    padded, target = forms
    here = device is None or w.device == device
    if here and target == padded and w.is_contiguous():
        # already the kernels' memory (rank aside, which static_layout pads): no view node per call
        return w
    v = w.reshape(padded) if here else w.to(device).reshape(padded)
    if target != padded:
        v = v.expand(target)
    return v.contiguous()


def kept_as_is(w: torch.Tensor, step: Sequence[int], device: torch.device) -> bool:
    """Whether :func:`prepare_static` returns ``w`` itself for every contiguous tensor of ``w``'s shape and device.

    Fixed by a call signature (shapes, devices): a launch plan asks once and then checks contiguity only.
    """
    forms = _forms(tuple(w.shape), tuple(step))
    return forms is not None and forms[0] == forms[1] and w.device == device


def _forms(shape: tuple[int, ...], step: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``shape`` with the rank of ``step``, and its layout form (1-dims inside its run of non-1 dims expanded); ``None``: no broadcast."""
    padded = padded_shape(shape, step)
    if padded is None:
        return None
    run = [d for d, p in enumerate(padded) if p != 1]
    if not run:
        return padded, padded
    a, b = run[0], run[-1] + 1
    return padded, padded[:a] + step[a:b] + padded[b:]


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


def static_runs(shapes: Sequence[Sequence[int]], step: Sequence[int]) -> tuple[int, ...]:
    """The lengths of the runs of adjacent static inputs of one shape (with the rank of ``step``): the backward op's groups.

    The ``flexsn::backward`` op returns one ``[n, numel]`` fp32 sum per run
    (:meth:`PartialsLayout.run_sums`; a BatchNorm's mean, inverse standard
    deviation, weight and bias are one run), which :func:`run_gradients`
    splits into the statics' gradients outside the op. The runs depend on
    the shapes alone, not on the launch's memory order or block size, so a
    fake and the kernels agree whatever strides Inductor hands the op.
    """
    padded = [padded_shape(sh, step) or tuple(sh) for sh in shapes]
    runs: list[int] = []
    for k, sh in enumerate(padded):
        if k and sh == padded[k - 1]:
            runs[-1] += 1
        else:
            runs.append(1)
    return tuple(runs)


def run_starts(runs: Sequence[int]) -> list[int]:
    """The index of each run's first static input (:func:`static_runs`)."""
    return list(itertools.accumulate(runs, initial=0))[:-1]


def run_gradients(
    sums: Sequence[torch.Tensor], shapes: Sequence[Sequence[int]], dtypes: Sequence[torch.dtype]
) -> list[torch.Tensor]:
    """The static inputs' gradients from the ``flexsn::backward`` op's per-run sums (:func:`static_runs`).

    Args:
        sums: one fp32 ``[n, numel]`` tensor per run.
        shapes, dtypes: the statics' layout-form shapes and dtypes, in order.

    Returns:
        One gradient per static, ``shapes[k]`` and ``dtypes[k]``: views of
        ``sums`` where the dtype is fp32 (free under ``torch.compile``).
    """
    grads: list[torch.Tensor] = []
    for s in sums:
        for r in s.unbind(0):
            k = len(grads)
            r = r.view(tuple(shapes[k]))
            grads.append(r if dtypes[k] == torch.float32 else r.to(dtypes[k]))
    return grads


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


class _Group(NamedTuple):
    """Statics ``first .. first + n - 1`` of one layout and mode, sharing an ``[n, size]`` buffer (``[size]`` for one) and its sum."""

    first: int
    n: int
    size: int
    #: the row viewed as ``[outer, mid, inner']`` and summed over dims 0 and 2; ``None``: the row is the ``[mid]`` sums
    split: tuple[int, int, int] | None
    mid: int


@dataclass(frozen=True)
class PartialsLayout:
    """How a launch's static-input partials are laid out and summed: worked out once per launch signature.

    Build with :func:`partials_layout`. Statics of one layout and mode in a row (a
    BatchNorm's per-channel mean, inverse standard deviation, weight and bias)
    share one ``[count, size]`` buffer and ONE reduction (a launch costs host
    time comparable to the reduction itself).

    Attributes:
        modes: ``RED{k}`` per static (:func:`partial_modes`).
        groups: the runs sharing a buffer and a reduction.
    """

    dims: tuple[int, ...]
    ncl: int
    block: int
    modes: tuple[int, ...]
    groups: tuple[_Group, ...]

    @property
    def reduced(self) -> bool:
        """Whether every gradient :meth:`reducer` returns is a sum, a new tensor (a ``[mid]`` row is returned as it is)."""
        return all(g.split is not None for g in self.groups)

    def allocate(self, device: torch.device) -> "StaticPartials":
        """Fresh (uninitialised: the kernel writes every element) fp32 buffers on ``device``.

        A shared buffer's rows are padded to a multiple of 4 floats: each row starts on a 16-byte
        boundary, as the plans' cached launchers were specialised for (Triton specialises a pointer
        on its 16-byte alignment); the buffer is the ``[n, size]`` view of the padded one.
        """
        bufs = [
            _empty((g.n, -(-g.size // 4) * 4), dtype=torch.float32, device=device)[:, : g.size] if g.n > 1
            else _empty(g.size, dtype=torch.float32, device=device)
            for g in self.groups
        ]
        rows: list[torch.Tensor] = []
        for g, buf in zip(self.groups, bufs):
            rows += buf.unbind(0) if g.n > 1 else (buf,)
        return StaticPartials(self, bufs, rows)

    def reducer(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[torch.dtype]) -> "Callable[[list[torch.Tensor]], list[torch.Tensor]]":
        """``bufs -> gradients``: each partial summed over its broadcast dims, in layout-form ``shapes`` and ``dtypes``.

        The kernel holds the neurons in the launch's memory order; a static's non-1
        dims keep their relative order in it, so its sums are in its own order.
        For a launch plan, which sums every backward of its signature alike.
        """
        shapes = [tuple(sh) for sh in shapes]
        casts = [d if d is not torch.float32 else None for d in dtypes]
        steps = [(g, shapes[g.first : g.first + g.n], casts[g.first : g.first + g.n]) for g in self.groups]

        def reduce(bufs: list[torch.Tensor]) -> list[torch.Tensor]:
            grads: list[torch.Tensor] = []
            for (g, g_shapes, g_casts), buf in zip(steps, bufs):
                if g.n == 1:  # the usual case: one static of its layout, one sum, no unbind
                    if g.split is None:
                        sums = buf
                    elif g.mid == 1:
                        sums = buf.sum()
                    else:
                        sums = split_sums(buf, 0, g.split)
                    rows: Sequence[torch.Tensor] = (sums,)
                else:
                    rows = (buf if g.split is None else split_sums(buf, g.n, g.split)).unbind(0)
                for r, shape, cast in zip(rows, g_shapes, g_casts):
                    r = r if r.shape == shape else r.view(shape)
                    grads.append(r if cast is None else r.to(cast))
            return grads

        return reduce

    def run_sums(self, bufs: list[torch.Tensor], runs: Sequence[int]) -> list[torch.Tensor]:
        """The sums of ``bufs`` as the ``flexsn::backward`` op returns them: one fp32 ``[n, numel]`` tensor per run.

        ``runs``: :func:`static_runs` of the statics. Each run's statics share a
        buffer's group (a group is one run, or several whose statics the kernels
        index alike), so a run costs at most one reduction, and the runs' tensors
        share no storage (an op's results may not). :func:`run_gradients` turns
        them into the statics' gradients.
        """
        sums = [  # a padded buffer's rows (no sum) copied: the op's results are contiguous, as its fake says
            buf.view(g.n, g.size).contiguous() if g.split is None else split_sums(buf, g.n, g.split)
            for g, buf in zip(self.groups, bufs)
        ]
        if tuple(g.n for g in self.groups) == tuple(runs):
            return sums
        # several runs in one group (statics of other shapes indexed alike): a new tensor per run
        rows = [r for s in sums for r in s.unbind(0)]
        return [torch.stack(rows[a : a + n]) for a, n in zip(run_starts(runs), runs)]


#: Partials with at least this many rows in ``outer`` are summed in two reductions (:func:`split_sums`).
TWO_STAGE_ROWS = 8192
#: rows summed by the first of the two reductions
_STAGE = 64


def split_sums(buf: torch.Tensor, n: int, split: tuple[int, int, int]) -> torch.Tensor:
    """``[n, mid]``: ``buf`` viewed as ``[n, outer, mid, inner]`` (``split = (outer, mid, inner)``), summed over ``outer`` and
    ``inner``; ``[mid]`` for ``n = 0`` (one static's buffer, ``[outer, mid, inner]``).

    A channels-last per-channel static's partials have one row of ``mid = C`` per program, tens of
    thousands of rows in a large layer; ATen's one reduction over them reads at 0.3-1.3 TB/s on an H200,
    where summing ``64``-row blocks first and then the block sums reads at about 3 TB/s
    (``tools/results/gpu-2026-11-29e/`` run3: ``[4, 65536, 128]`` 81.5 against 42.3 µs, ``[1, 65536, 128]``
    63.1 against 13.4 µs). From :data:`TWO_STAGE_ROWS` rows on (fewer gain less than a launch costs), and only
    where ``64`` divides ``outer``; the sums are the same numbers in another order (deterministic either way).
    """
    outer, mid, inner = split
    lead = (n,) if n else ()
    if outer < TWO_STAGE_ROWS or outer % _STAGE:
        return buf.view(*lead, outer, mid, inner).sum((-3, -1))
    return buf.view(*lead, outer // _STAGE, _STAGE, mid, inner).sum((-3, -1)).sum(-2)


@functools.lru_cache(maxsize=256)
def partials_layout(dims: tuple[int, ...], ncl: int, block: int) -> PartialsLayout:
    """The partials of statics with ``inner, mid`` ints ``dims`` in a launch over ``ncl`` neurons with ``BLOCK_NCL = block``."""
    modes = partial_modes(dims, block)
    programs = -(-ncl // block)
    keys = [(dims[2 * k], dims[2 * k + 1], m) for k, m in enumerate(modes)]
    groups: list[_Group] = []
    k = 0
    while k < len(keys):
        j = k + 1
        while j < len(keys) and keys[j] == keys[k]:
            j += 1
        inner, mid, mode = keys[k]
        size = ncl if mode == 0 else programs * mode
        split: tuple[int, int, int]
        if mode == 0:  # per neuron: [outer, mid, inner]
            split = (ncl // (inner * mid), mid, inner)
        elif mode == 1:  # per program: [outer, mid, programs per inner run], or all of them for a scalar
            split = (size, 1, 1) if mid == 1 else (ncl // (inner * mid), mid, inner // block)
        else:  # one period per program: [programs, mid, inner]
            split = (size // mode, mid, inner)
        groups.append(_Group(k, j - k, size, None if split[0] * split[2] == 1 else split, mid))
        k = j
    return PartialsLayout(dims, ncl, block, modes, tuple(groups))


class StaticPartials(NamedTuple):
    """Fp32 buffers the backward kernel writes the static inputs' partial gradients into, and their reduction.

    Build with :meth:`allocate` (or :meth:`PartialsLayout.allocate`); pass
    :attr:`rows` and :attr:`modes` to the launch, then :meth:`reduce`.

    Attributes:
        layout: how the buffers are laid out and summed.
        bufs: one buffer per group of :attr:`PartialsLayout.groups`.
        rows: the kernel's ``grad_static_partials``: ``[NCL]`` (mode 0),
            ``[programs]`` (mode 1) or ``[programs * P]`` (mode ``P``), fp32.
    """

    layout: PartialsLayout
    bufs: list[torch.Tensor]
    rows: list[torch.Tensor]

    @classmethod
    def allocate(
        cls, dims: Sequence[int], ncl: int, block: int, device: torch.device
    ) -> "StaticPartials":
        """Buffers for statics of ``inner, mid`` ints ``dims`` in a launch over ``ncl`` neurons with ``BLOCK_NCL = block``."""
        return partials_layout(tuple(dims), ncl, block).allocate(device)

    @property
    def modes(self) -> tuple[int, ...]:
        """``RED{k}`` per static (:func:`partial_modes`)."""
        return self.layout.modes

    def reduce(self, shapes: Sequence[Sequence[int]], dtypes: Sequence[torch.dtype]) -> list[torch.Tensor]:
        """The static inputs' gradients, in layout-form ``shapes`` and ``dtypes`` (:meth:`PartialsLayout.reducer`)."""
        return self.layout.reducer(shapes, dtypes)(self.bufs)


_empty = torch.empty
_layout_cached = functools.lru_cache(maxsize=1024)(_layout)
_padded_cached = functools.lru_cache(maxsize=1024)(_pad)
