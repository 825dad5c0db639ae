"""BPTT autograd for the training scan: what a forward saves, and the backward that launches the kernel.

Used by the ``flexsn::training`` op's registration (:mod:`flexsn_runtime.ops`)
and by :class:`EagerTraining`, the same formula without the dispatcher for
eager calls. Both keep a :class:`~flexsn_runtime.training_plan.TrainingCall`
in their context, so a retained graph keeps the kernels it needs: the eager
node by reference, the op's (whose backward op finds the kernels by handle)
with an active reference to the handle until its backward ran or the graph is freed.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from .call_cache import functorch_active
from .launch_plan import BackwardPlan, LaunchPlan, PlanSlot
from .backward_launchers import launch_backward
from .layout import backward_order, empty_in_order
from .op_impls import plan_backward, training_impl
from .prewarm import prewarm_backward
from .scan_kernel import ScanKernel
from .registry import release_active_flexsn_kernel_handle, retain_flexsn_kernel_handle, revive_flexsn_kernel_handle
from .statics import run_gradients, static_dims
from .step_buffers import StepBuffers, state_grad_targets, step_buffers
from .training_plan import Spec, TrainingCall, TrainingPlan, plan_for

__all__ = [
    "FREED_GRAPH_HINT", "EagerTraining", "Launched", "backward", "derived_backward", "launch_training", "op_setup", "setup",
]

#: what a backward through a training call whose saved tensors an earlier backward freed adds to PyTorch's error
FREED_GRAPH_HINT = (
    "FlexSN: a backward pass reached a fused training call whose saved tensors an earlier backward pass already "
    "freed. Usually a neuron's states carried over from a batch whose backward has run: call reset() "
    "(flexsn_nn.functional.reset_net, as SpikingJelly's) between batches, or detach() "
    "(flexsn_nn.functional.detach_net) between the chunks of truncated BPTT. To backward twice through one call, "
    "pass retain_graph=True to the first."
)


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


def _saved_tensors(ctx: Any) -> tuple[torch.Tensor, ...]:
    """``ctx.saved_tensors``; freed by an earlier backward, PyTorch's error with :data:`FREED_GRAPH_HINT` in front."""
    try:
        return ctx.saved_tensors  # type: ignore[no-any-return]
    except RuntimeError as exc:
        if "backward through the graph a second time" not in str(exc):
            raise
        raise RuntimeError(f"{FREED_GRAPH_HINT}\n(PyTorch: {exc})") from exc


def setup(ctx: Any, call: TrainingCall, flat_args: Sequence[torch.Tensor], output: Sequence[torch.Tensor]) -> None:
    """Keep what the backward of a training call needs: ``call``, and the tensors it reads (:meth:`TrainingCall.saved`)."""
    ctx.call = call
    ctx.save_for_backward(*call.saved(flat_args, output))
    if call.non_differentiable:  # as the loop: a result no argument that requires grad reaches requires none
        ctx.mark_non_differentiable(*(output[k] for k in call.non_differentiable))


def op_setup(ctx: Any, handle: int, flat_args: Sequence[torch.Tensor], output: Sequence[torch.Tensor], final_state: bool) -> None:
    """:func:`setup` for the ``flexsn::training`` op, holding an active reference to ``handle`` until its backward.

    The op's backward (``flexsn::backward``) finds the kernels by handle, so a
    graph kept past its module must keep the handle registered; the eager
    path's node holds its :class:`~flexsn_runtime.training_plan.TrainingCall`
    (and through it the kernels) by reference instead.
    """
    retain_flexsn_kernel_handle(handle)
    # Released by the backward, or when the graph is freed without one.
    ctx.active = _ActiveRef(handle)
    setup(ctx, TrainingCall(plan_for(handle, final_state, flat_args[0].dtype), flat_args), flat_args, output)


def backward(
    ctx: Any,
    grad_out: Sequence[torch.Tensor | None],
    backward_fn: Callable[..., list[torch.Tensor]],
) -> list[torch.Tensor | None]:
    """The ``flexsn::training`` op's backward: ``backward_fn`` (the ``flexsn::backward`` op) on the saved tensors.

    The op returns the static inputs' gradients as one fp32 sum per run of statics of one shape
    (:func:`~flexsn_runtime.statics.static_runs`); they are split into each static's gradient here,
    outside the op, where a compiled graph's views and casts cost nothing.
    """
    call: TrainingCall = ctx.call
    saved = call.restore(_saved_tensors(ctx), None)  # traced: a real zeros node
    templates = [_template(s) for s in call.specs()]
    plan = call.plan
    grads = list(grad_out[: plan.n_grads])
    out = _counted(ctx, lambda: backward_fn(plan.handle, grads, saved, templates, plan.final_state))
    if call.static_specs:
        body = plan.n_inputs + plan.n_states
        out = [*out[:body], *run_gradients(out[body:], *zip(*((w_shape, w_dtype) for w_shape, w_dtype, _ in call.static_specs)))]
    return call.visible(out)


