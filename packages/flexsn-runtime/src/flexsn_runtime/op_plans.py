"""Launch plans for the custom ops' calls: the host-time fast path of compiled graphs.

Under ``torch.compile`` (and ``torch.export``) every FlexSN call is a
``flexsn::*`` op that the graph calls with the same tensor shapes at every
step. Without a plan the op derives its launch each time, as
:func:`~flexsn_runtime.launchers.launch_args` and
:func:`~flexsn_runtime.backward_launchers.flexsn_backward` do: the memory order, the
static inputs' index ints and partial-sum layout, the outputs' allocations,
SpikingJelly's template rules. That is tens of microseconds of host time per
call, which a compiled step without CUDA graphs waits for (it was the larger
part of what a compiled training step of a neuron with BatchNorm's four
static inputs cost over eager). The eager path has had these plans since
launch plans came (:mod:`flexsn_runtime.launch_plan`); here the ops get the
same :class:`~flexsn_runtime.launch_plan.LaunchPlan` and
:class:`~flexsn_runtime.launch_plan.BackwardPlan`, kept per handle and op
signature (shapes, dtypes, devices; for a backward also which incoming
gradients are missing), and built from the second call of a signature.

Plans are kept per memory order too (:mod:`flexsn_runtime.launch_plan`: a
channels-last input, or a backward whose tensors come in mixed orders). A call
a plan does not fit (other strides than its plan's, a pointer not 16-byte
aligned, an empty sequence, every incoming gradient missing, a tensor
subclass) takes the derived path: same kernels, same results. The ops' results must not share
storage, so a backward plan here returns one new fp32 sum per run of static inputs of one shape
(:func:`~flexsn_runtime.statics.static_runs`: a BatchNorm's four statics are one run, one reduction),
which the op's autograd formula splits into the statics' gradients outside the op, and it never uses
the step buffers' shared partials.
"""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import torch

from flexsn_trace import FlexSNInfo

from .call_cache import tensor_signature
from .launch_plan import BackwardPlan, LaunchPlan, PlanSlot
from .registry import FlexSNKernelHandle
from .scan_kernel import ScanKernel
from .statics import static_runs
from .training_plan import TrainingPlan

__all__ = ["planned_op_backward", "planned_op_forward"]

#: the per-bundle dict of op plans (``FlexSNKernelHandle.plans[_KEY]``), and its size before it starts over
_KEY, _MAX = "op-plans", 64


def _slot(bundle: FlexSNKernelHandle, key: Hashable) -> PlanSlot[Any]:
    """The bundle's plan slot of op call ``key`` (made empty on first ask)."""
    slots: dict[Hashable, PlanSlot[Any]] | None = bundle.plans.get(_KEY)
    if slots is None:
        slots = bundle.plans.setdefault(_KEY, {})
    slot = slots.get(key)
    if slot is None:
        if len(slots) >= _MAX:  # a loop over many shapes (dynamic shapes): start over, as the call cache does
            slots.clear()
        slot = slots.setdefault(key, PlanSlot())
    return slot


def planned_op_forward(
    bundle: FlexSNKernelHandle, signature: Hashable | None, f: ScanKernel, info: FlexSNInfo,
    flat_args: Sequence[torch.Tensor], final_state: bool, stored: Sequence[int] | None,
) -> tuple[torch.Tensor, ...] | None:
    """An op's forward launch through its signature's plan: the outputs, or ``None`` (nothing launched).

    Args:
        bundle: the handle's bundle, which keeps the plans.
        signature: what :func:`flexsn_runtime.ops.check_op_args` remembered of this call (it
            names the op, handle and every tensor's shape, dtype and device), or ``None``:
            no plan (a fake or subclass tensor).
        f, info: the inference kernel, or the training forward kernel, and its info.
        flat_args: the op's checked ``[*input_seqs, *init_states?, *statics]``.
        final_state: the final-state variant.
        stored: for a training forward, the returns stored as sequences
            (:attr:`~flexsn_runtime.training_plan.TrainingPlan.stored`); ``None`` for inference.
    """
    if signature is None:
        return None
    # the input's strides too: one signature may come in two memory orders (two call sites), each with its plan
    slot = _slot(bundle, ("forward", final_state, signature, flat_args[0].stride()))
    plan = slot.plan
    if plan is None:
        plan = slot.retry(lambda: LaunchPlan.build(f, info, flat_args, final_state, stored))
        if plan is None:
            return None
    out: tuple[torch.Tensor, ...] | None = plan.run(flat_args)
    return out


def planned_op_backward(
    plan: TrainingPlan, grads: Sequence[torch.Tensor | None], saved: Sequence[torch.Tensor], templates: Sequence[torch.Tensor]
) -> list[torch.Tensor] | None:
    """The ``flexsn::backward`` op through its signature's plan: the gradients, or ``None`` (nothing launched).

    Returns what :func:`flexsn_runtime.op_impls.plan_backward` returns for a backward
    with at least one incoming gradient and a non-empty sequence: the input
    sequences', initial states' (every state has a template) gradients, then the static inputs'
    per-run sums (:func:`~flexsn_runtime.statics.static_runs`). ``None`` for any other backward,
    or one that does not fit a plan.
    """
    if all(g is None for g in grads):
        return None  # SpikingJelly's zero rules (flexsn_backward)
    present = [g for g in grads if g is not None]
    parts = (tensor_signature(present, False), tensor_signature(saved, False), tensor_signature(templates, False))
    if any(p is None for p in parts):
        return None
    pattern = tuple([g is None for g in grads])
    strides = tuple([t.stride() for t in (*present, *saved)])  # as for the forward: a plan per memory order
    slot = _slot(plan.bundle, ("backward", plan.final_state, pattern, parts, strides))
    bplan: BackwardPlan | None = slot.plan
    if bplan is None:
        ni, ns = plan.n_inputs, plan.n_states
        x = templates[0]
        meta = (tuple(x.shape), x.dtype, x.device)
        # every state has a template: its gradient is returned (explicit), as flexsn_backward returns it
        arity = (plan.n_outputs, ni, ns, plan.final_state, True)
        specs = [(tuple(w.shape), w.dtype, w.device) for w in templates[ni + ns :]]
        runs = static_runs([w_shape for w_shape, _, _ in specs], meta[0][1:])
        bplan = slot.retry(lambda: BackwardPlan.build(plan.backward, grads, saved, meta, arity, specs, runs=runs))
        if bplan is None:
            return None
    return bplan.run(grads, saved, None)
