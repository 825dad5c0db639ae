"""Which results of a scan require grad, as the eager time loop decides it.

In PyTorch a result requires grad when some argument that requires grad
reaches it through differentiable ops (autograd's ``requires_grad``
propagation: an op's output requires grad when any differentiable input
does; a comparison, ``detach`` or ``mark_non_differentiable`` cuts the path).
A fused scan is one autograd node over the whole loop, and an
``autograd.Function`` marks all its outputs as requiring grad when any input
does, so a spike counter ``n + (h >= 1).float()`` started from zeros would
require grad (with zero gradients) where the loop's does not. This module
works out the loop's answer for one call:

* :func:`reached_arguments`: per result of one step, the step arguments that
  reach it, read off the autograd graph of a step run with every argument
  requiring grad (exactly the edges autograd records);
* :func:`scan_requires_grad`: per call, which output sequences, final states
  and state sequences require grad after ``T`` steps, given which input
  sequences, initial states and static inputs require grad.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import torch

__all__ = ["ScanGrad", "reached_arguments", "scan_requires_grad"]

#: per result of a step, the (sorted) indices of the step arguments that reach it
Reaches = tuple[tuple[int, ...], ...]


def reached_arguments(results: Sequence[torch.Tensor], arguments: Sequence[torch.Tensor]) -> Reaches:
    """Per result, the arguments whose ``requires_grad`` it follows, from the autograd graph that made it.

    Args:
        results: a step's results (any shapes and dtypes), computed with gradients enabled from ``arguments``.
        arguments: the step's arguments, leaves (those that require grad are followed).

    Returns:
        Per result, the sorted indices of the arguments from which a path of
        autograd edges leads to it (empty for a result that requires no grad).
    """
    index = {id(a): k for k, a in enumerate(arguments) if a.requires_grad}
    memo: dict[object, frozenset[int]] = {}

    def leaves_of(root: object) -> frozenset[int]:
        # iterative post-order walk: a long step (an unrolled inner loop) must not hit the recursion limit
        stack: list[tuple[object, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in memo:
                continue
            nexts = [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
            if not expanded:
                stack.append((node, True))
                stack.extend((n, False) for n in nexts if n not in memo)
                continue
            found: set[int] = set()
            variable = getattr(node, "variable", None)  # an AccumulateGrad: the leaf itself
            if isinstance(variable, torch.Tensor) and id(variable) in index:
                found.add(index[id(variable)])
            for n in nexts:
                found |= memo[n]
            memo[node] = frozenset(found)
        return memo[root]

    reaches: list[tuple[int, ...]] = []
    for r in results:
        if not r.requires_grad:
            reaches.append(())
        elif r.grad_fn is None:  # the argument itself, returned
            reaches.append((index[id(r)],) if id(r) in index else ())
        else:
            reaches.append(tuple(sorted(leaves_of(r.grad_fn))))
    return tuple(reaches)


class ScanGrad(NamedTuple):
    """Per output sequence, final state and state sequence of one scan call, whether it requires grad."""

    outputs: tuple[bool, ...]
    final_states: tuple[bool, ...]
    state_seqs: tuple[bool, ...]


def scan_requires_grad(
    reaches: Reaches, num_inputs: int, num_states: int, num_outputs: int,
    arguments: Sequence[bool], steps: int | None,
) -> ScanGrad:
    """Which results of a ``steps``-step scan require grad, as in the eager loop.

    The step's arguments are ``[*inputs, *states, *static_inputs]``; its
    results ``[*outputs, *new_states]`` (the order of ``reaches``). An output
    sequence (the loop stacks its steps) requires grad when its result does at
    some step, a final state when the state does after the last step (the
    initial state's flag at ``steps == 0``), a state sequence when the state
    does after some step.

    Args:
        reaches: :func:`reached_arguments` of one step.
        num_inputs, num_states, num_outputs: the core's arity.
        arguments: per step argument, whether it requires grad (an input
            sequence's flag at every step, an initial state's at the first).
        steps: ``T``; ``None`` when it is not known (a symbolic size): then
            every step count the pattern of flags can reach counts, so a
            result that requires grad for some ``T`` is taken to.

    Returns:
        :class:`ScanGrad`.

    Raises:
        ValueError: ``reaches`` or ``arguments`` do not fit the arity.
    """
    if len(reaches) != num_outputs + num_states:
        raise ValueError(f"reaches has {len(reaches)} entries, expected {num_outputs + num_states} (outputs then states)")
    if len(arguments) < num_inputs + num_states:
        raise ValueError(f"arguments has {len(arguments)} flags, expected at least {num_inputs + num_states}")
    flags = [bool(a) for a in arguments]
    state = tuple(flags[num_inputs : num_inputs + num_states])
    outputs, ever = [False] * num_outputs, [False] * num_states
    seen: set[tuple[bool, ...]] = set()
    finals: set[tuple[bool, ...]] = set()
    t = 0
    # The flags of the states after a step are a function of those before: the walk repeats after at most
    # 2 ** num_states steps, and a repeated pattern adds nothing to the "some step" answers.
    while (steps is None or t < steps) and state not in seen:
        seen.add(state)
        flags[num_inputs : num_inputs + num_states] = state
        new = tuple(any(flags[a] for a in r) for r in reaches)
        for k in range(num_outputs):
            outputs[k] = outputs[k] or new[k]
        state = new[num_outputs:]
        for j in range(num_states):
            ever[j] = ever[j] or state[j]
        finals.add(state)
        t += 1
    if steps is not None and t < steps:  # in a cycle: step on along it to the last step
        order = [state]
        nxt = state
        while True:
            flags[num_inputs : num_inputs + num_states] = nxt
            nxt = tuple(any(flags[a] for a in r) for r in reaches[num_outputs:])
            if nxt == state:
                break
            order.append(nxt)
        state = order[(steps - t) % len(order)]
    final = state if steps is not None else tuple(any(s[j] for s in finals | {state}) for j in range(num_states))
    return ScanGrad(tuple(outputs), tuple(final), tuple(ever))
