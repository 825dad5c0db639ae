"""The scan ops' implementations: look up a handle's kernels and run the launchers.

Shared by the ``flexsn::*`` custom ops (:mod:`flexsn_runtime.ops`), their
autograd (:mod:`flexsn_runtime.op_autograd`) and the dispatcher-free eager
path, so every route runs the same lines.
"""

from __future__ import annotations

from typing import Sequence

import torch

from flexsn_trace import FlexSNInfo

from .launchers import flexsn_backward, launch_forward, launch_inference
from .registry import FlexSNKernelHandle, lookup_flexsn_kernel_handle
from .scan_kernel import ScanKernel
from .statics import static_dims
from .step_buffers import cached_zeros
from .training_plan import TrainingPlan, plan_for

__all__ = ["backward_impl", "inference_impl", "inference_kernel", "launch_args", "op_info", "training_impl"]


def op_info(bundle: FlexSNKernelHandle, which: str) -> FlexSNInfo:
    info = {
        "inference": bundle.inference_info,
        "inference_final_state": bundle.inference_final_state_info,
        "training": bundle.training_info,
    }[which]
    if info is None:
        raise RuntimeError(f"the FlexSN {which} kernel is unavailable for this handle")
    return info


def launch_args(
    info: FlexSNInfo, flat_args: Sequence[torch.Tensor], zero: torch.Tensor | None = None, shared: bool = False
) -> tuple[torch.Tensor, list[torch.Tensor], list[int]]:
    """The launch form of checked ``[*input_seqs, *init_states?, *statics]``: ``(input 0, contiguous tensors, static ints)``.

    Omitted initial states are ``zero``, else zeros of one step: with
    ``shared`` the process-wide read-only tensor of
    :func:`flexsn_runtime.step_buffers.cached_zeros` (the dispatcher-free
    eager path). The custom ops (what ``torch.compile`` runs, CUDA-graph
    trees included) allocate them per call: a tensor kept between calls
    would live in a CUDA graph's private pool without being one of its
    outputs. The tensors were checked already (``FlexSNKernel``'s contract,
    the ops' ``check_op_args``, the call cache's signature).

    Raises:
        ValueError: a count that is neither with nor without the states.
    """
    nst = info.num_static
    n = len(flat_args) - nst
    x = flat_args[0]
    if n == info.num_inputs and info.num_states:
        if zero is None:
            # kernels only read initial states: one zero tensor serves all of them
            zero = cached_zeros(tuple(x.shape[1:]), x.dtype, x.device) if shared else x.new_zeros(x.shape[1:])
        body = [*flat_args[:n], *(zero for _ in range(info.num_states))]
    elif n == info.num_inputs + info.num_states:
        body = list(flat_args[:n])
    else:
        raise ValueError(
            f"FlexSN ops take num_inputs={info.num_inputs} input sequences optionally followed by "
            f"num_states={info.num_states} initial states, then num_static={nst} static inputs; "
            f"got {len(flat_args)} tensors"
        )
    if not nst:
        return x, [a.contiguous() for a in body], []
    statics = flat_args[n:]
    dims = static_dims([w.shape for w in statics], x.shape[1:])
    return x, [a.contiguous() for a in (*body, *statics)], dims


def inference_kernel(bundle: FlexSNKernelHandle, final_state: bool) -> tuple[ScanKernel, FlexSNInfo]:
    """A handle's inference kernel for ``final_state`` and its info.

    Raises:
        RuntimeError: the handle has none.
    """
    info = op_info(bundle, "inference_final_state" if final_state else "inference")
    kernel = bundle.inference_final_state_kernel if final_state else bundle.inference_kernel
    if kernel is None:
        raise RuntimeError("the FlexSN inference kernel is unavailable for this handle")
    return kernel, info


def inference_impl(
    handle: int, flat_args: Sequence[torch.Tensor], final_state: bool, shared: bool = False
) -> list[torch.Tensor]:
    """Run the inference kernel on checked tensors; ``shared`` as in :func:`launch_args`."""
    kernel, info = inference_kernel(lookup_flexsn_kernel_handle(handle), final_state)
    return list(launch_inference(kernel, info, *launch_args(info, flat_args, shared=shared), final_state))


def training_impl(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
    zero: torch.Tensor | None = None,
) -> list[torch.Tensor]:
    """Run the training forward kernel on checked tensors (``zero``: the omitted initial states)."""
    if plan is None:
        plan = plan_for(handle, final_state)
    stored = plan.stored if final_state else None
    return list(launch_forward(plan.forward, plan.info, *launch_args(plan.info, flat_args, zero), final_state, stored))


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