def _counted(ctx: Any, run: Callable[[], list[torch.Tensor]]) -> list[torch.Tensor]:
    """Run an op's backward holding an active reference to the handle.

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
            revive_flexsn_kernel_handle(active.handle, ctx.call.plan.bundle)
        return run()
    finally:
        release_active_flexsn_kernel_handle(active.handle)


def _eager_backward(ctx: Any, grad_out: Sequence[torch.Tensor | None]) -> list[torch.Tensor | None]:
    """The backward of :class:`EagerTraining`: the kernel launched without the dispatcher or template tensors."""
    call: TrainingCall = ctx.call
    # shared zeros (omitted initial states the backward reads, missing
    # final-state gradients: the kernel only reads them) and scratch, on the
    # forward's stream, which autograd runs this backward on
    bufs: StepBuffers | None = ctx.bufs
    saved = call.restore(_saved_tensors(ctx), bufs.zeros if bufs is not None else None)
    grads = list(grad_out)
    fast: LaunchPlan | None = ctx.fast  # a forward launched from a plan had T > 0 and neurons
    if all(g is None for g in grads) or (fast is None and call.empty()):
        # SpikingJelly's rules for these calls live in flexsn_backward
        templates = [_template(s) for s in call.specs()]
        return call.visible(plan_backward(call.plan, grads, saved, templates))
    if fast is not None:  # this signature's forward launched from a plan: try its backward's
        done = _planned_backward(fast, call, grads, saved, bufs)
        if done is not None:
            return call.visible(done)
    plan = call.plan
    return call.visible(derived_backward(plan.backward, plan, call.meta, call.static_specs, call.explicit, grads, saved, bufs))


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
    fast: LaunchPlan, call: TrainingCall, grads: list[torch.Tensor | None], saved: list[torch.Tensor], bufs: StepBuffers | None
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
        bplan = slot.retry(lambda: BackwardPlan.build(
            call.plan.backward, grads, saved, call.meta, call.arity, call.static_specs, zero_saved=call.zero_init
        ))
    return bplan.run(grads, saved, bufs) if bplan is not None else None


_unwrap_if_dead = torch._C._functorch.unwrap_if_dead


#: what :func:`launch_training` returns: the forward's outputs, the step buffers for its backward,
#: and the launch plan that launched it (``None``: the derived launch)
Launched = tuple[Sequence[torch.Tensor], StepBuffers | None, LaunchPlan | None]
_set_grad_enabled = torch._C._set_grad_enabled
_grad_enabled = torch.is_grad_enabled


def launch_training(call: TrainingCall, flat_args: Sequence[torch.Tensor], fast: LaunchPlan | None = None) -> Launched:
    """Allocate the forward's outputs and launch the training forward kernel (no autograd recorded).

    ``fast``: the call signature's :class:`~flexsn_runtime.launch_plan.LaunchPlan`, tried first
    (it launches contiguous tensors as they are: nothing for autograd to record).
    """
    launched = fast.run(flat_args) if fast is not None else None
    output: Sequence[torch.Tensor]
    if launched is None:
        plan = call.plan
        if not plan.backward.prewarmed:  # a plan's first call: its backward's kernel compiles beside the forward's
            prewarm_backward(plan, flat_args, derived_backward)
        fast = None
        grad = _grad_enabled()
        _set_grad_enabled(False)  # contiguous copies made by the derived launch are not part of the graph
        try:
            output = training_impl(plan.handle, flat_args, plan.final_state, plan)
        finally:
            _set_grad_enabled(grad)
    else:
        output = launched
    _, dtype, device = call.meta
    # looked up after the launch (the GPU starts earlier) for the backward (held by ctx,
    # so never freed before the backward has used them); the forward makes omitted zero states itself
    return output, step_buffers(call.step, dtype, device), fast


class EagerTraining(torch.autograd.Function):
    """The training ops' autograd, minus the dispatcher (eager mode only).

    Call it through :meth:`apply_unwrapped`, which launches the forward
    kernel first and builds the autograd node while the GPU runs it. The
    node keeps its :class:`~flexsn_runtime.training_plan.TrainingCall`, and
    through it the kernels, for as long as autograd keeps the node.
    """

    @classmethod
    def apply_unwrapped(
        cls, call: TrainingCall, *flat_args: torch.Tensor, fast: LaunchPlan | None = None
    ) -> tuple[torch.Tensor, ...]:
        """Launch the forward kernel, then record the autograd node: ``apply`` minus its Python prologue.

        The kernel is launched before ``torch.autograd.Function``'s
        machinery runs (outputs allocated without autograd, then handed
        to :meth:`forward`), so the GPU starts tens of microseconds
        earlier in host-bound steps. ``apply``'s prologue binds default
        arguments (this ``forward`` has none) and unwraps dead functorch
        wrappers (done here); under functorch transforms the full
        :meth:`apply` runs and the forward launches inside it. ``call``: the
        call's :class:`~flexsn_runtime.training_plan.TrainingCall`; ``fast``: the
        call signature's launch plan (:func:`launch_training`).

        Returns:
            The forward's ``num_outputs + num_states`` differentiable outputs.
        """
        if functorch_active():
            return cls.apply(call, None, *flat_args)  # type: ignore[no-any-return, no-untyped-call]
        args = [_unwrap_if_dead(t) for t in flat_args]
        try:
            return _C_apply(call, launch_training(call, args, fast), *args)  # type: ignore[no-any-return, no-untyped-call]
        except RuntimeError:
            # autograd refuses to save a tensor made under torch.inference_mode (a state left by an
            # inference_mode call, an input made there), which the eager loop need not save: rerun
            # from copies, as PyTorch's message advises; off the hot path (only after that error)
            if not any(t.is_inference() for t in args):
                raise
            args = [t.clone() if t.is_inference() else t for t in args]
            return _C_apply(call, launch_training(call, args, fast), *args)  # type: ignore[no-any-return, no-untyped-call]

    @staticmethod
    def forward(ctx: Any, call: TrainingCall, launched: Launched | None, *flat_args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # Gradients we do not get stay None: the backward wrapper treats None
        # as zero without a [T, NCL] zero fill per output (SpikingJelly's ``flexsn_backward`` rule).
        ctx.set_materialize_grads(False)
        output, ctx.bufs, ctx.fast = launched if launched is not None else launch_training(call, flat_args)
        setup(ctx, call, flat_args, output)
        # tensors saved for backward only are intermediates here, not outputs
        return tuple(output[: call.n_grads])

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
