"""Training-call bookkeeping worked out once per handle.

A training step of a small layer is host-bound: the forward and backward
kernels take microseconds, so every lookup around them shows up in the step
time (``tools/host_probe.py``). A :class:`TrainingPlan` holds what the
launchers would otherwise recompute per call: the kernel for the
``final_state`` flag, where the forward's returns land among the op's
outputs, and which tensors the backward reads.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from flexsn_codegen import backward_saved_args, final_state_forward_returns
from flexsn_trace import FlexSNInfo

from .scan_kernel import ScanKernel
from .registry import FlexSNKernelHandle, ensure_training_kernels, training_kernels

__all__ = ["Spec", "TrainingPlan", "final_state_extras", "plan_for"]

#: shape, dtype and device of a tensor a backward produces a gradient for
Spec = tuple[tuple[int, ...], torch.dtype, torch.device]


@dataclass(frozen=True)
class TrainingPlan:
    """One handle's training kernels and their calling convention, for one ``final_state`` flag.

    Attributes:
        handle: the registry handle.
        info: the training :class:`~flexsn_trace.FlexSNInfo`.
        forward, backward: the kernels for this flag.
        final_state: state sequences are not stored; final states are returned.
        n_inputs, n_states, n_outputs: the core's arity.
        n_static: its static inputs (flat arguments after the states).
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
    n_static: int
    output_of_return: dict[int, int]
    saved: tuple[tuple[str, int], ...]
    stored: tuple[int, ...]
    #: the registry entry, kept so a retained graph can bring it back (``revive_flexsn_kernel_handle``)
    bundle: FlexSNKernelHandle

    @property
    def n_grads(self) -> int:
        """Gradients the backward takes: outputs then states (sequences or final states)."""
        return self.n_outputs + self.n_states


def final_state_extras(info: FlexSNInfo) -> list[int]:
    """Forward-kernel returns, past the outputs, that the final-state forward also returns (saved for backward)."""
    return [k for k in final_state_forward_returns(info) if k >= info.num_outputs]


def plan_for(handle: int, final_state: bool, dtype: torch.dtype = torch.float32) -> TrainingPlan:
    """The (cached) :class:`TrainingPlan` of ``handle`` for sequences of ``dtype``.

    The kernels are :func:`flexsn_runtime.registry.training_kernels`'
    choice for ``dtype``.

    Raises:
        RuntimeError: unknown handle, or a handle without training kernels.
    """
    bundle = ensure_training_kernels(handle)
    key = ("training", final_state, dtype)
    plan: TrainingPlan | None = bundle.plans.get(key)
    if plan is not None:
        return plan
    pair = training_kernels(bundle, dtype)
    if pair is None:
        raise RuntimeError("the FlexSN training kernels are unavailable for this handle")
    fwd, bwd, info = pair
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
        n_static=info.num_static,
        output_of_return=output_of_return,
        saved=tuple(backward_saved_args(info)),
        stored=tuple(final_state_forward_returns(info) if final_state else range(info.num_fwd_kernel_returns)),
        bundle=bundle,
    )
    bundle.plans[key] = plan
    return plan
