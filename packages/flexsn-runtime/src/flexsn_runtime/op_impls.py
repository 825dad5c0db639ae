"""The scan ops' implementations: look up a handle's kernels and run the launchers.

Shared by the ``flexsn::*`` custom ops (:mod:`flexsn_runtime.ops`), their
autograd (:mod:`flexsn_runtime.op_autograd`) and the dispatcher-free eager
path, so every route runs the same lines.
"""

from __future__ import annotations

from typing import Sequence

import torch

from flexsn_trace import FlexSNInfo

from .launchers import flexsn_backward, flexsn_forward, flexsn_inference
from .registry import FlexSNKernelHandle, lookup_flexsn_kernel_handle
from .step_buffers import cached_zeros
from .training_plan import TrainingPlan, plan_for

__all__ = ["backward_impl", "inference_impl", "op_info", "training_impl", "with_states"]


def op_info(bundle: FlexSNKernelHandle, which: str) -> FlexSNInfo:
    info = {
        "inference": bundle.inference_info,
        "inference_final_state": bundle.inference_final_state_info,
        "training": bundle.training_info,
    }[which]
    if info is None:
        raise RuntimeError(f"the FlexSN {which} kernel is unavailable for this handle")
    return info


def with_states(
    info: FlexSNInfo, flat_args: Sequence[torch.Tensor], zero: torch.Tensor | None = None, shared: bool = False
) -> list[torch.Tensor]:
    """``flat_args`` with omitted initial states filled in: ``zero``, else zeros of one step.

    ``shared``: the zeros may be the process-wide read-only tensor of
    :func:`flexsn_runtime.step_buffers.cached_zeros` (the dispatcher-free eager
    path). The custom ops (what ``torch.compile`` runs, CUDA-graph trees
    included) allocate them per call: a tensor kept between calls would
    live in a CUDA graph's private pool without being one of its outputs.
    """
    n = len(flat_args) - info.num_static
    if n == info.num_inputs + info.num_states:
        return list(flat_args)
    if n != info.num_inputs:
        raise ValueError(
            f"FlexSN ops take num_inputs={info.num_inputs} input sequences optionally followed by "
            f"num_states={info.num_states} initial states, then num_static={info.num_static} static inputs; "
            f"got {len(flat_args)} tensors"
        )
    if zero is None:
        x = flat_args[0]
        # kernels only read initial states: one zero tensor serves all of them
        zero = cached_zeros(tuple(x.shape[1:]), x.dtype, x.device) if shared else x.new_zeros(x.shape[1:])
    return [*flat_args[:n], *(zero for _ in range(info.num_states)), *flat_args[n:]]


def inference_impl(
    handle: int, flat_args: Sequence[torch.Tensor], final_state: bool, shared: bool = False
) -> list[torch.Tensor]:
    """Run the inference kernel; ``shared`` as in :func:`with_states`."""
    bundle = lookup_flexsn_kernel_handle(handle)
    info = op_info(bundle, "inference_final_state" if final_state else "inference")
    kernel = bundle.inference_final_state_kernel if final_state else bundle.inference_kernel
    assert kernel is not None
    # checked already: by FlexSNKernel's contract, or by check_op_args in the op
    args = with_states(info, flat_args, shared=shared)
    return list(flexsn_inference(kernel, info, *args, final_state=final_state, checked=True))


def training_impl(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
    zero: torch.Tensor | None = None,
) -> list[torch.Tensor]:
    if plan is None:
        plan = plan_for(handle, final_state)
    args = with_states(plan.info, flat_args, zero)
    stored = plan.stored if final_state else None
    return list(flexsn_forward(plan.forward, plan.info, *args, final_state=final_state, stored=stored, checked=True))


def backward_impl(
    handle: int,
    grads: Sequence[torch.Tensor | None],
    saved: Sequence[torch.Tensor],
    templates: Sequence[torch.Tensor],
    final_state: bool,
) -> list[torch.Tensor]:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = op_info(bundle, "training")
    bwd = bundle.backward_kernel
    if bwd is None:
        raise RuntimeError("the FlexSN backward kernel is unavailable for this handle")
    kernel = bwd.final_state if final_state else bwd
    assert kernel is not None
    ni, ns = info.num_inputs, info.num_states
    return list(
        flexsn_backward(
            kernel,
            info,
            *grads,
            *saved,
            input_templates=templates[:ni],
            state_templates=templates[ni : ni + ns],
            final_state=final_state,
            static_templates=templates[ni + ns :],
        )
    )
