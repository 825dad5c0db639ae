"""Per-step-shaped tensors shared between calls: read-only zeros, write-only scratch, static-gradient partials.

A training step of a small layer is host-bound: a zero fill is a kernel
launch, as costly on the host as the scan itself, and an allocation costs
microseconds of host time before the launch. Omitted initial states and
missing final-state gradients (which the kernels only read) share one zero
tensor; dropped gradients go to scratch tensors nobody reads; the partial
sums of the static inputs' gradients, which a backward kernel writes and its
own reduction reads next, reuse one buffer per thread. Nothing is shared
under CUDA-graph capture, a dispatch mode (fake tensors, ``make_fx``) or for
tensor subclasses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import torch

from .layout import Order, empty_in_order
from .scan_kernel import current_raw_stream

if TYPE_CHECKING:
    from .statics import PartialsLayout, StaticPartials

__all__ = ["StepBuffers", "cached_scratch", "cached_zeros", "missing_grad", "state_grad_targets", "step_buffers"]

class StepBuffers:
    """Per-step-shaped tensors shared between calls on one device, dtype and stream.

    ``zeros`` is READ-ONLY: kernel arguments the kernels never write get it
    (the omitted initial states a backward kernel reads, missing final-state
    gradients; forward kernels make omitted initial states themselves), because a zero
    fill is a kernel launch, as costly on the host as the scan itself for
    small layers. :meth:`scratch` tensors are written by kernels and read by
    nobody (gradients that are dropped); their contents are garbage.
    :meth:`partials` buffers are written by a backward kernel and read by
    that backward's reduction, the next launch on the same stream.
    """

    __slots__ = ("shape", "dtype", "device", "zeros", "_scratch", "_local")

    def __init__(self, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, zeros: torch.Tensor) -> None:
        self.shape, self.dtype, self.device, self.zeros = shape, dtype, device, zeros
        self._scratch: list[torch.Tensor] = []
        self._local = threading.local()

    def scratch(self, slot: int) -> torch.Tensor:
        """Scratch tensor ``slot`` (several in one launch must not alias)."""
        while len(self._scratch) <= slot:  # appends are atomic under the GIL: no lock needed
            self._scratch.append(torch.empty(self.shape, dtype=self.dtype, device=self.device))
        return self._scratch[slot]

    def partials(self, layout: "PartialsLayout") -> "StaticPartials":
        """This thread's static-gradient partials of ``layout``, for a backward whose reduction makes new tensors.

        Safe to reuse because (1) these buffers are per stream, and a backward
        launches its kernel and then its reduction on this stream, so the next
        backward's kernel writes them only after that reduction has read them;
        (2) they are per thread, so two threads launching on one stream
        (autograd's device thread off) do not interleave on one buffer;
        (3) the caller asks only for a layout whose every gradient is a sum,
        a new tensor (:attr:`flexsn_runtime.statics.PartialsLayout.reduced`),
        never a view of these buffers. While a CUDA graph is captured (a
        backward captured after an uncaptured forward) fresh buffers are
        made: memory the graph uses must be the graph's own.
        """
        if self.device.type == "cuda" and _capturing():
            return layout.allocate(self.device)
        held: dict["PartialsLayout", "StaticPartials"] | None = getattr(self._local, "partials", None)
        if held is None:
            held = self._local.partials = {}
        partials = held.get(layout)
        if partials is None:
            partials = held[layout] = layout.allocate(self.device)
        return partials


_CACHE: "OrderedDict[tuple[object, ...], StepBuffers]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_MAX = 16


_dispatch_depth = getattr(torch._C, "_len_torch_dispatch_stack", None)
_capturing = getattr(torch._C, "_cuda_isCurrentStreamCapturing", None) or torch.cuda.is_current_stream_capturing


def step_buffers(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> StepBuffers | None:
    """The shared :class:`StepBuffers` of one step shape, dtype, device and current stream, or ``None``.

    Keyed by the current stream, so each is only used on the stream that
    allocated it (freeing one is then ordered after its last use).
    ``None`` (allocate per call instead) while a CUDA graph is being
    captured, a ``TorchDispatchMode`` (fake tensors, ``make_fx``) is active,
    or tensors come out as a subclass. At most 16 are kept (the oldest
    dropped first: hits skip the bookkeeping that exact LRU order needs).
    """
    if _dispatch_depth is None or _dispatch_depth() > 0:
        return None  # under a tracer or fake mode (or a torch we cannot ask): no shared tensors
    if device.type == "cuda":
        if _capturing():
            return None  # memory allocated now belongs to the graph's private pool
        index = device.index if device.index is not None else torch.cuda.current_device()
        key: tuple[object, ...] = (shape, dtype, index, current_raw_stream(index))
    else:
        key = (shape, dtype, device, 0)
    bufs = _CACHE.get(key)  # a lock-free hit: dict reads are atomic under the GIL
    if bufs is not None:
        return bufs
    zeros = torch.zeros(shape, dtype=dtype, device=device)
    if type(zeros) is not torch.Tensor:  # a tensor subclass (mode or subclass input): not shareable
        return None
    with _CACHE_LOCK:
        bufs = _CACHE.get(key)
        if bufs is None:
            bufs = _CACHE[key] = StepBuffers(shape, dtype, device, zeros)
        _CACHE.move_to_end(key)
        while len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return bufs


def cached_zeros(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A zero tensor of one time step's shape, shared between calls; READ-ONLY (see :class:`StepBuffers`).

    A fresh ``torch.zeros`` where :func:`step_buffers` shares nothing.
    """
    bufs = step_buffers(shape, dtype, device)
    return bufs.zeros if bufs is not None else torch.zeros(shape, dtype=dtype, device=device)


def cached_scratch(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, slot: int) -> torch.Tensor:
    """A per-step-shaped tensor kernels may write and nobody reads (see :class:`StepBuffers`).

    ``slot`` tells apart several in one launch; a fresh ``torch.empty``
    where :func:`step_buffers` shares nothing.
    """
    bufs = step_buffers(shape, dtype, device)
    return bufs.scratch(slot) if bufs is not None else torch.empty(shape, dtype=dtype, device=device)


def missing_grad(
    k: int, num_outputs: int, final_state: bool, input_shape: tuple[int, ...], dtype: torch.dtype,
    device: torch.device, bufs: StepBuffers | None,
) -> torch.Tensor:
    """The zeros the BPTT kernel reads for incoming gradient ``k`` (outputs, then states) when none came.

    A final-state gradient is one step: ``bufs.zeros`` when the caller holds
    step buffers, else a fresh ``[*S]`` zero tensor (nothing outlives the call
    under CUDA-graph capture); any other is a fresh ``input_shape`` zero sequence.
    """
    if k >= num_outputs and final_state:
        return bufs.zeros if bufs is not None else torch.zeros(input_shape[1:], dtype=dtype, device=device)
    return torch.zeros(input_shape, dtype=dtype, device=device)


def state_grad_targets(
    explicit: bool, num_states: int, step: tuple[int, ...], order: Order, dtype: torch.dtype, device: torch.device,
    bufs: StepBuffers | None,
) -> list[torch.Tensor]:
    """The tensors the BPTT kernel writes the initial states' gradients into.

    Passed initial states (``explicit``) get new ``[*S]`` tensors in the launch's
    ``order``; omitted (zero) ones get no gradient, so the kernel writes it to
    scratch (``bufs``; per-call tensors while a CUDA graph is captured or a tracer runs).
    """
    if explicit:
        return [empty_in_order(step, order, dtype, device) for _ in range(num_states)]
    if bufs is None:
        return [torch.empty(step, dtype=dtype, device=device) for _ in range(num_states)]
    return [bufs.scratch(j) for j in range(num_states)]
