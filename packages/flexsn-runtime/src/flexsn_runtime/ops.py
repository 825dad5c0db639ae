"""``torch.library`` custom ops over the handle registry, and the eager autograd path.

The ops are opaque to ``torch.compile``: Dynamo/AOTAutograd see one node per
call, with fake implementations for shape propagation and autograd
registrations that call the backward op. Flat arguments are
``[*input_seqs, *init_states]``; when only the input sequences are passed,
zero initial states are created *inside* the op, so compiled graphs carry
no ``zeros_like`` in front of every neuron layer.

Outside ``torch.compile`` the same implementations run through
:func:`run_inference` / :func:`run_training`, which skip the dispatcher
(a custom-op call costs tens of microseconds of Python, comparable to a
whole small kernel) but share every line of numerics and bookkeeping.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import torch

from flexsn_trace import FlexSNInfo, check_scan_args

from .step_buffers import StepBuffers, cached_scratch, cached_zeros, step_buffers
from .training_plan import TrainingPlan, final_state_extras, plan_for
from .registry import (
    FlexSNKernelHandle,
    lookup_flexsn_kernel_handle,
    release_active_flexsn_kernel_handle,
    retain_flexsn_kernel_handle,
    revive_flexsn_kernel_handle,
)
from .scan_kernel import tensor_problem
from .launchers import flexsn_backward, flexsn_forward, flexsn_inference, launch_backward

__all__ = [
    "flexsn_backward_op",
    "flexsn_inference_op",
    "flexsn_training_op",
    "run_inference",
    "run_training",
]

Spec = tuple[tuple[int, ...], torch.dtype, torch.device]


def _info(bundle: FlexSNKernelHandle, which: str) -> FlexSNInfo:
    info = {
        "inference": bundle.inference_info,
        "inference_final_state": bundle.inference_final_state_info,
        "training": bundle.training_info,
    }[which]
    if info is None:
        raise RuntimeError(f"the FlexSN {which} kernel is unavailable for this handle")
    return info


def _with_states(
    info: FlexSNInfo, flat_args: Sequence[torch.Tensor], zero: torch.Tensor | None = None
) -> list[torch.Tensor]:
    if len(flat_args) == info.num_inputs + info.num_states:
        return list(flat_args)
    if len(flat_args) != info.num_inputs:
        raise ValueError(
            f"FlexSN ops take num_inputs={info.num_inputs} input sequences optionally followed by "
            f"num_states={info.num_states} initial states; got {len(flat_args)} tensors"
        )
    if zero is None:
        x = flat_args[0]
        # kernels only read initial states: one shared zero tensor serves every call
        zero = cached_zeros(tuple(x.shape[1:]), x.dtype, x.device)
    return [*flat_args, *(zero for _ in range(info.num_states))]


# ---------------------------------------------------------------- implementations


def _inference_impl(handle: int, flat_args: Sequence[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "inference_final_state" if final_state else "inference")
    kernel = bundle.inference_final_state_kernel if final_state else bundle.inference_kernel
    assert kernel is not None
    # checked already: by FlexSNKernel's contract, or by check_op_args in the op
    return list(flexsn_inference(kernel, info, *_with_states(info, flat_args), final_state=final_state, checked=True))


def _training_impl(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
    zero: torch.Tensor | None = None,
) -> list[torch.Tensor]:
    if plan is None:
        plan = plan_for(handle, final_state)
    args = _with_states(plan.info, flat_args, zero)
    stored = plan.stored if final_state else None
    return list(flexsn_forward(plan.forward, plan.info, *args, final_state=final_state, stored=stored, checked=True))


def _backward_impl(
    handle: int,
    grads: Sequence[torch.Tensor | None],
    saved: Sequence[torch.Tensor],
    templates: Sequence[torch.Tensor],
    final_state: bool,
) -> list[torch.Tensor]:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "training")
    bwd = bundle.backward_kernel
    if bwd is None:
        raise RuntimeError("the FlexSN backward kernel is unavailable for this handle")
    kernel = bwd.final_state if final_state else bwd
    assert kernel is not None
    return list(
        flexsn_backward(
            kernel,
            info,
            *grads,
            *saved,
            input_templates=templates[: info.num_inputs],
            state_templates=templates[info.num_inputs :],
            final_state=final_state,
        )
    )


# ---------------------------------------------------------------- custom ops


def check_op_args(handle: int, flat_args: Sequence[torch.Tensor], who: str) -> None:
    """Check a custom op's ``[*input_seqs, *init_states?]`` as the kernels need them.

    Raises:
        RuntimeError: unknown handle.
        TypeError / ValueError: counts, shapes, dtypes or devices the kernels
            cannot take (:func:`flexsn_trace.check_scan_args` with
            ``uniform=True``, then :func:`flexsn_runtime.scan_kernel.tensor_problem`).
    """
    bundle = lookup_flexsn_kernel_handle(handle)
    info = bundle.inference_info or bundle.training_info
    assert info is not None
    contract = check_scan_args(info.num_inputs, info.num_states, info.num_outputs, flat_args, who=who, uniform=True)
    problem = tensor_problem(contract.input_seqs[0])
    if problem is not None:
        error, message = problem
        raise error(f"{who}: {message}")


@torch.library.custom_op("flexsn::inference", mutates_args=())
def flexsn_inference_op(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    """Inference scan: ``[*input_seqs, *init_states?] -> [*output_seqs, *state_seqs]`` (each ``[T, *shape]``).

    With ``final_state``: ``-> [*output_seqs, *final_states]`` (no state sequence is written).

    Raises:
        RuntimeError: an unknown handle. TypeError / ValueError: tensors the
            kernels cannot take (:func:`check_op_args`), before any launch.
    """
    check_op_args(handle, flat_args, "flexsn::inference")
    return _inference_impl(handle, flat_args, final_state)


@flexsn_inference_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "inference_final_state" if final_state else "inference")
    kernel = bundle.inference_final_state_kernel if final_state else bundle.inference_kernel
    assert kernel is not None
    x = flat_args[0]
    states = [x.new_empty(x.shape[1:] if final_state else x.shape) for _ in range(info.num_states)]
    return [x.new_empty(x.shape, dtype=kernel.output_dtype(k, x)) for k in range(info.num_outputs)] + states


@torch.library.custom_op("flexsn::training", mutates_args=())
def flexsn_training_op(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    """Training forward scan: ``-> [*output_seqs, *state_seqs, *saved_intermediates]``.

    With ``final_state``: ``-> [*output_seqs, *final_states, *saved_for_backward]``.

    Raises: as :func:`flexsn_inference_op`.
    """
    check_op_args(handle, flat_args, "flexsn::training")
    return _training_impl(handle, flat_args, final_state)


@flexsn_training_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "training")
    fwd = bundle.forward_kernel
    assert fwd is not None
    x = flat_args[0]
    if not final_state:
        return [x.new_empty(x.shape, dtype=fwd.output_dtype(k, x)) for k in range(info.num_fwd_kernel_returns)]
    return (
        [x.new_empty(x.shape, dtype=fwd.output_dtype(k, x)) for k in range(info.num_outputs)]
        + [x.new_empty(x.shape[1:]) for _ in range(info.num_states)]
        + [x.new_empty(x.shape) for _ in final_state_extras(info)]
    )


@torch.library.custom_op("flexsn::backward", mutates_args=())
def flexsn_backward_op(
    handle: int,
    grads: list[Optional[torch.Tensor]],
    saved: list[torch.Tensor],
    templates: list[torch.Tensor],
    final_state: bool = False,
) -> list[torch.Tensor]:
    """BPTT backward: output/state gradients (``None`` = zero) + saved tensors -> input and initial-state gradients.

    ``templates`` holds one tensor per input sequence then per initial state
    (shape/dtype of the gradients to produce); with ``final_state`` the
    state gradients are gradients of the final states.
    """
    return _backward_impl(handle, grads, saved, templates, final_state)


@flexsn_backward_op.register_fake
def _(handle: int, grads: list[Optional[torch.Tensor]], saved: list[torch.Tensor], templates: list[torch.Tensor],
      final_state: bool = False) -> list[torch.Tensor]:
    return [t.new_empty(t.shape) for t in templates]  # one gradient shaped like each template


# ---------------------------------------------------------------- autograd


def _template(spec: Spec) -> torch.Tensor:
    shape, dtype, device = spec
    return torch.empty((), dtype=dtype, device=device).expand(shape)


class _ActiveRef:
    """One active reference to a handle held by an autograd context.

    Dropped by the first backward, or when the context dies without one (a
    forward whose graph is freed); cheaper per call than ``weakref.finalize``.
    """

    __slots__ = ("handle", "live")

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.live = True

    def __del__(self) -> None:
        if self.live:
            self.live = False
            try:
                release_active_flexsn_kernel_handle(self.handle)
            except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to release
                pass


def _setup(
    ctx: Any,
    handle: int,
    flat_args: Sequence[torch.Tensor],
    output: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
) -> None:
    if plan is None:
        plan = plan_for(handle, final_state)
    retain_flexsn_kernel_handle(handle)
    # Released by the backward, or when the graph is freed without one.
    ctx.active = _ActiveRef(handle)
    ctx.plan = plan
    ctx.n_flat = len(flat_args)
    ni = plan.n_inputs
    x = flat_args[0]
    explicit = len(flat_args) > ni
    # Sequences share T and the per-step shape, states are one step, all one
    # dtype and device (validate_scan_args; the ops' callers): the backward
    # rebuilds every gradient's spec from these.
    ctx.meta = (x.shape, x.dtype, x.device)
    tensors: list[torch.Tensor | None] = []
    zero_init = False
    for kind, idx in plan.saved:
        if kind == "input":
            tensors.append(flat_args[idx])
        elif kind == "return":
            tensors.append(output[plan.output_of_return[idx]])
        elif explicit:
            tensors.append(flat_args[ni + idx])
        else:
            tensors.append(None)  # the omitted initial state idx was zeros
            zero_init = True
    ctx.zero_init = zero_init
    ctx.save_for_backward(*tensors)


def _specs(ctx: Any) -> list[Spec]:
    """Shape, dtype and device of each input sequence then initial state (the gradients to produce)."""
    plan: TrainingPlan = ctx.plan
    shape, dtype, device = ctx.meta
    seq, step = (tuple(shape), dtype, device), (tuple(shape[1:]), dtype, device)
    return [seq] * plan.n_inputs + [step] * plan.n_states


def _saved(ctx: Any, zeros: torch.Tensor | None) -> list[torch.Tensor]:
    """The saved tensors, omitted zero initial states rebuilt (as ``zeros`` when given, else a zeros node)."""
    saved = list(ctx.saved_tensors)
    if ctx.zero_init:
        # the omitted initial states were zeros: rebuild them rather than keep them alive
        shape, dtype, device = ctx.meta
        for i, t in enumerate(saved):
            if t is None:
                saved[i] = zeros if zeros is not None else torch.zeros(tuple(shape[1:]), dtype=dtype, device=device)
    return saved


def _backward(
    ctx: Any,
    grad_out: Sequence[torch.Tensor | None],
    backward_fn: Callable[..., list[torch.Tensor]],
) -> list[torch.Tensor]:
    plan: TrainingPlan = ctx.plan
    saved = _saved(ctx, None)  # traced: a real zeros node
    templates = [_template(s) for s in _specs(ctx)]
    return _counted(ctx, lambda: backward_fn(plan.handle, list(grad_out[: plan.n_grads]), saved, templates, plan.final_state))


def _counted(ctx: Any, run: Callable[[], list[torch.Tensor]]) -> list[torch.Tensor]:
    """Run a backward holding an active reference to the handle.

    The first backward takes over the reference the forward took (and drops
    it, so the kernels go once nobody needs them). A second backward
    (``retain_graph=True``) takes a new one; if the handle was released in
    between (its module is gone), the plan's bundle is registered again under
    the same handle: the graph keeps the kernels it needs alive.
    """
    active: _ActiveRef = ctx.active
    try:
        if active.live:
            active.live = False  # this backward releases it
        else:
            revive_flexsn_kernel_handle(active.handle, ctx.plan.bundle)
        grads = run()
    finally:
        release_active_flexsn_kernel_handle(active.handle)
    return grads[: ctx.n_flat]


def _eager_backward(ctx: Any, grad_out: Sequence[torch.Tensor | None]) -> list[torch.Tensor]:
    """``_backward`` without the dispatcher or template tensors on the common path."""
    plan: TrainingPlan = ctx.plan
    shape, dtype, device = ctx.meta
    # the forward's shared zeros (omitted initial states, missing final-state
    # gradients: the kernel only reads them) and scratch, on the forward's
    # stream, which autograd runs this backward on
    bufs: StepBuffers | None = ctx.bufs
    saved = _saved(ctx, bufs.zeros if bufs is not None else None)
    grads = list(grad_out[: plan.n_grads])

    def run() -> list[torch.Tensor]:
        step = tuple(shape[1:])
        if shape[0] == 0 or math.prod(step) == 0 or all(g is None for g in grads):
            # SpikingJelly's rules for these calls live in flexsn_backward
            templates = [_template(s) for s in _specs(ctx)]
            return _backward_impl(plan.handle, grads, saved, templates, plan.final_state)
        grad_inputs = [torch.empty(shape, dtype=dtype, device=device) for _ in range(plan.n_inputs)]
        if ctx.n_flat > plan.n_inputs:
            grad_states = [torch.empty(step, dtype=dtype, device=device) for _ in range(plan.n_states)]
        else:  # omitted (zero) initial states get no gradient: the kernel writes it to scratch
            grad_states = [bufs.scratch(j) if bufs is not None else cached_scratch(step, dtype, device, j) for j in range(plan.n_states)]
        launch_backward(
            plan.backward, plan.n_outputs, grads, saved, plan.final_state, grad_inputs, grad_states, tuple(shape), dtype,
            device, bufs,
        )
        return [*grad_inputs, *grad_states]

    return _counted(ctx, run)


def _op_setup(ctx: Any, inputs: tuple[Any, ...], output: list[torch.Tensor]) -> None:
    ctx.set_materialize_grads(False)  # as in _EagerTraining.forward
    _setup(ctx, inputs[0], inputs[1], output, bool(inputs[2]))


def _op_backward(ctx: Any, grad_out: list[torch.Tensor | None]) -> tuple[None, list[torch.Tensor], None]:
    # one gradient per op argument; final_state has no default, so the dispatcher always passes it
    return None, _backward(ctx, grad_out, flexsn_backward_op), None


torch.library.register_autograd("flexsn::training", _op_backward, setup_context=_op_setup)


class _EagerTraining(torch.autograd.Function):
    """The training ops' autograd, minus the dispatcher (eager mode only)."""

    @staticmethod
    def forward(ctx: Any, plan: TrainingPlan, *flat_args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Gradients we do not get stay None: the backward wrapper treats None
        # as zero without a [T, NCL] zero fill per output (SpikingJelly's ``flexsn_backward`` rule).
        ctx.set_materialize_grads(False)
        x = flat_args[0]
        # one lookup serves the forward's zero states and the backward (held
        # by ctx, so never freed before the backward has used them)
        bufs = step_buffers(tuple(x.shape[1:]), x.dtype, x.device)
        ctx.bufs = bufs
        output = _training_impl(plan.handle, flat_args, plan.final_state, plan, bufs.zeros if bufs is not None else None)
        _setup(ctx, plan.handle, flat_args, output, plan.final_state, plan)
        # tensors saved for backward only are intermediates here, not outputs
        return tuple(output[: plan.n_grads])

    @staticmethod
    def backward(ctx: Any, *grad_out: torch.Tensor | None) -> tuple[torch.Tensor | None, ...]:
        if torch.is_grad_enabled():  # create_graph=True: autograd wants a differentiable backward
            raise RuntimeError(
                "FlexSN: the fused BPTT kernel is not differentiable, so higher-order gradients "
                "(create_graph=True) are not available from backend='triton' / 'inductor'; use backend='torch' "
                "or backend='hop' (autograd through the eager time loop) for them"
            )
        return (None, *_eager_backward(ctx, grad_out))


def _use_op(tracing: bool | None) -> bool:
    return torch.compiler.is_compiling() if tracing is None else tracing


def run_inference(
    handle: int, flat_args: Sequence[torch.Tensor], final_state: bool, tracing: bool | None = None
) -> list[torch.Tensor]:
    """Inference scan, through the custom op when traced, directly otherwise.

    ``tracing=None`` means "while Dynamo compiles"; callers that know they run
    under another tracer (AOTAutograd, make_fx, fake tensors) pass ``True``.
    Returns ``[*output_seqs, *state_seqs]`` or, with ``final_state``,
    ``[*output_seqs, *final_states]``.
    """
    if _use_op(tracing):
        return list(flexsn_inference_op(handle, list(flat_args), final_state))
    return _inference_impl(handle, flat_args, final_state)


def run_training(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    tracing: bool | None = None,
    plan: TrainingPlan | None = None,
) -> list[torch.Tensor]:
    """Training forward with BPTT autograd, through the custom op when traced.

    ``tracing`` as in :func:`run_inference`; ``plan``: ``plan_for(handle,
    final_state)`` when the caller holds it (saves a registry lookup). Returns
    ``[*output_seqs, *state_seqs_or_final_states]``, followed, when traced,
    by the op's tensors saved for backward; callers keep the first
    ``num_outputs + num_states``.
    """
    if _use_op(tracing):
        return list(flexsn_training_op(handle, list(flat_args), final_state))
    if plan is None:
        plan = plan_for(handle, final_state)
    out: tuple[torch.Tensor, ...] = _EagerTraining.apply(plan, *flat_args)  # type: ignore[no-untyped-call]
    return list(out)
