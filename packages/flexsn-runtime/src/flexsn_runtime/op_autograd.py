"""BPTT autograd for the training scan: what a forward saves, and the backward that launches the kernel.

Used by the ``flexsn::training`` op's registration (:mod:`flexsn_runtime.ops`)
and by :class:`EagerTraining`, the same formula without the dispatcher for
eager calls. A context holds an active reference to the kernels' handle
until its backward ran (or the graph is freed), so a retained graph keeps
the kernels it needs.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch

from .launch_plan import BackwardPlan, LaunchPlan, PlanSlot
from .launchers import launch_backward
from .layout import backward_order, empty_in_order
from .op_impls import backward_impl, training_impl
from .prewarm import prewarm_backward
from .scan_kernel import ScanKernel
from .registry import release_active_flexsn_kernel_handle, retain_flexsn_kernel_handle, revive_flexsn_kernel_handle
from .statics import static_dims
from .step_buffers import StepBuffers, state_grad_targets, step_buffers
from .training_plan import Spec, TrainingPlan, plan_for

__all__ = ["EagerTraining", "Launched", "backward", "derived_backward", "launch_training", "setup"]


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


def setup(
    ctx: Any,
    handle: int,
    flat_args: Sequence[torch.Tensor],
    output: Sequence[torch.Tensor],
    final_state: bool,
    plan: TrainingPlan | None = None,
) -> None:
    if plan is None:
        plan = plan_for(handle, final_state, flat_args[0].dtype)
    retain_flexsn_kernel_handle(handle)
    # Released by the backward, or when the graph is freed without one.
    ctx.active = _ActiveRef(handle)
    ctx.plan = plan
    ctx.n_flat = len(flat_args)
    ni, nst = plan.n_inputs, plan.n_static
    x = flat_args[0]
    first_static = len(flat_args) - nst
    explicit = first_static > ni
    ctx.explicit = explicit
    # Sequences share T and the per-step shape, states are one step, all one
    # dtype and device (validate_scan_args; the ops' callers): the backward
    # rebuilds every gradient's spec from these.
    ctx.meta = (x.shape, x.dtype, x.device)
    ctx.static_specs = [(tuple(w.shape), w.dtype, w.device) for w in flat_args[first_static:]]
    tensors: list[torch.Tensor | None] = []
    zero_init = False
    for kind, idx in plan.saved:
        if kind == "input":
            tensors.append(flat_args[idx])
        elif kind == "return":
            tensors.append(output[plan.output_of_return[idx]])
        elif kind == "static":
            tensors.append(flat_args[first_static + idx])
        elif explicit:
            tensors.append(flat_args[ni + idx])
        else:
            tensors.append(None)  # the omitted initial state idx was zeros
            zero_init = True
    ctx.zero_init = zero_init
    ctx.save_for_backward(*tensors)


def _specs(ctx: Any) -> list[Spec]:
    """Shape, dtype and device of each input sequence, initial state, then static input (the gradients to produce)."""
    plan: TrainingPlan = ctx.plan
    shape, dtype, device = ctx.meta
    seq, step = (tuple(shape), dtype, device), (tuple(shape[1:]), dtype, device)
    return [seq] * plan.n_inputs + [step] * plan.n_states + list(ctx.static_specs)


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


def backward(
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
    plan: TrainingPlan = ctx.plan
    if not ctx.explicit:  # omitted initial states: no argument to give their gradients to
        grads = [*grads[: plan.n_inputs], *grads[plan.n_inputs + plan.n_states :]]
    return grads[: ctx.n_flat]


def _eager_backward(ctx: Any, grad_out: Sequence[torch.Tensor | None]) -> list[torch.Tensor]:
    """``_backward`` without the dispatcher or template tensors on the common path."""
    plan: TrainingPlan = ctx.plan
    shape, dtype, device = ctx.meta
    # shared zeros (omitted initial states the backward reads, missing
    # final-state gradients: the kernel only reads them) and scratch, on the
    # forward's stream, which autograd runs this backward on
    bufs: StepBuffers | None = ctx.bufs
    saved = _saved(ctx, bufs.zeros if bufs is not None else None)
    grads = list(grad_out[: plan.n_grads])

    def run() -> list[torch.Tensor]:
        step = tuple(shape[1:])
        if shape[0] == 0 or math.prod(step) == 0 or all(g is None for g in grads):
            # SpikingJelly's rules for these calls live in flexsn_backward
            templates = [_template(s) for s in _specs(ctx)]
            return backward_impl(plan.handle, grads, saved, templates, plan.final_state)
        fast: LaunchPlan | None = ctx.fast
        if fast is not None:  # this signature's forward launched from a plan: try its backward's
            done = _planned_backward(fast, ctx, grads, saved, bufs)
            if done is not None:
                return done
        return derived_backward(plan.backward, plan, ctx.meta, ctx.static_specs, ctx.explicit, grads, saved, bufs)

    return _counted(ctx, run)


def derived_backward(
    kernel: ScanKernel, plan: TrainingPlan, meta: Spec, static_specs: Sequence[Spec], explicit: bool,
    grads: list[torch.Tensor | None], saved: list[torch.Tensor], bufs: StepBuffers | None,
) -> list[torch.Tensor]:
    """Allocate the gradients and launch ``kernel`` (``plan.backward``, or a stand-in): a backward without a launch plan.

    ``meta``: the input sequences' shape, dtype and device; ``static_specs``:
    the static inputs'; ``explicit``: initial states were passed. Returns the
    gradients of the inputs, initial states, then statics.
    :func:`flexsn_runtime.prewarm.prewarm_backward` runs it on meta tensors
    with a recording stand-in to learn the launch a first backward makes.
    """
    shape, dtype, device = meta
    step = tuple(shape[1:])
    static_shapes = [w_shape for w_shape, _, _ in static_specs]
    order = backward_order([*saved, *grads], shape, static_shapes)  # the forward's memory order
    grad_inputs = [empty_in_order(shape, order, dtype, device) for _ in range(plan.n_inputs)]
    grad_states = state_grad_targets(explicit, plan.n_states, step, order, dtype, device, bufs)
    grad_statics = launch_backward(
        kernel, plan.n_outputs, grads, saved, plan.final_state, grad_inputs, grad_states, tuple(shape), dtype,
        device, bufs, static_dims(static_shapes, step, order), order, static_shapes, [w_dtype for _, w_dtype, _ in static_specs],
    )
    return [*grad_inputs, *grad_states, *grad_statics]



def _planned_backward(
    fast: LaunchPlan, ctx: Any, grads: list[torch.Tensor | None], saved: list[torch.Tensor], bufs: StepBuffers | None
) -> list[torch.Tensor] | None:
    """The backward through the :class:`~flexsn_runtime.launch_plan.BackwardPlan` of this pattern of missing gradients.

    Built on the first backward of a pattern that finds the kernel's cached launcher (:class:`PlanSlot`);
    ``None`` (nothing launched) when there is no plan or this backward does not fit it.
    """
    pattern = tuple([g is None for g in grads])
    slot = fast.backwards.get(pattern)
    if slot is None:
        slot = fast.backwards.setdefault(pattern, PlanSlot())
    bplan = slot.plan
    if bplan is None:
        plan: TrainingPlan = ctx.plan
        arity = (plan.n_outputs, plan.n_inputs, plan.n_states, plan.final_state, ctx.explicit)
        bplan = slot.retry(lambda: BackwardPlan.build(plan.backward, grads, saved, ctx.meta, arity, ctx.static_specs))
    return bplan.run(grads, saved, bufs) if bplan is not None else None


_unwrap_if_dead = torch._C._functorch.unwrap_if_dead
_functorch_active = torch._C._are_functorch_transforms_active


#: what :func:`launch_training` returns: the forward's outputs, the step buffers for its backward,
#: and the launch plan that launched it (``None``: the derived launch)
Launched = tuple[list[torch.Tensor], StepBuffers | None, LaunchPlan | None]
_set_grad_enabled = torch._C._set_grad_enabled


def launch_training(plan: TrainingPlan, flat_args: Sequence[torch.Tensor], fast: LaunchPlan | None = None) -> Launched:
    """Allocate the forward's outputs and launch the training forward kernel (no autograd recorded).

    ``fast``: the call signature's :class:`~flexsn_runtime.launch_plan.LaunchPlan`, tried first.
    """
    launched = fast.run(flat_args) if fast is not None else None
    if launched is None:
        if not plan.backward.prewarmed:  # a plan's first call: its backward's kernel compiles beside the forward's
            prewarm_backward(plan, flat_args, derived_backward)
        fast = None
        output = training_impl(plan.handle, flat_args, plan.final_state, plan)
    else:
        output = list(launched)
    x = flat_args[0]
    # looked up after the launch (the GPU starts earlier) for the backward (held by ctx,
    # so never freed before the backward has used them); the forward makes omitted zero states itself
    return output, step_buffers(tuple(x.shape[1:]), x.dtype, x.device), fast


class EagerTraining(torch.autograd.Function):
    """The training ops' autograd, minus the dispatcher (eager mode only).

    Call it through :meth:`apply_unwrapped`, which launches the forward
    kernel first and builds the autograd node while the GPU runs it.
    """

    @classmethod
    def apply_unwrapped(cls, plan: TrainingPlan, *flat_args: torch.Tensor, fast: LaunchPlan | None = None) -> tuple[torch.Tensor, ...]:
        """Launch the forward kernel, then record the autograd node: ``apply`` minus its Python prologue.

        The kernel is launched before ``torch.autograd.Function``'s
        machinery runs (outputs allocated without autograd, then handed
        to :meth:`forward`), so the GPU starts tens of microseconds
        earlier in host-bound steps. ``apply``'s prologue binds default
        arguments (this ``forward`` has none) and unwraps dead functorch
        wrappers (done here); under functorch transforms the full
        :meth:`apply` runs and the forward launches inside it. ``fast``: the
        call signature's launch plan (:func:`launch_training`).
        """
        if _functorch_active():
            return cls.apply(plan, None, *flat_args)  # type: ignore[no-any-return, no-untyped-call]
        args = [_unwrap_if_dead(t) for t in flat_args]
        grad = torch.is_grad_enabled()
        _set_grad_enabled(False)  # contiguous copies made by the launch are not part of the graph
        try:
            launched = launch_training(plan, args, fast)
        finally:
            _set_grad_enabled(grad)
        return _C_apply(plan, launched, *args)  # type: ignore[no-any-return, no-untyped-call]

    @staticmethod
    def forward(ctx: Any, plan: TrainingPlan, launched: Launched | None, *flat_args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Gradients we do not get stay None: the backward wrapper treats None
        # as zero without a [T, NCL] zero fill per output (SpikingJelly's ``flexsn_backward`` rule).
        ctx.set_materialize_grads(False)
        output, ctx.bufs, ctx.fast = launched if launched is not None else launch_training(plan, flat_args)
        setup(ctx, plan.handle, flat_args, output, plan.final_state, plan)
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
        return (None, None, *_eager_backward(ctx, grad_out))


#: ``torch.autograd.Function``'s C++ ``apply``, bound to :class:`EagerTraining`
_C_apply = super(torch.autograd.Function, EagerTraining).apply
