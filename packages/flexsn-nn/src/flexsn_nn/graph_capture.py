"""A call captured into a CUDA graph from states that a call outside the capture left: said once.

A CUDA graph replays the kernels it captured on the memory they used at capture
(PyTorch's ``torch.cuda.graph`` and ``torch.cuda.make_graphed_callables``; "CUDA Graphs"
in PyTorch's CUDA semantics notes). A neuron keeps its states in Python
(:attr:`flexsn_nn.FlexSN.states`), and a replay runs no Python. Suppose a call is
captured while the neuron still holds the states that an uncaptured call (a warm-up)
left. Then every replay reads the membrane from that state tensor's memory, and
``reset()`` or later calls cannot change it. The replays start from a stale membrane
and nothing fails. This holds on every backend, the eager loop included, and for
SpikingJelly's neurons alike. PyTorch's recipe warms up with the very calls it then
captures, so a warm-up loop without ``reset()`` leads straight to it (on an H200, each
replay's spikes differed from a fresh start in every backend;
``tools/results/gpu-2026-11-27-graphs/``).

:func:`note_capture` runs after each call of a :class:`~flexsn_nn.FlexSN`, once its
kernels are launched, so a call's time until its launch does not include it. It warns
once per neuron class when a call was captured from such states. States set by the user
(``node.v = t``, :attr:`~flexsn_nn.FlexSN.states`) are the user's memory to update
between replays, and states made inside the capture are the graph's own; neither is
told. Under ``torch.compile`` nothing is checked: ``mode="reduce-overhead"`` copies
the states into its graph like any other input. What an uncaptured call left is kept as a
weak reference to its first state tensor, so ``reset()`` still frees the states;
``detach()`` keeps that memory, so its states stay told (:func:`note_detach`).
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any, Callable, Protocol, Sequence

import torch

__all__ = ["CAPTURE_WARNING", "Capturable", "note_capture", "note_detach"]


class Capturable(Protocol):
    """What this module reads of a neuron (:class:`flexsn_nn.FlexSN`): its states (it keeps its own note in the
    neuron's ``__dict__``). A protocol, so that ``module`` imports this module and nothing here imports ``module``."""

    _states: list[Any]

#: whether the current CUDA stream is capturing (a CPU-only build has no CUDA stream to capture)
_capturing: Callable[[], bool] = getattr(torch._C, "_cuda_isCurrentStreamCapturing", None) or (lambda: False)
_compiling = torch.compiler.is_compiling
#: the messages told so far (one per neuron class, process-wide)
_told: set[str] = set()

CAPTURE_WARNING = (
    "{name}: a CUDA graph captured this call starting from states that an earlier, uncaptured call left "
    "(a warm-up without reset()). Every replay reads those states from their capture-time memory, whatever "
    "reset() or later calls do, so the replays do not start from a reset neuron. Call reset() "
    "(flexsn_nn.functional.reset_net) before capturing, or inside the captured function."
)


def note_capture(neuron: Capturable, started: Sequence[object], outputs: Sequence[torch.Tensor]) -> None:
    """After a call of ``neuron``: warn if the call was captured from states an uncaptured call left.

    Args:
        neuron: the neuron just called. Its ``_states`` already hold the states this call left.
        started: the ``_states`` list the call started from (the states the previous call
            left, unless the user set states or called ``reset()`` since).
        outputs: the call's outputs (their device tells a CUDA call; a neuron
            without outputs is told by its states).

    Warns:
        RuntimeWarning: :data:`CAPTURE_WARNING`, once per neuron class.
    """
    if _compiling():
        return
    ref = outputs[0] if outputs else _first_tensor(neuron._states)
    if ref is None or not ref.is_cuda:
        return
    if not _capturing():
        _remember(neuron, neuron._states)
        return
    was_left = _left_uncaptured(neuron, started)
    object.__setattr__(neuron, "_left_uncaptured", None)
    if was_left:
        message = CAPTURE_WARNING.format(name=type(neuron).__name__)
        if message not in _told:
            _told.add(message)
            warnings.warn(message, RuntimeWarning, stacklevel=4)


def note_detach(neuron: Capturable, before: Sequence[object], after: Sequence[object]) -> None:
    """After :meth:`~flexsn_nn.FlexSN.detach` replaced the states ``before`` by ``after``: keep what is told.

    ``detach()`` (and :func:`flexsn_nn.functional.detach_net`) makes new state tensors on the
    same memory, so a capture from them reads what the uncaptured call left, as before the detach.
    """
    if _left_uncaptured(neuron, before):
        _remember(neuron, after)


def _remember(neuron: Capturable, states: Sequence[object]) -> None:
    """Record ``states`` as what an uncaptured call left: by identity (a tensor set by the user is another object), weakly."""
    first = _first_tensor(states)
    object.__setattr__(neuron, "_left_uncaptured", None if first is None else weakref.ref(first))


def _left_uncaptured(neuron: Capturable, states: Sequence[object]) -> bool:
    """Whether ``states`` are the ones :func:`_remember` recorded for ``neuron``."""
    left = neuron.__dict__.get("_left_uncaptured")
    first = _first_tensor(states)
    return left is not None and first is not None and left() is first


def _first_tensor(states: Sequence[object]) -> torch.Tensor | None:
    """The first tensor among ``states`` (a state may also be a float to fill, or ``None``)."""
    for s in states:
        if isinstance(s, torch.Tensor):
            return s
    return None
