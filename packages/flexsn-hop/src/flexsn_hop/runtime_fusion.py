"""``flex_sn_scan`` on the runtime's fused Triton kernels, through ``flexsn_runtime``'s public API.

Without fusion the compiled scan unrolls into ``T`` copies of the body. Here
the body (the user's core, or the ``GraphModule`` Dynamo traced from it) is
built into a :class:`flexsn_runtime.FlexSNKernel` once, and
:func:`flexsn_runtime.route` decides how each call runs: one
``flexsn::inference`` or ``flexsn::training`` custom-op node (opaque to
Inductor, with the reverse-time backward kernel as its autograd formula;
``final_state=True`` selects the final-state variant of either) or, for what
the kernels cannot take (``torch.func`` transforms, unsupported ops, dtypes
or devices, shapes that do not fit one per-step shape), the operator's eager
loop. Lifted tensors (closure tensors Dynamo lifts, parameters) are the
kernels' static inputs: read in place, their gradients summed over time. ``flex_sn_scan(..., zero_init_states=True)``
passes only the input sequences to the ops, which create the zero states
inside.

:func:`runtime_fused_impl` is the operator's default fused implementation
while :func:`fused_kernels_enabled` (``FLEXSN_HOP_FUSED``, read at call time,
or :func:`enable_fused_kernels`).
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import torch

from flexsn_runtime import FUNCTORCH_REASON, FlexSNKernel, call_reason, fit_shapes, route, run_route, warn_fallback
from flexsn_trace import check_scan_args, run_isolated

from ._types import FusedScanCall

__all__ = ["fused_kernel_for", "runtime_fused_impl"]

_KERNELS: "weakref.WeakKeyDictionary[Any, dict[tuple[int, ...], FlexSNKernel | None]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
#: fallback messages already shown (one warning per reason)
_WARNED: set[str] = set()


def _call_falls_back(reason: str) -> None:
    """Say once why a ``flex_sn_scan`` call runs on the eager loop."""
    warn_fallback(_WARNED, f"flex_sn_scan: {reason}; this call runs on the eager loop", stacklevel=4)


def _build_isolated(
    core_fn: Any, num_inputs: int, num_states: int, num_outputs: int, num_static: int = 0
) -> tuple[FlexSNKernel | None, list[warnings.WarningMessage], BaseException | None]:
    """Build the kernel on a fresh thread (:func:`flexsn_trace.run_isolated`), its warnings collected.

    The hook runs while Dynamo / AOTAutograd trace the enclosing program;
    the build's own trace must not see their modes.
    """
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kernel = run_isolated(
                lambda: FlexSNKernel(core_fn, num_inputs, num_states, num_outputs, num_static=num_static), "flexsn-hop-build"
            )
    except BaseException as exc:  # noqa: BLE001 - sorted by the caller
        return None, [], exc
    return kernel, list(caught), None


def fused_kernel_for(
    core_fn: Any, num_inputs: int, num_states: int, num_outputs: int, num_static: int = 0
) -> FlexSNKernel | None:
    """The cached :class:`FlexSNKernel` for a scan body, or ``None`` when it cannot be lowered.

    ``num_static``: the lifted tensors the body takes after the states (the
    kernels' static inputs).

    Built once per body object (a ``GraphModule`` per compilation); the
    warning for an unsupported op is the kernel's own (it names the op).
    """
    key = (num_inputs, num_states, num_outputs, num_static)
    try:
        per_fn = _KERNELS.setdefault(core_fn, {})
    except TypeError:  # not weak-referenceable
        return None
    with _LOCK:
        if key in per_fn:
            return per_fn[key]
    kernel, caught, error = _build_isolated(core_fn, num_inputs, num_states, num_outputs, num_static)
    if isinstance(error, Exception):
        # Bad cores fail the same way in the eager loop, with the user's own
        # traceback; internals that drifted must not break the operator.
        warn_fallback(_WARNED, f"flex_sn_scan: fused kernels unavailable ({type(error).__name__}: {error}); using the eager loop")
        kernel = None
    elif error is not None:
        raise error
    elif kernel is not None and kernel.handle is None:
        warn_fallback(_WARNED, f"flex_sn_scan: {kernel.fallback_reason}; this scan runs on the eager loop")
        kernel = None
    else:
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    with _LOCK:
        per_fn[key] = kernel
    return kernel


def runtime_fused_impl(call: FusedScanCall) -> Sequence[torch.Tensor] | None:
    """Run one ``flex_sn_scan`` call on the fused kernels, or ``None`` for the eager loop.

    The route is :func:`flexsn_runtime.route`'s; the per-call checks
    (:func:`flexsn_runtime.call_reason`) come first, because building a
    kernel traces the body.
    """
    if call.dispatch == "functorch":  # wrapped tensors: the operator's own loop, told once
        _call_falls_back(FUNCTORCH_REASON)
        return None
    if call.T == 0:
        return None  # templates only: the operator's own loop
    try:
        # the kernels' own argument rules: one T, one per-step shape, device and dtype
        contract = check_scan_args(
            call.num_inputs,
            call.num_states,
            call.num_outputs,
            call.flat_args,
            who="flex_sn_scan",
            states="none" if call.zero_init_states else "required",
            lifted=True,
            uniform=True,
            shapes="broadcast",
            final_state=call.final_state,
        )
    except (TypeError, ValueError):
        return None  # tensors the loop runs and the kernels cannot (the core raises its own error, if any)
    if call_reason(contract._replace(uniform=True)) is not None:  # the shapes are fitted below
        return None
    kernel = fused_kernel_for(call.core_fn, call.num_inputs, call.num_states, call.num_outputs, len(contract.lifted_args))
    if kernel is None:
        return None
    if not call.tracing and not torch.compiler.is_compiling():
        # a number the body reads changed since its kernels were traced (a global threshold): traced again, told
        # once, as FlexSNKernel.run does; a traced graph keeps its kernels (Dynamo guards the numbers it read)
        kernel.settle()
        if kernel.handle is None:
            return None
    contract = kernel.with_captures(contract)  # tensors the body reads from outside (e.g. a GraphModule's buffers)
    contract, reason = fit_shapes(kernel, contract)
    if reason is not None:
        _call_falls_back(reason)
        return None
    r = route(kernel, contract, needs_grad=call.requires_grad)
    if r.path == "eager":
        if r.reason is not None:  # e.g. a dtype whose gradient the trace reads, forward-mode tangents
            _call_falls_back(r.reason)
        return None
    # With zero_init_states only the input sequences are passed and the ops
    # create the zero states inside (no zero fill in a traced graph).
    return run_route(kernel, r, contract, tracing=call.tracing)
