"""The ``flexsn::*`` operators over the handle registry (``torch.library``), and the eager autograd path.

The ops are opaque to ``torch.compile``: Dynamo/AOTAutograd see one node per
call, with fake implementations for shape propagation and an autograd
registration (``flexsn::training``'s) that calls the backward op. They are
defined with ``torch.library.Library``, not ``torch.library.custom_op``, for
host time: see the registration below. Flat arguments are
``[*input_seqs, *init_states, *statics]``; when the initial states are
left out, zero initial states are created *inside* the op, so compiled
graphs carry no ``zeros_like`` in front of every neuron layer. Static inputs
(``FlexSNInfo.num_static``) come in the layout form of
:mod:`flexsn_runtime.statics`; their gradients are summed over time and
over their broadcast dimensions.

Outside ``torch.compile`` the same implementations run through
:func:`run_inference` / :func:`run_training`, which skip the dispatcher
(a dispatcher call costs microseconds of Python, comparable to a
whole small kernel) but share every line of numerics and bookkeeping.
The implementations live in :mod:`flexsn_runtime.op_impls`, the autograd
formula in :mod:`flexsn_runtime.op_autograd`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import torch

from flexsn_trace import check_scan_args, layout_problem

from .call_cache import interpreted, tensor_signature
from .layout import backward_order, call_order, empty_in_order, stored_shape
from .op_autograd import EagerTraining, backward, op_setup
from .op_impls import backward_impl, inference_impl, inference_kernel, op_info, training_impl
from .registry import ensure_training_kernels, lookup_flexsn_kernel_handle
from .scan_kernel import tensor_problem
from .statics import run_starts, static_dims, static_runs
from .training_plan import TrainingCall, TrainingPlan, final_state_extras, plan_for

__all__ = [
    "flexsn_backward_op",
    "flexsn_inference_op",
    "flexsn_training_op",
    "run_inference",
    "run_training",
]


# ---------------------------------------------------------------- kernels and fakes

#: Inductor may hand the ops any strides (its default for custom ops copies inputs back to the strides
#: seen when tracing: a transposing copy of every channels-last convolution output before a neuron).
#: The implementations read any dense time-major layout as it is and copy the rest (flexsn_runtime.layout);
#: the fakes allocate the outputs in the order the launch will use, so planned and written strides agree.
_LAYOUT_TAGS = (torch.Tag.flexible_layout,)


#: op-argument signatures checked before (``(who, handle, interpreter, shapes, dtypes, devices)``): a compiled graph calls
#: the ops with the same tensors' shapes every step, and the full check costs host time comparable to a launch
_CHECKED: set[tuple[Any, ...]] = set()
_CHECKED_MAX = 4096


def _signature(handle: int, flat_args: Sequence[torch.Tensor], who: str) -> tuple[Any, ...] | None:
    """What :func:`check_op_args` reads of a call, or ``None`` when it cannot be remembered.

    Fake / functional tensors and other subclasses get none (checked every time); on the CPU the
    kernels run only while Triton's interpreter is on, so that is part of what was checked.
    """
    if any(layout_problem(t) for t in flat_args if isinstance(t, torch.Tensor)):
        return None  # sparse or nested: the check names it (their metadata would match a dense call's)
    tensors = tensor_signature(flat_args, requires_grad=False)
    if tensors is None or not flat_args:
        return None
    return (who, handle, interpreted(flat_args[0].device), tensors)


def check_op_args(handle: int, flat_args: Sequence[torch.Tensor], who: str) -> tuple[Any, ...] | None:
    """Check a custom op's ``[*input_seqs, *init_states?, *statics]`` as the kernels need them.

    A signature (shapes, dtypes, devices) that passed before is not checked again. Returns it
    (``None`` for tensors it cannot be remembered of): the key of the call's launch plan
    (:mod:`flexsn_runtime.op_plans`).

    Raises:
        RuntimeError: unknown handle.
        TypeError / ValueError: counts, shapes, dtypes or devices the kernels
            cannot take (:func:`flexsn_trace.check_scan_args` with
            ``uniform=True``, then :func:`flexsn_runtime.scan_kernel.tensor_problem`;
            static inputs: :func:`flexsn_runtime.statics.static_dims`, floating, on the inputs' device).
    """
    key = _signature(handle, flat_args, who)
    if key is not None and key in _CHECKED:
        return key
    _check_op_args(handle, flat_args, who)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED.add(key)
    return key


def _check_op_args(handle: int, flat_args: Sequence[torch.Tensor], who: str) -> None:
    bundle = lookup_flexsn_kernel_handle(handle)
    info = bundle.arity_info
    assert info is not None
    nst = info.num_static
    if len(flat_args) < nst + info.num_inputs:
        raise ValueError(
            f"{who}: expected {info.num_inputs} input sequence(s), optionally {info.num_states} initial state(s), then "
            f"{nst} static input(s); got {len(flat_args)} tensors"
        )
    body, statics = list(flat_args[: len(flat_args) - nst]), list(flat_args[len(flat_args) - nst :])
    contract = check_scan_args(info.num_inputs, info.num_states, info.num_outputs, body, who=who, uniform=True)
    x = contract.input_seqs[0]
    problem = tensor_problem(x)
    if problem is not None:
        error, message = problem
        raise error(f"{who}: {message}")
    for k, w in enumerate(statics):
        if not isinstance(w, torch.Tensor) or not w.is_floating_point() or w.device != x.device:
            raise TypeError(f"{who}: static input {k} must be a floating-point tensor on {x.device}, got {w!r:.80}")
    static_dims([w.shape for w in statics], x.shape[1:])


def _kernel_inference(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    return inference_impl(handle, flat_args, final_state, check_op_args(handle, flat_args, "flexsn::inference"))


def _fake_inference(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    kernel, info = inference_kernel(lookup_flexsn_kernel_handle(handle), final_state)
    x = flat_args[0]
    order = call_order(flat_args, info.num_static)
    states = [empty_in_order(x.shape[1:] if final_state else x.shape, order, x.dtype, x.device) for _ in range(info.num_states)]
    return [empty_in_order(x.shape, order, kernel.output_dtype(k, x), x.device) for k in range(info.num_outputs)] + states


def _kernel_training(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    return training_impl(handle, flat_args, final_state, signature=check_op_args(handle, flat_args, "flexsn::training"))


def _fake_training(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    x = flat_args[0]
    plan = plan_for(handle, final_state, x.dtype)  # the pair the implementation runs for this dtype
    info, fwd = plan.info, plan.forward
    order = call_order(flat_args, info.num_static)

    def seq(dtype: torch.dtype) -> torch.Tensor:
        return empty_in_order(x.shape, order, dtype, x.device)

    if not final_state:
        return [seq(fwd.output_dtype(k, x)) for k in range(info.num_fwd_kernel_returns)]
    return (
        [seq(fwd.output_dtype(k, x)) for k in range(info.num_outputs)]
        + [empty_in_order(x.shape[1:], order, x.dtype, x.device) for _ in range(info.num_states)]
        # as launchers.launch_forward allocates them
        + [empty_in_order(stored_shape(info, k, x.shape), order, fwd.output_dtype(k, x), x.device) for k in final_state_extras(info)]
    )


def _kernel_backward(
    handle: int, grads: list[Optional[torch.Tensor]], saved: list[torch.Tensor], templates: list[torch.Tensor],
    final_state: bool = False,
) -> list[torch.Tensor]:
    return backward_impl(handle, grads, saved, templates, final_state)


def _fake_backward(handle: int, grads: list[Optional[torch.Tensor]], saved: list[torch.Tensor], templates: list[torch.Tensor],
                   final_state: bool = False) -> list[torch.Tensor]:
    # one gradient shaped like each template: sequences and states in the order flexsn_backward launches in
    info = op_info(ensure_training_kernels(handle), "training")
    body = len(templates) - info.num_static
    statics = templates[body:]
    order = backward_order([*saved, *grads], templates[0].shape, [w.shape for w in statics])
    runs = static_runs([w.shape for w in statics], templates[0].shape[1:])
    sums = [statics[k].new_empty((n, statics[k].numel()), dtype=torch.float32) for k, n in zip(run_starts(runs), runs)]
    return [empty_in_order(t.shape, order, t.dtype, t.device) for t in templates[:body]] + sums


# ---------------------------------------------------------------- registration

#: The ``flexsn`` operator library. Why ``torch.library.Library`` and not ``torch.library.custom_op``: a custom op's
#: call runs its kernel inside layers of Python (an autograd wrapper and its redispatch, an output aliasing check, a
#: wrapper that turns Dynamo off, a kernel switch): on a CPU, 14 µs of host time per ``flexsn::inference`` call around
#: the kernel's own 8.6 µs, paid at every op call of a compiled graph. Here the dispatcher calls a kernel registered for
#: ``CompositeExplicitAutograd`` (every device), and the ops without a backward formula pass autograd through
#: :func:`_no_formula`: 8.8 µs around the kernel (``tools/results/gpu-2026-11-29c/op_host.py`` measures it). What the
#: layers gave is kept: our results are always new tensors (``opcheck`` checks aliasing in the tests), a backward
#: through an op without a formula raises, and compiled graphs call the kernels with Dynamo off already.
_LIB = torch.library.Library("flexsn", "DEF")  # type: ignore[no-untyped-call]
_OPS: dict[str, tuple[str, Callable[..., Any], Callable[..., Any]]] = {
    "inference": ("(SymInt handle, Tensor[] flat_args, bool final_state) -> Tensor[]", _kernel_inference, _fake_inference),
    "training": ("(SymInt handle, Tensor[] flat_args, bool final_state) -> Tensor[]", _kernel_training, _fake_training),
    "backward": (
        "(SymInt handle, Tensor?[] grads, Tensor[] saved, Tensor[] templates, bool final_state=False) -> Tensor[]",
        _kernel_backward, _fake_backward,
    ),
}
for _name, (_schema, _kernel, _fake) in _OPS.items():
    _LIB.define(_name + _schema, tags=_LAYOUT_TAGS)  # type: ignore[no-untyped-call]
    _LIB.impl(_name, _kernel, "CompositeExplicitAutograd")  # type: ignore[no-untyped-call]
    torch.library.register_fake(f"flexsn::{_name}", _fake, lib=_LIB)

_INFERENCE = torch.ops.flexsn.inference.default
_TRAINING = torch.ops.flexsn.training.default
_BACKWARD = torch.ops.flexsn.backward.default
_BELOW_AUTOGRAD = torch._C._after_autograd_keyset


class _NoFormula(torch.autograd.Function):
    """The results of an op without a backward formula, called with a tensor that requires grad: a backward raises.

    Without an autograd kernel the dispatcher would let the call through and only warn when a backward reached it,
    with no gradient (PyTorch's autograd fallback in its "warn" mode): a silent zero. ``torch.library.custom_op``
    raises there; so do these ops. The call itself is allowed, as a trace that never differentiates makes it
    (``torch.export`` of a network whose parameters require grad).
    """

    @staticmethod
    def forward(ctx: Any, who: str, run: Callable[[], list[torch.Tensor]], *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ctx.who = who
        return tuple(run())

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            f"Trying to backward through {ctx.who}, which has no backward formula: flexsn::training is the differentiable "
            "scan (FlexSN's modules and flex_sn_scan call it when gradients are needed)"
        )


def _no_formula(op: Any, who: str) -> Callable[..., list[torch.Tensor]]:
    """The Autograd kernel of ``op``: straight below autograd, unless gradients are enabled and a tensor requires them."""

    def kernel(keyset: Any, handle: int, *args: Any) -> list[torch.Tensor]:
        below = keyset & _BELOW_AUTOGRAD
        if torch.is_grad_enabled():
            tensors = [t for a in args if isinstance(a, (list, tuple)) for t in a if t is not None and t.requires_grad]
            if tensors:
                return list(_NoFormula.apply(who, lambda: op.redispatch(below, handle, *args), *tensors))  # type: ignore[no-untyped-call]
        return op.redispatch(below, handle, *args)  # type: ignore[no-any-return]

    return kernel


def flexsn_inference_op(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    """The ``flexsn::inference`` op: ``[*input_seqs, *init_states?, *statics] -> [*output_seqs, *state_seqs]``.

    Each sequence is ``[T, *shape]`` in the input sequences' dtype (outputs: the dtype the core returns); with
    ``final_state`` the op returns ``[*output_seqs, *final_states]`` (states ``[*shape]``; no state sequence is
    written). Omitted initial states are zeros made in the kernel. Not differentiable: use :func:`flexsn_training_op`
    (a backward through these results raises a ``RuntimeError``).

    Raises:
        RuntimeError: an unknown handle.
        TypeError / ValueError: tensors the kernels cannot take (:func:`check_op_args`), before any launch.
    """
    return _INFERENCE(handle, flat_args, final_state)  # type: ignore[no-any-return]


def flexsn_training_op(handle: int, flat_args: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    """The ``flexsn::training`` op: the forward scan of BPTT, with its backward formula (``flexsn::backward``).

    Returns ``[*output_seqs, *state_seqs, *saved_intermediates]``; with ``final_state``
    ``[*output_seqs, *final_states, *saved_for_backward]``.

    Raises: as :func:`flexsn_inference_op` (gradients are its purpose).
    """
    return _TRAINING(handle, flat_args, final_state)  # type: ignore[no-any-return]


def flexsn_backward_op(
    handle: int, grads: list[Optional[torch.Tensor]], saved: list[torch.Tensor], templates: list[torch.Tensor],
    final_state: bool = False,
) -> list[torch.Tensor]:
    """The ``flexsn::backward`` op: output/state gradients (``None`` = zero) + saved tensors -> input, initial-state, static gradients.

    ``templates`` holds one tensor per input sequence, per initial state, then
    per static input (shape/dtype of the gradients to produce); with
    ``final_state`` the state gradients are gradients of the final states.
    The static inputs' gradients come as one fp32 ``[n, numel]`` tensor per
    run of ``n`` statics of one shape (:func:`flexsn_runtime.statics.static_runs`:
    one reduction per run, and an op's results may not share storage);
    :func:`flexsn_runtime.statics.run_gradients` splits them.

    Not differentiable itself (a second-order backward through its results raises a ``RuntimeError``).

    Raises:
        RuntimeError: an unknown handle.
    """
    return _BACKWARD(handle, grads, saved, templates, final_state)  # type: ignore[no-any-return]


def _op_setup(ctx: Any, inputs: tuple[Any, ...], output: list[torch.Tensor]) -> None:
    ctx.set_materialize_grads(False)  # as in EagerTraining.forward
    op_setup(ctx, inputs[0], inputs[1], output, bool(inputs[2]))


def _op_backward(ctx: Any, grad_out: list[torch.Tensor | None]) -> tuple[None, list[torch.Tensor | None], None]:
    # one gradient per op argument; final_state has no default, so the dispatcher always passes it
    return None, backward(ctx, grad_out, _BACKWARD), None


#: each op's backward formula ``(backward, setup_context)``, or ``None``: a backward through its results raises
_FORMULAS: dict[str, tuple[Callable[..., Any], Callable[..., Any]] | None] = {
    "training": (_op_backward, _op_setup), "inference": None, "backward": None,
}
for _name, _formula in _FORMULAS.items():
    if _formula is not None:
        torch.library.register_autograd(f"flexsn::{_name}", _formula[0], setup_context=_formula[1], lib=_LIB)
    else:
        _op = getattr(torch.ops.flexsn, _name).default
        _LIB.impl(_name, _no_formula(_op, f"flexsn::{_name}"), "Autograd", with_keyset=True)  # type: ignore[no-untyped-call]


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
        return list(_INFERENCE(handle, list(flat_args), final_state))
    return inference_impl(handle, flat_args, final_state)


def run_training(
    handle: int,
    flat_args: Sequence[torch.Tensor],
    final_state: bool,
    tracing: bool | None = None,
    plan: TrainingPlan | None = None,
) -> list[torch.Tensor]:
    """Training forward with BPTT autograd, through the custom op when traced.

    ``tracing`` as in :func:`run_inference`; ``plan``: ``plan_for(handle,
    final_state, dtype)`` when the caller holds it (saves a registry lookup). Returns
    ``[*output_seqs, *state_seqs_or_final_states]``, followed, when traced,
    by the op's tensors saved for backward; callers keep the first
    ``num_outputs + num_states``.
    """
    if _use_op(tracing):
        return list(_TRAINING(handle, list(flat_args), final_state))
    if plan is None:
        plan = plan_for(handle, final_state, flat_args[0].dtype)
    out = EagerTraining.apply_unwrapped(TrainingCall(plan, flat_args), *flat_args)
    return list(out)
