"""Activation checkpointing over stateful neurons: a recomputed call starts where the original did.

``torch.utils.checkpoint.checkpoint`` runs a function's forward a second time, inside the backward
pass, to rebuild the activations it did not keep. A neuron keeps its states between calls, so by
then they have moved on: the recomputed call would start from the states the original call ended in,
and the gradients would come from another trajectory. PyTorch compares the recomputed tensors'
shapes and dtypes, not their values, so nothing would say so (SpikingJelly's memory modules behave
this way). Here every call outside a backward pass notes the states it starts from; a call inside one
(a recomputation) starts from them again and leaves the neuron's states as they were:

* one call since the states were fresh (``reset()``, or a new module) or since the last
  recomputation: it is the call being recomputed, whichever ``use_reentrant`` and however often
  (``retain_graph=True``);
* the checkpointed function calls ``reset()`` itself (inside the backward pass): its calls run as
  they come, the same sequence again from fresh states;
* otherwise (several calls, e.g. ``step_mode="s"`` with one checkpoint per step, whose
  recomputations run in reverse order) nothing tells which call is recomputed:
  :class:`RuntimeError`, naming the remedies.

Under ``torch.compile`` none of this runs: a compiled checkpoint recomputes from the graph's own
inputs, the states the original call read.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import torch

__all__ = ["Replayable", "in_backward", "note_call", "note_reset", "recompute", "replayed"]


class Replayable(Protocol):
    """What this module reads and sets on a neuron (:class:`flexsn_nn.FlexSN`): its states, its stored state
    sequences and the memo of what a recomputation starts from. A protocol, so that ``module`` imports this
    module and nothing here imports ``module``."""

    _states: list[Any]
    _state_seqs: Any
    _replay: tuple[list[Any], int, int] | None

_graph_task_id: Callable[[], int] = torch._C._current_graph_task_id
_compiling = torch.compiler.is_compiling
_set = object.__setattr__  # plain attributes, set on every call: nn.Module.__setattr__'s checks cost microseconds
#: what the neuron's ``_replay`` holds: (states the latest call outside backward started from,
#: calls outside backward since the states were fresh or recomputed, mode)
_NOTED, _RECOMPUTED, _RESET_IN_BACKWARD = 0, 1, 2


def in_backward() -> bool:
    """Whether this thread runs a backward pass (where activation checkpointing recomputes forwards)."""
    return _graph_task_id() != -1


def replayed(neuron: Replayable, inputs: tuple[Any, ...], run: Callable[[tuple[Any, ...]], Any]) -> Any:
    """``run(inputs)``, one call of ``neuron``: noted outside a backward pass, recomputed (:func:`recompute`) inside
    one; under ``torch.compile`` run as it is. Every way of calling a neuron goes through here."""
    if not _compiling() and not note_call(neuron):
        return recompute(neuron, inputs, run)
    return run(inputs)


def note_call(neuron: Replayable) -> bool:
    """Note the states a call starts from; ``False`` (nothing noted) for a call inside a backward pass."""
    if _graph_task_id() != -1:  # in_backward(), inline: every call of every neuron passes here
        return False
    states, memo = neuron._states, neuron._replay
    _set(neuron, "_replay", (states, 1 if memo is None or memo[2] or not states else memo[1] + 1, _NOTED))
    return True


def note_reset(neuron: Replayable) -> None:
    """A ``reset()`` inside a backward pass (:func:`in_backward`): the checkpointed function resets the neuron, so its
    calls run as they come."""
    memo = neuron._replay
    if memo is not None:
        _set(neuron, "_replay", (memo[0], memo[1], _RESET_IN_BACKWARD))


def recompute(neuron: Replayable, inputs: tuple[Any, ...], run: Callable[[tuple[Any, ...]], Any]) -> Any:
    """Run ``run(inputs)``, a call inside a backward pass, from the states the recomputed call started from.

    Raises:
        RuntimeError: the neuron was called more than once since its states were fresh, so the
            call being recomputed is unknown.
    """
    memo = neuron._replay
    if memo is None or memo[2] == _RESET_IN_BACKWARD:
        return run(inputs)
    before, count, _ = memo
    if count != 1:
        raise RuntimeError(
            f"{type(neuron).__name__}: called inside a backward pass (activation checkpointing recomputes the "
            f"forward) after {count} calls since its states were last fresh, so which call is being recomputed "
            "is unknown, and recomputing from the current states would give wrong gradients. Checkpoint one "
            "multi-step call per neuron between reset()s, or call reset() at the start of the checkpointed "
            "function (functional.reset_net), or run the neuron outside the checkpoint"
        )
    states, seqs = neuron._states, neuron._state_seqs
    _set(neuron, "_states", before)
    try:
        return run(inputs)
    finally:  # the backward pass leaves the neuron's states as the forward left them
        _set(neuron, "_states", states)
        _set(neuron, "_state_seqs", seqs)
        _set(neuron, "_replay", (before, count, _RECOMPUTED))
