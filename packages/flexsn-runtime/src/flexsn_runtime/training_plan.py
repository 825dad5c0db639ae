"""Training-call bookkeeping worked out once per handle, and the hot path that uses it.

A training step of a small layer is host-bound: the forward and backward
kernels take microseconds, so every lookup, template tensor and zero fill
around them shows up in the step time (``tools/host_probe.py``). A
:class:`TrainingPlan` holds what the wrappers would recompute per call
(kernel choice, where the forward's returns land among the op's outputs,
which tensors the backward reads). The forward runs through the general
wrappers of :mod:`flexsn_runtime.launchers`; :func:`plan_backward_launch`
launches the BPTT kernel without the template tensors those wrappers take.
Unusual backward calls (``T == 0``, empty layers, no incoming gradient) go
through :func:`flexsn_runtime.launchers.flexsn_backward`, which implements
SpikingJelly's ``flexsn_backward`` rules.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Sequence

import torch

from flexsn_codegen import backward_saved_args, final_state_forward_returns
from flexsn_trace import FlexSNInfo

from .scan_kernel import ScanKernel, current_raw_stream
from .registry import lookup_flexsn_kernel_handle

__all__ = [
    "StepBuffers",
    "TrainingPlan",
    "cached_scratch",
    "cached_zeros",
    "final_state_extras",
    "plan_backward_launch",
    "plan_for",
    "step_buffers",
]

class StepBuffers:
    """Per-step-shaped tensors shared between calls on one device, dtype and stream.

    ``zeros`` is READ-ONLY: kernel arguments the kernels never write get it
    (omitted initial states, missing final-state gradients), because a zero
    fill is a kernel launch, as costly on the host as the scan itself for
    small layers. :meth:`scratch` tensors are written by kernels and read by
    nobody (gradients that are dropped); their contents are garbage.
    """

    __slots__ = ("shape", "dtype", "device", "zeros", "_scratch")

    def __init__(self, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, zeros: torch.Tensor) -> None:
        self.shape, self.dtype, self.device, self.zeros = shape, dtype, device, zeros
        self._scratch: list[torch.Tensor] = []

    def scratch(self, slot: int) -> torch.Tensor:
        """Scratch tensor ``slot`` (several in one launch must not alias)."""
        while len(self._scratch) <= slot:  # appends are atomic under the GIL: no lock needed
            self._scratch.append(torch.empty(self.shape, dtype=self.dtype, device=self.device))
        return self._scratch[slot]


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


@dataclass(frozen=True)
class TrainingPlan:
    """One handle's training kernels and their calling convention, for one ``final_state`` flag.

    Attributes:
        handle: the registry handle.
        info: the training :class:`~flexsn_trace.FlexSNInfo`.
        forward, backward: the kernels for this flag.
        final_state: state sequences are not stored; final states are returned.
        n_inputs, n_states, n_outputs: the core's arity.
        output_of_return: forward-kernel return ``k`` -> index in the op's outputs
            (only for returns the op outputs).
        saved: :func:`flexsn_codegen.backward_saved_args` of ``info``.
        stored: forward-kernel returns stored as sequences (all of them, or
            with ``final_state`` :func:`flexsn_codegen.final_state_forward_returns`).
    """

    handle: int
    info: FlexSNInfo
    forward: ScanKernel
    backward: ScanKernel
    final_state: bool
    n_inputs: int
    n_states: int
    n_outputs: int
    output_of_return: dict[int, int]
    saved: tuple[tuple[str, int], ...]
    stored: tuple[int, ...]

    @property
    def n_grads(self) -> int:
        """Gradients the backward takes: outputs then states (sequences or final states)."""
        return self.n_outputs + self.n_states


def final_state_extras(info: FlexSNInfo) -> list[int]:
    """Forward-kernel returns, past the outputs, that the final-state forward also returns (saved for backward)."""
    return [k for k in final_state_forward_returns(info) if k >= info.num_outputs]


def plan_for(handle: int, final_state: bool) -> TrainingPlan:
    """The (cached) :class:`TrainingPlan` of ``handle``.

    Raises:
        RuntimeError: unknown handle, or a handle without training kernels.
    """
    bundle = lookup_flexsn_kernel_handle(handle)
    plan: TrainingPlan | None = bundle.plans.get(("training", final_state))
    if plan is not None:
        return plan
    info, fwd, bwd = bundle.training_info, bundle.forward_kernel, bundle.backward_kernel
    if info is None or fwd is None or bwd is None:
        raise RuntimeError("the FlexSN training kernels are unavailable for this handle")
    if final_state:
        assert fwd.final_state is not None and bwd.final_state is not None
        fwd, bwd = fwd.final_state, bwd.final_state
        vis = info.num_outputs + info.num_states
        output_of_return = {k: k for k in range(info.num_outputs)}
        output_of_return.update({k: vis + i for i, k in enumerate(final_state_extras(info))})
    else:
        output_of_return = {k: k for k in range(info.num_fwd_kernel_returns)}
    plan = TrainingPlan(
        handle=handle,
        info=info,
        forward=fwd,
        backward=bwd,
        final_state=final_state,
        n_inputs=info.num_inputs,
        n_states=info.num_states,
        n_outputs=info.num_outputs,
        output_of_return=output_of_return,
        saved=tuple(backward_saved_args(info)),
        stored=tuple(final_state_forward_returns(info) if final_state else range(info.num_fwd_kernel_returns)),
    )
    bundle.plans[("training", final_state)] = plan
    return plan


def plan_backward_launch(
    plan: TrainingPlan,
    grads: Sequence[torch.Tensor | None],
    saved: Sequence[torch.Tensor],
    input_shape: tuple[int, ...],
    dtype: torch.dtype,
    device: torch.device,
    state_grads: bool = True,
    bufs: StepBuffers | None = None,
) -> list[torch.Tensor] | None:
    """Launch the BPTT kernel; ``None`` for calls the general wrapper handles.

    Args:
        grads: ``n_outputs + n_states`` incoming gradients (``None`` = zero).
        saved: the tensors ``plan.saved`` lists, in order.
        input_shape: ``[T, *shape]`` of the input sequences (they share it).
        dtype, device: of the gradients to produce.
        state_grads: ``False`` when nobody reads the initial states' gradients
            (they were omitted zeros): the kernel writes them to a shared
            scratch tensor, which is returned in their place.
        bufs: ``step_buffers(input_shape[1:], dtype, device)`` when the
            caller has it (one lookup per backward).

    Returns:
        ``[*grad_input_seqs, *grad_init_states]``, or ``None`` when ``T == 0``,
        the layer is empty, or no gradient arrived (left to
        :func:`flexsn_runtime.launchers.flexsn_backward`).
    """
    T = input_shape[0]
    step = tuple(input_shape[1:])
    ncl = math.prod(step)
    if T == 0 or ncl == 0 or all(g is None for g in grads):
        return None
    no = plan.n_outputs
    kernel_grads: list[torch.Tensor] = []
    like: torch.Tensor | None = None  # an incoming [T, *shape] gradient of our dtype, to allocate like
    for k, g in enumerate(grads):
        if g is not None:
            g = g.contiguous()
            if like is None and g.shape == input_shape and g.dtype == dtype and (k < no or not plan.final_state):
                like = g
            kernel_grads.append(g)
        elif k >= no and plan.final_state:
            kernel_grads.append(bufs.zeros if bufs is not None else cached_zeros(step, dtype, device))
        else:
            kernel_grads.append(torch.zeros(input_shape, dtype=dtype, device=device))
    if like is None:  # only final-state gradients arrived
        like = torch.empty(input_shape, dtype=dtype, device=device)
        grad_inputs = [like] + [torch.empty_like(like) for _ in range(plan.n_inputs - 1)]
    else:
        grad_inputs = [torch.empty_like(like) for _ in range(plan.n_inputs)]
    if state_grads:
        grad_states = [torch.empty(step, dtype=dtype, device=device) for _ in range(plan.n_states)]
    elif bufs is not None:
        grad_states = [bufs.scratch(j) for j in range(plan.n_states)]
    else:
        grad_states = [cached_scratch(step, dtype, device, j) for j in range(plan.n_states)]
    plan.backward.launch([*kernel_grads, *(s.contiguous() for s in saved), *grad_inputs, *grad_states], T, ncl, like)
    return [*grad_inputs, *grad_states]
