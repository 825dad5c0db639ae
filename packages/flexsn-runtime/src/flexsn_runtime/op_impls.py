"""The scan ops' implementations: look up a handle's kernels and run the launchers.

Shared by the ``flexsn::*`` custom ops (:mod:`flexsn_runtime.ops`), their
autograd (:mod:`flexsn_runtime.op_autograd`) and the dispatcher-free eager
path, so every route runs the same lines.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import torch

from flexsn_trace import FlexSNInfo

from .backward_launchers import flexsn_backward
from .launchers import launch_args, launch_forward, launch_inference
from .op_plans import planned_op_backward, planned_op_forward
from .registry import FlexSNKernelHandle, lookup_flexsn_kernel_handle
from .scan_kernel import ScanKernel
from .statics import static_runs
from .training_plan import TrainingPlan, plan_for

__all__ = [
    "backward_impl", "check_traced_constants", "inference_impl", "inference_kernel", "op_info", "plan_backward", "training_impl",
]


def op_info(bundle: FlexSNKernelHandle, which: str) -> FlexSNInfo:
    """The :class:`flexsn_trace.FlexSNInfo` of ``bundle``'s kernel ``which`` (``"inference"``,
    ``"inference_final_state"`` or ``"training"``).

    Raises:
        RuntimeError: that kernel was not built for this bundle (the message says which).
    """
    info = {
        "inference": bundle.inference_info,
        "inference_final_state": bundle.inference_final_state_info,
        "training": bundle.training.info if bundle.training is not None else None,
    }[which]
    if info is None:
        raise RuntimeError(f"the FlexSN {which} kernel is unavailable for this handle")
    return info


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


def check_traced_constants(bundle: FlexSNKernelHandle) -> None:
    """Refuse to run a forward whose kernels hold a number the core no longer reads (a kept graph's stale kernels).

    Eager calls trace again first (:meth:`flexsn_runtime.FlexSNKernel.retrace_if_constants_changed`),
    and a ``torch.compile`` graph's guards compile again (:mod:`flexsn_runtime.compile_time`), so
    only a graph that keeps its handle without guards gets here with one changed: ``torch.export``
    traced ``flexsn::*`` ops with this handle, then the user set ``V_TH = 0.2``. A backward is not
    checked: it must match the forward it differentiates, which ran with the old value.

    Raises:
        RuntimeError: naming each number that changed, traced and current value.
    """
    constants = bundle.constants
    if constants is None or not constants.items:
        return
    changed = constants.changed()
    if changed:
        raise RuntimeError(
            f"FlexSN: {', '.join(changed)} changed since these kernels were traced; this graph (an exported program, "
            "or one that keeps its ops without torch.compile's guards) keeps the kernels it was traced with, whose numbers "
            "are literals, so it would compute with the old value. Under torch.compile (a place Dynamo cannot guard, "
            "which a warning named when it compiled): compile again (torch.compiler.reset()); else call the module once "
            "(its kernels are traced again) and export or trace again; or pass a value that changes as a static input "
            "(a tensor, read at every call)"
        )


def inference_impl(
    handle: int, flat_args: Sequence[torch.Tensor], final_state: bool, signature: Hashable | None = None
) -> list[torch.Tensor]:
    """Run the inference kernel on checked tensors (omitted initial states: zeros made in the kernel).

    ``signature``: the op's checked call signature, whose launch plan runs the call when it fits
    (:mod:`flexsn_runtime.op_plans`); ``None``: the launch is derived.

    Raises:
        RuntimeError: a number the kernels were traced with changed (:func:`check_traced_constants`).
    """
    bundle = lookup_flexsn_kernel_handle(handle)
    check_traced_constants(bundle)
    kernel, info = inference_kernel(bundle, final_state)
    planned = planned_op_forward(bundle, signature, kernel, info, flat_args, final_state, None)
    if planned is not None:
        return list(planned)
    return list(launch_inference(kernel, info, launch_args(info, flat_args), final_state))


def training_impl(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
    signature: Hashable | None = None,
) -> list[torch.Tensor]:
    """Run the training forward kernel on checked tensors (omitted initial states: zeros made in the kernel).

    ``signature``: as :func:`inference_impl` takes it.

    Raises:
        RuntimeError: a number the kernels were traced with changed (:func:`check_traced_constants`).
    """
    if plan is None:
        plan = plan_for(handle, final_state, flat_args[0].dtype)
    check_traced_constants(plan.bundle)
    planned = planned_op_forward(plan.bundle, signature, plan.forward, plan.info, flat_args, final_state, plan.stored)
    if planned is not None:
        return list(planned)
    stored = plan.stored if final_state else None
    return list(launch_forward(plan.forward, plan.info, launch_args(plan.info, flat_args), final_state, stored))


def backward_impl(
    handle: int,
    grads: Sequence[torch.Tensor | None],
    saved: Sequence[torch.Tensor],
    templates: Sequence[torch.Tensor],
    final_state: bool,
) -> list[torch.Tensor]:
    """The ``flexsn::backward`` op's implementation: :func:`plan_backward` with the handle's plan.

    Returns the input sequences' and initial states' gradients, then the static inputs' as one fp32
    ``[n, numel]`` sum per run of :func:`flexsn_runtime.statics.static_runs`.
    A direct call may come before any training forward built the kernels; the input
    templates' dtype picks the pair the forward ran (:func:`flexsn_runtime.registry.training_kernels`).
    """
    plan = plan_for(handle, final_state, templates[0].dtype)
    planned = planned_op_backward(plan, grads, saved, templates)  # the signature's plan, when the call fits one
    return planned if planned is not None else plan_backward(plan, grads, saved, templates, runs=True)


def plan_backward(
    plan: TrainingPlan, grads: Sequence[torch.Tensor | None], saved: Sequence[torch.Tensor], templates: Sequence[torch.Tensor],
    runs: bool = False,
) -> list[torch.Tensor]:
    """Run ``plan``'s backward kernel through :func:`~flexsn_runtime.backward_launchers.flexsn_backward` (SpikingJelly's rules).

    ``templates`` give each gradient's shape and dtype: input sequences, initial states, static inputs.
    ``runs``: the statics' gradients as the ``flexsn::backward`` op returns them (one fp32 sum per run
    of :func:`flexsn_runtime.statics.static_runs`); else one per static, in its shape and dtype.
    """
    final_state = plan.final_state
    info = plan.info
    ni, ns = info.num_inputs, info.num_states
    statics = templates[ni + ns :]
    step = tuple(templates[0].shape[1:])
    return list(
        flexsn_backward(
            plan.backward,
            info,
            *grads,
            *saved,
            input_templates=templates[:ni],
            state_templates=templates[ni : ni + ns],
            final_state=final_state,
            static_templates=statics,
            static_runs=static_runs([w.shape for w in statics], step) if runs else None,
        )
    )
