"""The ``flex_sn_scan`` operator and its eager implementations.

``flex_sn_scan`` is a ``torch._ops.HigherOrderOperator``. Every kernel it
registers validates the call (``_checks``), asks the fused-implementation
hook (``fused``), and otherwise runs :func:`eager_scan`, the Python time
loop. Run eagerly, autograd differentiates that loop (indexing and
``torch.stack`` chain the per-step graphs: BPTT). Traced by AOTAutograd,
``make_fx`` or Inductor, the loop unrolls into ``T`` copies of the step's
aten ops, so no compiler needs to know the operator.

Kernels (as in SpikingJelly's FlexSN operator): ``Autograd``, ``CompositeExplicitAutograd``,
``Functionalize``, the ``FunctionalTensorMode``, ``ProxyTorchDispatchMode``
and ``FakeTensorMode`` modes, and the ``torch.func`` transforms; the modes
re-enter themselves around the loop so that its ops are functionalized /
traced / faked as usual.

Private PyTorch APIs (``torch._ops.HigherOrderOperator``, the dispatch mode
classes) are imported defensively: when they drift, a ``UserWarning`` is
issued and ``flex_sn_scan`` becomes a plain callable running the same eager
path (``hop_kernels_registered()`` then returns ``False``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from flexsn_trace import reference_scan
from flexsn_runtime import stored_in

from ._checks import ScanArgs, empty_outputs, prepare_scan_args
from ._types import CoreFn, DispatchPath, OutputTemplateSpecs, ScanFn, ScanResult, final_state_form
from .fused import run_fused_impl

__all__ = [
    "FlexSNScan",
    "eager_scan",
    "eager_scan_final_state",
    "flex_sn_scan",
    "hop_kernels_registered",
]


def _run_loop(core_fn: CoreFn, num_outputs: int, args: ScanArgs, *, state_seqs: bool) -> ScanResult:
    """The time loop (:func:`flexsn_trace.reference_scan`) on validated arguments.

    Returns ``(*output_seqs, *state_seqs)`` or, with ``state_seqs=False``,
    ``(*output_seqs, *final_states)``; ``T == 0`` builds the empty outputs
    from the templates.
    """
    contract = args.contract._replace(final_state=not state_seqs)
    core = args.loop_core(core_fn)
    empty = empty_outputs(args, num_outputs, core, core_fn) if args.contract.T == 0 else None
    return reference_scan(core, contract, empty, what="flex_sn_scan: core")


def eager_scan(
    core_fn: CoreFn, num_inputs: int, num_states: int, num_outputs: int, *flat_args: torch.Tensor,
    output_template_specs: OutputTemplateSpecs | None = None, final_state: bool = False,
) -> ScanResult:
    """Run the scan as a Python time loop (SpikingJelly's ``eager_scan``).

    ``flat_args`` are ``num_inputs`` input sequences ``[T, *in_shape]``, then
    ``num_states`` initial states ``[*state_shape]``, then any lifted tensors
    passed unchanged to every step. Each step calls
    ``core_fn(*(x[t] for x in inputs), *states, *lifted)`` which returns
    ``num_outputs`` step outputs then ``num_states`` next states (a lone tensor
    counts as a 1-tuple). Returns ``num_outputs`` output sequences
    ``[T, *out_shape]`` then ``num_states`` state sequences
    ``[T, *state_shape]``; dtypes and devices are whatever ``core_fn``
    produces. Differentiable through ordinary autograd (BPTT).

    ``T == 0``: ``core_fn`` is not run; the outputs are empty
    ``[0, *shape]`` tensors built from ``output_template_specs``
    (``(shape, dtype)`` or ``(shape, dtype, device)`` per output, device
    defaulting to input 0's) or, without them, from one step of ``core_fn``
    run on fake tensors (:func:`flexsn_trace.fake_step_outputs`; nothing is
    computed), and the state sequences are empty
    ``[0, *state_shape]`` tensors.

    ``final_state=True`` returns the final states ``[*state_shape]`` in
    place of the state sequences (they are never materialized; ``T == 0``:
    clones of the initial states), as SpikingJelly's ``eager_scan_final_state``
    (:data:`eager_scan_final_state`) does for ``store_state_seqs=False``.

    Raises ``ValueError`` for fewer than ``num_inputs + num_states`` tensors,
    ``num_inputs == 0``, a ``core_fn`` whose signature cannot take
    ``num_inputs + num_states + len(lifted)`` positional args, inputs whose
    leading dims differ, a step returning a count other than
    ``num_outputs + num_states``, or ``T == 0`` with wrongly sized
    templates, or none and a ``core_fn`` that cannot run on fake tensors (it
    branches on a value); ``TypeError`` for non-tensor arguments or results.
    """
    args = prepare_scan_args(core_fn, num_inputs, num_states, num_outputs, flat_args, output_template_specs, final_state)
    return _run_loop(core_fn, num_outputs, args, state_seqs=not args.contract.final_state)


eager_scan_final_state: ScanFn = final_state_form(eager_scan, "eager_scan_final_state")


def _decompose(
    dispatch: DispatchPath, core_fn: CoreFn, num_inputs: int, num_states: int, num_outputs: int,
    *flat_args: torch.Tensor, output_template_specs: OutputTemplateSpecs | None = None,
    final_state: bool = False, zero_init_states: bool = False,
) -> ScanResult:
    """What every operator kernel runs: validate, the fused implementation, else the eager loop.

    Returns ``(*output_seqs, *state_seqs)`` or, with ``final_state``,
    ``(*output_seqs, *final_states)`` (the loop of
    :func:`eager_scan_final_state`).
    """
    args = prepare_scan_args(
        core_fn, num_inputs, num_states, num_outputs, flat_args, output_template_specs, final_state, zero_init_states
    )
    fused = run_fused_impl(core_fn, num_outputs, args, dispatch)
    if fused is not None:
        return fused
    out = _run_loop(core_fn, num_outputs, args, state_seqs=not args.contract.final_state)
    # floating results as the fused kernels store them, whichever ran: one dtype on every device (T == 0: the
    # templates', when given; dtypes a fake step found are stored like a step's results)
    templated = args.contract.T == 0 and args.output_template_specs is not None
    return out if templated else stored_in(out, args.contract.input_seqs[0].dtype)


def _hop_base() -> tuple[type, bool]:
    try:
        from torch._ops import HigherOrderOperator

        return HigherOrderOperator, True
    except Exception as exc:  # private API drift
        warnings.warn(
            f"flexsn_hop: torch._ops.HigherOrderOperator is unavailable ({exc!r}); "
            "flex_sn_scan runs as a plain eager function",
            stacklevel=2,
        )
        return object, False


_RUNTIME_BASE, _HOP_BASE_OK = _hop_base()
if TYPE_CHECKING:
    from torch._ops import HigherOrderOperator as _Base
else:
    _Base = _RUNTIME_BASE

_HOP_KERNELS_OK = False


class FlexSNScan(_Base):
    """The ``flex_sn_scan`` higher-order operator (SpikingJelly's ``FlexSNScan``).

    Call as ``flex_sn_scan(core_fn, num_inputs, num_states, num_outputs,
    *input_seqs, *init_states, *lifted_args, output_template_specs=None,
    final_state=False, zero_init_states=False)``.
    ``input_seqs`` are ``[T, *in_shape]`` tensors sharing ``T``,
    ``init_states`` ``[*state_shape]`` tensors and ``lifted_args`` tensors
    handed unchanged to every step (Dynamo appends captured closure tensors
    here, after the initial states). ``core_fn(*step_inputs, *states,
    *lifted)`` returns ``(*step_outputs, *next_states)``. Returns
    ``(*output_seqs, *state_seqs)``, each ``[T, *shape]``: bool and integer
    results in the dtype ``core_fn`` produces, floating ones in input 0's
    dtype, as the fused kernels store them (a bfloat16 step reading a float32
    lifted tensor, promoted to float32 by PyTorch, gives bfloat16 sequences on
    every device; :func:`eager_scan`, the plain loop, keeps the promoted
    dtype; ``flexsn_runtime.stored_in``; ``T == 0``: the templates' dtypes, when given). ``output_template_specs`` (``(shape, dtype)`` or
    ``(shape, dtype, device)`` per output) builds the empty outputs when
    ``T == 0``; Dynamo fills it in from the traced body, and without it an
    eager call runs one step on fake tensors to find them.

    ``final_state=True`` (a ``bool``; beyond SpikingJelly) returns
    ``(*output_seqs, *final_states)`` instead, the final states ``[*shape]``
    equal to the last step of the state sequences, exactly as
    :func:`eager_scan_final_state` (``T == 0``: clones of the initial
    states). State sequences are then never materialized: the fused kernels
    run their final-state forms (``flexsn::training_final_state`` /
    ``flexsn::inference_final_state``), whose backward is seeded by the
    final-state gradient directly, so no ``[T, *shape]`` zero gradient is
    built for unused state steps. Use it whenever only the last state is
    needed (``FlexSN(backend="hop", store_state_seqs=False)`` does).

    ``zero_init_states=True`` (a ``bool``; beyond SpikingJelly): pass no
    initial states (``*input_seqs, *lifted_args``); the states start as
    zeros of input 0's per-step shape ``x.shape[1:]``, dtype and device.
    The fused kernels then create the zeros inside the op, so compiled
    graphs carry no zero fill in front of it (``FlexSN(backend="hop")``
    after ``reset()`` uses it). Results equal passing explicit zeros.

    Semantics, autograd and errors are those of :func:`eager_scan` /
    :func:`eager_scan_final_state` (``ValueError`` for arity / ``T`` /
    template problems, ``TypeError`` for non-tensors or a non-bool
    ``final_state``). Under ``torch.compile`` the call is captured as ONE graph
    node whose body is a ``GraphModule`` attribute (see ``flexsn_hop.dynamo``).
    """

    def __init__(self) -> None:
        base: Any = super()
        if _HOP_BASE_OK:
            base.__init__("flex_sn_scan")
        else:
            base.__init__()

    def __call__(
        self,
        core_fn: CoreFn,
        num_inputs: int,
        num_states: int,
        num_outputs: int,
        *flat_args: torch.Tensor,
        output_template_specs: OutputTemplateSpecs | None = None,
        final_state: bool = False,
        zero_init_states: bool = False,
    ) -> ScanResult:
        if not _HOP_KERNELS_OK:
            return _decompose(
                "eager",
                core_fn,
                num_inputs,
                num_states,
                num_outputs,
                *flat_args,
                output_template_specs=output_template_specs,
                final_state=final_state,
                zero_init_states=zero_init_states,
            )
        # Validate eagerly so bad calls fail before any dispatch machinery,
        # and hand the dispatcher hashable, normalized templates.
        args = prepare_scan_args(
            core_fn,
            num_inputs,
            num_states,
            num_outputs,
            flat_args,
            output_template_specs,
            final_state,
            zero_init_states,
        )
        base: Any = super()
        # ``final_state`` / ``zero_init_states`` are passed only when set, so
        # that the default call (and the graphs recorded from it) keeps SpikingJelly's
        # signature.
        extra: dict[str, Any] = {"final_state": True} if args.contract.final_state else {}
        if args.contract.zero_init_states:
            extra["zero_init_states"] = True
        result: ScanResult = base.__call__(
            core_fn,
            num_inputs,
            num_states,
            num_outputs,
            *flat_args,
            output_template_specs=args.output_template_specs,
            **extra,
        )
        return tuple(result)


flex_sn_scan = FlexSNScan()


def _dispatch_kernel(dispatch: DispatchPath) -> Callable[..., ScanResult]:
    def kernel(*args: Any, **kwargs: Any) -> ScanResult:
        return _decompose(dispatch, *args, **kwargs)

    kernel.__name__ = f"flex_sn_scan_{dispatch}"
    return kernel


def _mode_kernel(dispatch: DispatchPath) -> Callable[..., ScanResult]:
    # The dispatcher pops the mode before calling us; push it back so the
    # loop's aten ops are functionalized / traced / faked by it.
    def kernel(mode: Any, *args: Any, **kwargs: Any) -> ScanResult:
        with mode:
            return _decompose(dispatch, *args, **kwargs)

    kernel.__name__ = f"flex_sn_scan_{dispatch}_mode"
    return kernel


def _register_functorch_kernels(op: FlexSNScan) -> None:
    """torch.func transforms (vmap, grad, jvp, functionalize): the loop runs
    on the transform's wrapped tensors, so each transform sees plain ops."""

    def kernel(interpreter: Any, *args: Any, **kwargs: Any) -> ScanResult:
        return _decompose("functorch", *args, **kwargs)

    try:
        from torch._C._functorch import TransformType

        for name in ("Vmap", "Grad", "Jvp", "Functionalize"):
            transform = getattr(TransformType, name, None)
            if transform is not None:
                op.py_impl(transform)(kernel)
    except Exception as exc:  # private API drift: only torch.func is affected
        warnings.warn(
            f"flexsn_hop: torch.func support for flex_sn_scan unavailable ({exc!r})",
            stacklevel=3,
        )


def _register_kernels(op: FlexSNScan) -> bool:
    if not _HOP_BASE_OK:
        return False
    try:
        from torch._C import DispatchKey
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch._subclasses.functional_tensor import FunctionalTensorMode
        from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode

        keys: Sequence[tuple[Any, DispatchPath]] = (
            (DispatchKey.Autograd, "autograd"),
            (DispatchKey.CompositeExplicitAutograd, "dense"),
            (DispatchKey.Functionalize, "functionalize"),
        )
        modes: Sequence[tuple[type, DispatchPath]] = (
            (FunctionalTensorMode, "functionalize"),
            (ProxyTorchDispatchMode, "proxy"),
            (FakeTensorMode, "fake"),
        )
        for key, path in keys:
            op.py_impl(key)(_dispatch_kernel(path))
        for mode_cls, path in modes:
            op.py_impl(mode_cls)(_mode_kernel(path))
        _register_functorch_kernels(op)
    except Exception as exc:  # private API drift
        warnings.warn(
            f"flexsn_hop: registering flex_sn_scan kernels failed ({exc!r}); "
            "flex_sn_scan falls back to the eager loop",
            stacklevel=2,
        )
        return False
    return True


_HOP_KERNELS_OK = _register_kernels(flex_sn_scan)


def hop_kernels_registered() -> bool:
    """``True`` when ``flex_sn_scan`` is a real HigherOrderOperator with its
    dispatch kernels registered; ``False`` when PyTorch internals drifted and
    it runs as a plain eager function."""
    return _HOP_KERNELS_OK
