"""Run ``flex_sn_scan`` on the runtime's fused Triton kernels (beyond seed 003).

Seed 003 leaves the compiled scan unrolled into ``T`` copies of the body,
and training on that unrolled path. This module registers a fused
implementation through :func:`flexsn_hop.register_fused_impl`: when the
body (the user's core, or the ``GraphModule`` Dynamo traced from it) lowers
to Triton and the tensors can run the kernels, the operator becomes one
``flexsn::inference`` or ``flexsn::training`` custom-op node (opaque to
Inductor, with the reverse-time backward kernel as its autograd formula)
instead of ``T`` copies of the body. ``flex_sn_scan(..., final_state=True)``
maps to the final-state forms, ``flexsn::inference_final_state`` /
``flexsn::training_final_state``: no state sequence is written, and the
backward kernel is seeded by the final-state gradient (no ``[T, NCL]``
zero gradient for the state sequence). Everything else (lifted tensor
freevars, ``torch.func`` transforms, unsupported ops, dtypes or devices)
declines, and the operator runs the eager loop as before.
``flex_sn_scan(..., zero_init_states=True)`` passes only the input
sequences to the ops, which create the zero states inside.

Set ``FLEXSN_HOP_FUSED=0`` before import to keep the seed behaviour.
"""

from __future__ import annotations

import os
import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import torch

from flexsn_runtime import (
    KERNEL_DTYPES,
    FlexSNKernel,
    kernels_usable,
    run_inference,
    run_training,
    validate_scan_args,
)

from .fused import FusedScanCall, get_fused_impl, register_fused_impl

__all__ = ["enable_fused_kernels", "fused_kernel_for", "fused_kernels_enabled"]

_KERNELS: "weakref.WeakKeyDictionary[Any, dict[tuple[int, int, int], FlexSNKernel | None]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _build_isolated(core_fn: Any, num_inputs: int, num_states: int, num_outputs: int) -> tuple[FlexSNKernel | None, list[warnings.WarningMessage], BaseException | None]:
    """Build the kernel on a fresh thread.

    The hook runs while Dynamo / AOTAutograd trace the enclosing program:
    fake, proxy and functional modes, Dynamo's frame hook and its compile
    metrics are all thread-local state of this thread. Tracing the core
    again (make_fx, aot_function) on a thread of its own sees none of it.
    """
    result: dict[str, Any] = {"kernel": None, "warnings": [], "error": None}

    def work() -> None:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result["kernel"] = FlexSNKernel(core_fn, num_inputs, num_states, num_outputs)
            result["warnings"] = list(caught)
        except BaseException as exc:  # re-raised on the caller's thread
            result["error"] = exc

    worker = threading.Thread(target=work, name="flexsn-hop-build")
    worker.start()
    worker.join()
    return result["kernel"], result["warnings"], result["error"]


def fused_kernel_for(core_fn: Any, num_inputs: int, num_states: int, num_outputs: int) -> FlexSNKernel | None:
    """The cached :class:`FlexSNKernel` for a scan body, or ``None`` when it cannot be lowered.

    Built once per body object (a ``GraphModule`` per compilation); the
    warning for an unsupported op is the kernel's own (it names the op).
    """
    key = (num_inputs, num_states, num_outputs)
    try:
        per_fn = _KERNELS.setdefault(core_fn, {})
    except TypeError:  # not weak-referenceable
        return None
    with _LOCK:
        if key in per_fn:
            return per_fn[key]
    kernel, caught, error = _build_isolated(core_fn, num_inputs, num_states, num_outputs)
    if isinstance(error, Exception):
        # Bad cores fail the same way in the eager loop, with the user's own
        # traceback; internals that drifted must not break the operator.
        warnings.warn(
            f"flex_sn_scan: fused kernels unavailable ({type(error).__name__}: {error}); using the eager loop",
            RuntimeWarning,
            stacklevel=3,
        )
        kernel = None
    elif error is not None:
        raise error
    elif kernel is not None and kernel.handle is None:
        warnings.warn(
            f"flex_sn_scan: {kernel.fallback_reason}; this scan runs on the eager loop", RuntimeWarning, stacklevel=3
        )
        kernel = None
    else:
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    with _LOCK:
        per_fn[key] = kernel
    return kernel


def _fused(call: FusedScanCall) -> Sequence[torch.Tensor] | None:
    if call.lifted_args or call.dispatch == "functorch" or call.T == 0:
        return None
    if not call.zero_init_states and len(call.init_states) != call.num_states:
        return None
    tensors = [*call.input_seqs, *call.init_states]
    try:
        # the kernels' own argument rules: one T, one per-step shape, device and dtype
        validate_scan_args(tensors, call.num_inputs, call.num_states)
    except (TypeError, ValueError):
        return None
    x = tensors[0]
    # cheap checks first: building a kernel traces the body
    if x.dtype not in KERNEL_DTYPES or not kernels_usable(x.device):
        return None
    kernel = fused_kernel_for(call.core_fn, call.num_inputs, call.num_states, call.num_outputs)
    if kernel is None or kernel.handle is None:
        return None
    if call.requires_grad and not kernel.has_training_kernels:
        return None
    # With zero_init_states only the input sequences are passed and the ops
    # create the zero states inside (no zero fill in a traced graph). The ops
    # return the visible results, then (training) the tensors saved for backward.
    n = call.num_outputs + call.num_states
    run = run_training if call.requires_grad else run_inference
    return run(kernel.handle, tensors, call.final_state, tracing=call.tracing)[:n]


def enable_fused_kernels(enabled: bool = True) -> None:
    """Register (or remove) the fused-kernel implementation of ``flex_sn_scan``.

    Compiled graphs keep the path they were traced with: call
    ``torch._dynamo.reset()`` after changing this.
    """
    register_fused_impl(_fused if enabled else None)


def fused_kernels_enabled() -> bool:
    """Whether ``flex_sn_scan`` tries the fused Triton kernels before the eager loop."""
    return get_fused_impl() is _fused


if os.environ.get("FLEXSN_HOP_FUSED", "1") != "0":
    enable_fused_kernels(True)
