"""The one routing decision: eager loop or fused kernels, which kernel, and the fallback warning.

Every caller that runs a scan (``FlexSNKernel``, ``flexsn_hop``'s operator,
``flexsn_nn.FlexSN``) describes the call as a
:class:`flexsn_trace.ScanContract` and asks :func:`route` what runs it:

* ``"eager"``: the reference time loop (:func:`flexsn_trace.reference_scan`),
  with the reason when the kernels exist but cannot take this call;
* ``"inference"``: the fused inference kernel (no autograd needed, or a core
  through which no gradient flows);
* ``"training"``: the fused forward kernel with the reverse-time BPTT kernel
  as its autograd formula.

``Route.final_state`` picks the kernel variant (final states only, or state
sequences). :func:`run_route` executes a route; :func:`warn_fallback` is
where every fallback warning is issued, once per reason and owner.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Literal, NamedTuple, Protocol, Sequence

import torch
from torch.autograd import forward_ad

from flexsn_trace import ScanContract, as_tensor_tuple, broadcast_shape, run_isolated

from .builders import dtype_dependence
from .call_cache import dual_level_active, functorch_active, jit_tracing
from .compile_time import constant_under_compile, enrolled
from .launch_plan import LaunchPlan, PlanSlot
from .launchers import launch_args, launch_inference
from .op_autograd import EagerTraining
from .op_impls import inference_kernel
from .ops import run_inference, run_training
from .registry import lookup_flexsn_kernel_handle
from .scan_kernel import KERNEL_DTYPES, tensor_problem
from .statics import kept_as_is, prepare_static, static_problem
from .training_plan import TrainingCall, TrainingPlan

#: why a call under ``torch.func`` transforms runs the eager loop (their wrapped tensors have no storage a kernel can read)
FUNCTORCH_REASON = (
    "torch.func transforms (vmap, grad, jacrev, jvp, ...) are active, and their wrapped tensors "
    "have no memory the fused kernels can read"
)
#: why a call recorded by ``torch.jit.trace`` runs the eager loop (a kernel launch is no aten operation: the trace would
#: hold the inputs and outputs of this call, not the neuron)
JIT_TRACE_REASON = (
    "torch.jit.trace is recording, and it records aten operations only: the fused kernels' launch would be missing "
    "from the traced graph, so the eager loop (unrolled for this T) is recorded instead; torch.compile and "
    "torch.export keep the kernels"
)
#: why a call with forward-mode AD tangents runs the eager loop (the kernels would drop the tangents)
DUAL_REASON = "tensors carry forward-mode AD tangents (torch.autograd.forward_ad), which the fused kernels do not propagate"


def has_tangent(contract: ScanContract) -> bool:
    """Whether any tensor of the call carries a forward-mode AD tangent at the current dual level."""
    if not dual_level_active():
        return False
    unpack: Callable[[torch.Tensor], forward_ad.UnpackedDualTensor] = forward_ad.unpack_dual
    tensors = (*contract.input_seqs, *contract.init_states, *contract.lifted_args)
    return any(unpack(t).tangent is not None for t in tensors if isinstance(t, torch.Tensor))


class RoutedKernel(Protocol):
    """What routing reads of a kernel (:class:`flexsn_runtime.FlexSNKernel`, which has each member under the same
    name and meaning) and the memo dicts it fills. A protocol, so that ``flexsn_kernel`` imports this module and
    nothing here imports ``flexsn_kernel``."""

    @property
    def _serial(self) -> str: ...
    @property
    def handle(self) -> int | None: ...
    @property
    def fallback_reason(self) -> str | None: ...
    @property
    def training_fallback_reason(self) -> str | None: ...
    @property
    def has_training_kernels(self) -> bool: ...
    @property
    def num_inputs(self) -> int: ...
    @property
    def num_states(self) -> int: ...
    @property
    def num_outputs(self) -> int: ...
    @property
    def num_kernel_statics(self) -> int: ...
    @property
    def requires_grad_flags(self) -> tuple[bool, ...] | None: ...
    @property
    def results_keep_step(self) -> bool: ...
    @property
    def step_fn(self) -> Callable[..., Any]: ...
    @property
    def trace_examples(self) -> Sequence[torch.Tensor] | None: ...
    @property
    def dtype_reasons(self) -> dict[tuple[torch.dtype, bool], str | None]: ...
    @property
    def shape_fits(self) -> dict[tuple[tuple[int, ...], ...], tuple[int, ...] | str]: ...
    @property
    def runners(self) -> dict[tuple[str, bool, torch.dtype], Runner]: ...
    def plan(self, final_state: bool, dtype: torch.dtype = torch.float32) -> TrainingPlan: ...


__all__ = ["DUAL_REASON", "FUNCTORCH_REASON", "KERNEL_DTYPES", "Route", "RoutedKernel", "call_reason", "fit_shapes", "fused_runner", "gradient_left_out", "route", "run_route", "signature_runner",
    "warn_fallback"]


Path = Literal["eager", "inference", "training"]


class Route(NamedTuple):
    """How one scan call runs.

    Attributes:
        path: ``"eager"``, ``"inference"`` or ``"training"``.
        reason: why the eager loop runs although kernels were asked for
            (``None`` on the fused paths, and when no kernel exists to ask).
        final_state: the final-state kernel variant (no state sequences).
    """

    path: Path
    reason: str | None
    final_state: bool


def call_reason(contract: ScanContract) -> str | None:
    """Why this call cannot run fused kernels whatever the core, or ``None`` when it can.

    The per-call half of :func:`route`, answerable before any kernel is built
    (building traces the core): a call not checked for one per-step shape,
    dtype and device, a dtype outside :data:`KERNEL_DTYPES`, a device
    without kernels (CPU without ``TRITON_INTERPRET=1``), static inputs
    (``lifted_args``) the kernels cannot read
    (:func:`flexsn_runtime.statics.static_problem`).
    """
    if not contract.uniform:
        return "inputs and states do not share one per-step shape, dtype and device (see fit_shapes)"
    problem = tensor_problem(contract.input_seqs[0])
    if problem is not None:
        return problem[1]
    return static_problem(contract.lifted_args, contract.input_seqs[0]) if contract.lifted_args else None


def fit_shapes(kernel: RoutedKernel | None, contract: ScanContract) -> tuple[ScanContract, str | None]:
    """A call whose per-step shapes differ, made one the fused kernels can take, or the reason it cannot be.

    The fused kernels write every output and state in one per-step shape
    ``S``. Inputs and states whose shapes broadcast to ``S``
    (``torch.broadcast_shapes``) run fused on broadcast views (copied to
    contiguous memory by the launch; autograd sums their gradients back)
    when the core, run once on ``meta`` tensors of these shapes, returns
    every output and state of shape ``S``; then the fused result equals
    the eager loop's. A core whose result keeps another shape (an output
    that ignores the broadcast inputs) must run the eager loop. So must one
    whose result a static input alone makes (a per-channel ``[C, 1, 1]``
    threshold returned as it is) or a constant (``torch.tensor(0.0)``), even
    when inputs and states share ``S``: the loop's output then has that
    shape, not ``S``. Which results read an input or a state is known from
    the trace (``kernel.results_keep_step``), so only cores with such a
    result run the core on ``meta`` tensors for a uniform call (under
    Dynamo, which would trace that run, they run the loop).

    Args:
        kernel: the core's kernels (``None``: nothing to fit).
        contract: the call, checked with ``uniform=True, shapes="broadcast"``.

    Returns:
        ``(contract, None)`` when it is uniform already or was made uniform
        (inputs ``[T, *S]``, states ``[*S]``), else ``(contract, reason)``.
        The answer per shape combination is cached on ``kernel``.
    """
    if kernel is None or (contract.uniform and kernel.results_keep_step):
        return contract, None  # every result reads an input or a state: elementwise, it keeps their shape
    seqs, init = contract.input_seqs, contract.init_states
    x0 = seqs[0]
    state_shapes = [tuple(s.shape) for s in init] if init else [tuple(x0.shape[1:])] * contract.num_states  # zeros: input 0's
    shapes = (*(tuple(x.shape[1:]) for x in seqs), *state_shapes)
    symbolic = not all(type(d) is int for sh in shapes for d in sh)
    if contract.uniform and (symbolic or torch.compiler.is_dynamo_compiling()):  # Dynamo would trace the meta run
        return contract, (
            "a result of the core reads no input or state (a static input or a constant alone): the loop keeps its "
            "shape, the fused kernels would write one value per neuron; under torch.compile or symbolic sizes its "
            "shape is not worked out"
        )
    if symbolic:
        return contract, "inputs and states of different symbolic per-step shapes cannot be fitted to one shape"
    static_shapes = tuple(tuple(w.shape) for w in contract.lifted_args)
    key = (*shapes, *static_shapes)
    answer = kernel.shape_fits.get(key)
    if answer is None:
        answer = kernel.shape_fits[key] = _fit(kernel, shapes, x0.dtype, static_shapes)
    if isinstance(answer, str):
        return contract, answer
    if contract.uniform:
        return contract, None
    S = answer

    def grow(t: torch.Tensor, lead: int) -> torch.Tensor:
        # new leading per-step dims, then expand: a view, like torch.broadcast_to
        pad = len(S) - (t.dim() - lead)
        return t[(slice(None),) * lead + (None,) * pad].expand(*t.shape[:lead], *S)

    fitted = tuple(grow(x, 1) for x in seqs)
    return contract._replace(input_seqs=fitted, init_states=tuple(grow(s, 0) for s in init), uniform=True), None


def _fit(
    kernel: RoutedKernel, shapes: tuple[tuple[int, ...], ...], dtype: torch.dtype,
    static_shapes: tuple[tuple[int, ...], ...] = (),
) -> tuple[int, ...] | str:
    """The one shape ``S`` a core keeps for these per-step shapes, or why there is none (see :func:`fit_shapes`).

    Static inputs join the core's call but not ``S``: they must broadcast to it.
    """
    S = broadcast_shape(shapes)
    if S is None:  # the contract's shapes="broadcast" check refuses these
        return f"the per-step shapes {shapes} do not broadcast"
    named = ", ".join(str(sh) for sh in shapes)
    try:
        with torch.no_grad():
            res = kernel.step_fn(*(torch.empty(sh, dtype=dtype, device="meta") for sh in (*shapes, *static_shapes)))
        outs = as_tensor_tuple(res, "the core", kernel.num_outputs + kernel.num_states)
    except Exception as exc:  # noqa: BLE001 - any failure: the loop runs the core and raises its own error
        return f"the core could not be run on meta tensors of the per-step shapes {named} ({type(exc).__name__}: {exc})"
    got = [tuple(t.shape) for t in outs]
    if any(g != S for g in got):
        statics = f" (with static inputs of shapes {', '.join(str(sh) for sh in static_shapes)})" if static_shapes else ""
        return (
            f"inputs and states of per-step shapes {named} broadcast to {S}, but the core{statics} returns "
            f"{', '.join(str(g) for g in got)}; the fused kernels write every output and state in one shape"
        )
    return S


def route(kernel: RoutedKernel | None, contract: ScanContract, needs_grad: bool | None = None) -> Route:
    """Decide how ``contract`` runs with ``kernel``'s fused kernels.

    Args:
        kernel: the core's kernels, or ``None`` when none were built
            (a caller that never fuses: always the eager loop, no reason).
        contract: the call, checked with ``uniform=True`` where kernels may run.
        needs_grad: whether autograd must flow through the result
            (default: :meth:`flexsn_trace.ScanContract.needs_grad`).

    Returns:
        The :class:`Route`: eager with the build's reason when the kernels
        could not be built (e.g. the op without a lowering), with
        :func:`call_reason`'s, or with the training build's reason when
        gradients are needed and only the training trace failed (an op
        without an autograd formula); else ``"training"`` when gradients are
        needed and the core has training kernels, ``"inference"`` otherwise
        (a core through which no gradient flows has inference kernels only).
    """
    fs = contract.final_state
    x = contract.input_seqs[0]
    if kernel is None:
        return Route("eager", None, fs)
    if functorch_active():
        return Route("eager", FUNCTORCH_REASON, fs)
    if jit_tracing():
        return Route("eager", JIT_TRACE_REASON, fs)
    if has_tangent(contract):
        return Route("eager", DUAL_REASON, fs)
    handle = kernel.handle
    if len(contract.lifted_args) != kernel.num_kernel_statics and handle is not None:
        n = kernel.num_kernel_statics
        return Route("eager", f"the kernels take {n} static input(s), the call passes {len(contract.lifted_args)}", fs)
    if not (handle is not None and x.is_cuda and x.dtype in KERNEL_DTYPES and not contract.lifted_args and contract.uniform):
        # anything but the common call (answered without building a device object)
        reason = (kernel.fallback_reason or "the kernels could not be built") if handle is None else call_reason(contract)
        if reason is not None:
            return Route("eager", reason, fs)
    grad = contract.needs_grad() if needs_grad is None else needs_grad
    dtype_problem = dtype_reason(kernel, x.dtype, grad and kernel.has_training_kernels)
    if dtype_problem is not None:
        return Route("eager", dtype_problem, fs)
    if grad and not kernel.has_training_kernels and kernel.training_fallback_reason is not None:
        return Route("eager", kernel.training_fallback_reason, fs)
    if grad and kernel.requires_grad_flags is not None:
        left_out = gradient_left_out(kernel.requires_grad_flags, contract.input_seqs)
        if left_out is not None:
            return Route("eager", left_out, fs)
    return Route("training" if grad and kernel.has_training_kernels else "inference", None, fs)


def dtype_reason(kernel: RoutedKernel, dtype: torch.dtype, training: bool = False) -> str | None:
    """Why ``kernel``'s kernels, traced at one dtype, cannot run sequences of ``dtype`` (the core, or with
    ``training`` its gradient, reads the dtype: :func:`flexsn_runtime.builders.dtype_dependence`), or ``None``;
    worked out once per dtype and mode, while Dynamo compiles a call as a constant to it (the trace cannot be
    traced)."""
    if torch.compiler.is_compiling():  # the memo is not read in traced code: Dynamo would guard on it
        return _dtype_reason_while_compiling(kernel._serial, str(dtype).removeprefix("torch."), training)
    return _memoised(kernel, dtype, training)


def _memoised(kernel: RoutedKernel, dtype: torch.dtype, training: bool) -> str | None:
    """:func:`dtype_reason` from ``kernel.dtype_reasons``, worked out (on a thread of its own) the first time."""
    reasons = kernel.dtype_reasons
    key = (dtype, training)
    if key not in reasons:
        arity = (kernel.num_inputs, kernel.num_states)
        reasons[key] = run_isolated(
            lambda: dtype_dependence(kernel.step_fn, arity, kernel.trace_examples, kernel.num_kernel_statics, dtype, training),
            "flexsn-dtype",
        )
    return reasons[key]


@constant_under_compile
def _dtype_reason_while_compiling(serial: str, dtype: str, training: bool) -> str | None:
    """:func:`dtype_reason` for the kernel ``serial`` names and ``torch.<dtype>``; a constant to Dynamo."""
    kernel = enrolled(serial)
    return None if kernel is None else _memoised(kernel, getattr(torch, dtype), training)


def gradient_left_out(flags: Sequence[bool], input_seqs: Sequence[torch.Tensor]) -> str | None:
    """Why the training kernels would drop a gradient autograd asks for, or ``None``.

    ``flags`` are ``FlexSN(requires_grad=...)``'s (SpikingJelly's argument): an input flagged
    ``False`` is left out of the training trace, so its gradient would come back as zeros. An
    input sequence that requires grad anyway runs the loop instead. States are traced with
    gradients whatever their flags (BPTT carries them), so only inputs are asked about.
    """
    for i, x in enumerate(input_seqs):
        if i < len(flags) and not flags[i] and x.requires_grad:
            return (
                f"input {i} requires grad, but requires_grad[{i}] is False, so the training kernels leave its gradient "
                "out; pass requires_grad with True there (or detach the input) to train fused"
            )
    return None


def run_route(
    kernel: RoutedKernel, r: Route, contract: ScanContract, tracing: bool | None = None
) -> tuple[torch.Tensor, ...]:
    """Run a fused route (``"inference"`` / ``"training"``) of :func:`route`.

    Args:
        kernel: the kernels :func:`route` was asked about.
        r: a fused route.
        contract: the call.
        tracing: ``None``: through the custom ops while Dynamo compiles,
            directly otherwise; ``True`` under another tracer (AOTAutograd,
            ``make_fx``). See :func:`flexsn_runtime.run_inference`.

    Returns:
        ``(*output_seqs, *state_seqs)``, or with ``r.final_state``
        ``(*output_seqs, *final_states)``.

    Raises:
        ValueError: ``r`` is the eager route (the caller runs its own loop).
    """
    if r.path == "eager" or kernel.handle is None:
        raise ValueError("run_route runs the fused routes; the eager route runs flexsn_trace.reference_scan")
    seqs, states, lifted = contract.input_seqs, contract.init_states, contract.lifted_args
    if not (torch.compiler.is_compiling() if tracing is None else tracing):
        return fused_runner(kernel, r, seqs[0].dtype)(seqs, states, lifted)
    flat = _flat(seqs, states, lifted)
    if r.path == "training":
        return tuple(run_training(kernel.handle, flat, r.final_state, tracing=True)[: kernel.num_outputs + kernel.num_states])
    return tuple(run_inference(kernel.handle, flat, r.final_state, tracing=True))


#: ``(input_seqs, init_states or (), static inputs) -> (*output_seqs, *state_seqs or final_states)``
Runner = Callable[[Sequence[torch.Tensor], Sequence[torch.Tensor], Sequence[torch.Tensor]], tuple[torch.Tensor, ...]]


def fused_runner(kernel: RoutedKernel, r: Route, dtype: torch.dtype) -> Runner:
    """The eager (untraced) fused call of route ``r`` on sequences of ``dtype``, its kernels looked up once (cached on ``kernel``).

    What :func:`run_route` runs outside tracers, and what the call cache
    (:mod:`flexsn_runtime.call_cache`) replays: the same function either way.
    ``dtype`` picks the training pair (:func:`flexsn_runtime.registry.training_kernels`).
    """
    key = (r.path, r.final_state, dtype)
    runner = kernel.runners.get(key)
    if runner is not None:
        return runner
    fs = r.final_state
    if r.path == "training":
        plan, apply = kernel.plan(fs, dtype), EagerTraining.apply_unwrapped

        def train(seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
            flat = _flat(seqs, states, lifted)
            return apply(TrainingCall(plan, flat), *flat)

        runner = train
    else:
        assert kernel.handle is not None
        f, info = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), fs)

        def infer(seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
            return launch_inference(f, info, launch_args(info, _flat(seqs, states, lifted)), fs)

        runner = infer
    kernel.runners[key] = runner
    return runner


def signature_runner(kernel: RoutedKernel, r: Route, dtype: torch.dtype) -> Runner:
    """:func:`fused_runner` for the calls of one call signature (what the call cache records).

    From its second call on, a :class:`~flexsn_runtime.launch_plan.LaunchPlan`
    launches the inference or training-forward kernel without deriving the
    launch again; a call the plan does not fit (non-contiguous or unaligned
    tensors) takes the derived launch, as does every call when no plan
    could be built (:class:`~flexsn_runtime.launch_plan.PlanSlot`).
    """
    fs, slot = r.final_state, PlanSlot[LaunchPlan]()
    if r.path == "training":
        plan, apply = kernel.plan(fs, dtype), EagerTraining.apply_unwrapped
        f, info, stored = plan.forward, plan.info, plan.stored
    else:
        assert kernel.handle is not None
        (f, info), stored = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), fs), None

    def planned(flat: list[torch.Tensor]) -> LaunchPlan | None:
        fast = slot.plan
        return fast if fast is not None else slot.retry(lambda: LaunchPlan.build(f, info, flat, fs, stored))

    kept: list[bool] = []  # per static input: prepare_static passes it as is when contiguous (fixed by the signature)

    def flat_of(
        seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]
    ) -> tuple[list[torch.Tensor], bool]:
        """The call's flat arguments, and whether every tensor passes as it is (else some static input is prepared)."""
        if not lifted:
            return [*seqs, *states], True
        if not kept:
            x = seqs[0]
            kept.extend(kept_as_is(w, x.shape[1:], x.device) for w in lifted)
        for w, k in zip(lifted, kept):
            if not (k and w.is_contiguous()):
                return _flat(seqs, states, lifted), False
        return [*seqs, *states, *lifted], True

    if r.path == "training":
        shared: list[TrainingCall] = []  # the signature's, made by its first call (fixed by the signature)

        def train(seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
            flat, as_passed = flat_of(seqs, states, lifted)
            if not as_passed:  # a static input in another layout form: this call's own bookkeeping
                return apply(TrainingCall(plan, flat), *flat, fast=planned(flat))
            if not shared:
                shared.append(TrainingCall(plan, flat))
            return apply(shared[0], *flat, fast=planned(flat))

        return train

    def infer(seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        flat, _ = flat_of(seqs, states, lifted)
        fast = planned(flat)
        out = fast.run(flat) if fast is not None else None
        return out if out is not None else launch_inference(f, info, launch_args(info, flat), fs)

    return infer


def _flat(seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], lifted: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The ops' flat arguments: sequences, states, then static inputs in the kernels' layout (autograd maps their gradients back)."""
    if not lifted:
        return [*seqs, *states]
    x = seqs[0]
    return [*seqs, *states, *(prepare_static(w, x.shape[1:], k, x.device) for k, w in enumerate(lifted))]


def warn_fallback(seen: set[str], message: str, stacklevel: int = 3) -> None:
    """Warn ``FlexSN: <message>`` (no second prefix) once per owner (``seen`` holds what the owner was told).

    A ``RuntimeWarning``: results stay right, only slower.
    """
    if message in seen:
        return
    seen.add(message)
    text = message if message.startswith("FlexSN") else f"FlexSN: {message}"
    warnings.warn(text, RuntimeWarning, stacklevel=stacklevel + 1)

