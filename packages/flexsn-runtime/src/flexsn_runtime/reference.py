"""The eager PyTorch time loop: reference semantics and the fallback path."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

__all__ = ["eager_loop"]


def _as_tuple(result: Any, expected: int) -> tuple[torch.Tensor, ...]:
    res = (result,) if isinstance(result, torch.Tensor) else tuple(result)
    if len(res) != expected:
        raise ValueError(f"the core returned {len(res)} values, expected num_outputs + num_states = {expected}")
    for i, r in enumerate(res):
        if not isinstance(r, torch.Tensor):
            raise TypeError(f"the core's return value {i} is {type(r).__name__}, expected a torch.Tensor")
    return res


def eager_loop(
    core: Callable[..., Any],
    num_inputs: int,
    num_states: int,
    num_outputs: int,
    input_seqs: Sequence[torch.Tensor],
    init_states: Sequence[torch.Tensor],
    store_state_seqs: bool = True,
) -> tuple[torch.Tensor, ...]:
    """Run ``core`` over the time axis with a Python loop (autograd-friendly).

    Args:
        core: ``(*inputs, *states) -> (*outputs, *new_states)``.
        num_inputs, num_states, num_outputs: its arity.
        input_seqs: ``num_inputs`` tensors ``[T, *shape]``.
        init_states: ``num_states`` tensors ``[*shape]``.
        store_state_seqs: return state sequences ``[T, *shape]`` (else the
            final states ``[*shape]``).

    Returns:
        ``(*output_seqs, *state_seqs)`` or ``(*output_seqs, *final_states)``.
        For ``T == 0`` outputs are empty ``[0, *shape]`` like the first
        input, state sequences empty, final states the initial states.

    Raises:
        ValueError / TypeError: the core returns the wrong number or kind of values.
    """
    T = input_seqs[0].shape[0]
    states = list(init_states)
    outs: list[list[torch.Tensor]] = [[] for _ in range(num_outputs)]
    seqs: list[list[torch.Tensor]] = [[] for _ in range(num_states)]
    for t in range(T):
        res = _as_tuple(core(*(x[t] for x in input_seqs), *states), num_outputs + num_states)
        states = list(res[num_outputs:])
        for k in range(num_outputs):
            outs[k].append(res[k])
        if store_state_seqs:
            for j in range(num_states):
                seqs[j].append(states[j])
    x0 = input_seqs[0]
    out_seqs = [torch.stack(o) if o else x0.new_empty(x0.shape) for o in outs]
    if store_state_seqs:
        state_out = [torch.stack(s) if s else init_states[j].new_empty((0, *init_states[j].shape)) for j, s in enumerate(seqs)]
    else:
        state_out = states
    return (*out_seqs, *state_out)
