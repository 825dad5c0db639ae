"""Per-signature call plans: a call checked and routed once is not checked again.

A host-bound call (a small layer, a short sequence) spends most of its host
time proving what was proved on the previous call: the arity, the shapes,
the dtypes and devices, the route. :class:`CallCache` remembers, per *call
signature*, the fused call (:func:`flexsn_runtime.routing.signature_runner`) of
the route the full checks chose; a later call with the same signature runs
it directly.

The signature (:func:`call_key`) holds everything the checks and the
routing read from a call: per tensor (input sequences, initial states,
static inputs and captured tensors) its shape, dtype, device and
``requires_grad``; the number of each; grad mode; the ``final_state``
variant; on the CPU whether Triton's interpreter is enabled. Calls that
may not use the cache get no key and take the full path: tensor
subclasses (``FakeTensor``, DTensor), calls under ``torch.func`` transforms
(their wrappers are plain ``torch.Tensor`` to Python) or inside a
forward-mode AD ``dual_level`` (a dual tensor is too), calls while
``torch.compile`` traces (Dynamo would bake the lookup into its graph), and
calls while ``torch.jit.trace`` records (a launch is not an aten operation it
could record: the routing sends those calls to the eager loop).
Only fused routes of calls that needed no shape fitting are recorded:
eager fallbacks keep their once-per-reason warning on the full path.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Hashable, Sequence

import torch
from torch.autograd import forward_ad

from flexsn_codegen import interpreter_enabled

__all__ = ["CallCache", "call_key", "dual_level_active", "functorch_active", "interpreted", "jit_tracing", "tensor_signature"]

#: tensor types whose signature is their metadata (no subclass behaviour to check)
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_compiling = torch.compiler.is_compiling
#: whether ``torch.func`` transforms (vmap, grad, jvp, ...) are active: their wrapped tensors look plain to Python
functorch_active: Callable[[], bool] = torch._C._are_functorch_transforms_active
#: whether ``torch.jit.trace`` is recording on this thread (PyTorch's wrapper, which Dynamo folds to ``False``;
#: ``torch._C._is_tracing`` is a graph break to it)
jit_tracing: Callable[[], bool] = torch.jit.is_tracing  # type: ignore[attr-defined]  # public, re-exported implicitly
_grad_enabled = torch.is_grad_enabled


def tensor_signature(tensors: Sequence[object], requires_grad: bool = True) -> tuple[Hashable, ...] | None:
    """Per tensor its shape, dtype, device (and ``requires_grad``); ``None`` for a subclass or a non-tensor.

    Also what the custom ops remember of a checked call (:func:`flexsn_runtime.ops.check_op_args`).
    """
    for t in tensors:
        if type(t) not in _PLAIN:
            return None
    if not requires_grad:
        return tuple([(t.shape, t.dtype, t.device) for t in tensors])  # type: ignore[attr-defined]
    return tuple([(t.shape, t.dtype, t.device, t.requires_grad) for t in tensors])  # type: ignore[attr-defined]


def dual_level_active() -> bool:
    """Whether a ``torch.autograd.forward_ad.dual_level`` is open (its tensors may carry tangents; a module global)."""
    return forward_ad._current_level >= 0


def interpreted(device: torch.device) -> bool:
    """Whether kernels on ``device`` run in Triton's interpreter (part of every signature: the CPU runs them only so)."""
    return device.type != "cuda" and interpreter_enabled()


def call_key(
    seqs: Sequence[object], states: Sequence[object], statics: Sequence[object], final_state: bool
) -> tuple[Hashable, ...] | None:
    """The signature of a call, or ``None`` when the call must take the full path (see the module docstring).

    Args:
        seqs: the input sequences as passed.
        states: the initial states, or ``()`` for zero states made inside the op.
        statics: the static inputs, then the captured tensors' current values.
        final_state: the final-state variant.
    """
    if _compiling() or functorch_active() or dual_level_active() or jit_tracing() or not seqs:
        return None
    if len(seqs) == 1 and not states and not statics:  # the usual neuron call, as the general path keys it, inline
        x = seqs[0]
        if type(x) not in _PLAIN:
            return None
        device = x.device  # type: ignore[attr-defined]
        return (final_state, _grad_enabled(), interpreted(device), ((x.shape, x.dtype, device, x.requires_grad),), (), ())  # type: ignore[attr-defined]
    s_seqs = tensor_signature(seqs)
    # no states (zeros made inside the op) and no statics are the usual call: no loop for them
    s_states = tensor_signature(states) if states else ()
    s_statics = tensor_signature(statics) if statics else ()
    if s_seqs is None or s_states is None or s_statics is None:
        return None
    return (final_state, _grad_enabled(), interpreted(s_seqs[0][2]), s_seqs, s_states, s_statics)  # type: ignore[index]


class CallCache(Dict[Hashable, Callable[..., Any]]):
    """Fused calls by call signature (a dict: lookups are lock-free and atomic under the GIL).

    At most ``size`` are kept; a loop over more signatures starts over
    rather than track recency on every call.
    """

    def __init__(self, size: int = 64) -> None:
        super().__init__()
        self._size = size
        self._lock = threading.Lock()

    def record(self, key: Hashable, run: Callable[..., Any]) -> None:
        """Remember ``run`` as the fused call of signature ``key``."""
        with self._lock:
            if len(self) >= self._size:
                self.clear()
            self[key] = run
