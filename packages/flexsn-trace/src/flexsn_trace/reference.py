"""The reference semantics of a scan: the Python time loop over a checked call.

:func:`reference_scan` runs a core step by step over a
:class:`~flexsn_trace.ScanContract`, differentiable (autograd records BPTT
through it). It is the eager fallback, the ``torch`` backend, ``eager_scan``
and every test's reference; the semantics are those of SpikingJelly's
``FlexSN`` multi-step mode (``spikingjelly.activation_based``), ``T == 0``
included. Its own module because it needs both the contract and the fake
step (:mod:`flexsn_trace.abstract`, which itself uses the contract).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from .abstract import empty_sequences, fake_step_outputs
from .contract import ScanContract, as_tensor_tuple

__all__ = ["reference_scan"]


def _empty_steps(
    core: Callable[..., Any], contract: ScanContract, states: tuple[torch.Tensor, ...], what: str
) -> tuple[torch.Tensor, ...]:
    """``T == 0`` outputs as a call with steps shapes them (a fake step), in input 0's autograd graph (zero gradients)."""
    c, x0 = contract, contract.input_seqs[0]
    if c.num_outputs == 0:
        return ()
    try:
        found = fake_step_outputs(core, c.input_seqs, states, c.lifted_args, c.num_outputs, c.num_states, what)
    except ValueError:  # a core that cannot run on fake tensors: SpikingJelly's rule, shaped like input 0
        return tuple(x0 * 0 for _ in range(c.num_outputs))
    return empty_sequences(x0, found)


def reference_scan(
    core: Callable[..., Any],
    contract: ScanContract,
    empty_outputs: Sequence[torch.Tensor] | None = None,
    what: str = "the core",
) -> tuple[torch.Tensor, ...]:
    """Run the scan as a Python time loop: the reference semantics (differentiable: BPTT).

    Args:
        core: the step function, called as
            ``core(*(x[t] for x in input_seqs), *states, *lifted_args)``.
        contract: the call (:func:`check_scan_args`).
        empty_outputs: the ``num_outputs`` empty output sequences to return
            when ``T == 0`` (default: shaped as a step's results, found by one
            step on fake tensors, :func:`flexsn_trace.fake_step_outputs`; if
            the core cannot run so, shaped like input 0).
        what: how to name ``core`` in messages.

    Returns:
        ``(*output_seqs, *state_seqs)``, or with ``contract.final_state``
        ``(*output_seqs, *final_states)``. When ``T == 0`` the core does not
        run: empty outputs, empty state sequences ``[0, *state.shape]``, and
        final states that are clones of the initial states.

    Raises:
        TypeError / ValueError: the core returns the wrong kind or number of
        values (:func:`as_tensor_tuple`).
    """
    no, ns = contract.num_outputs, contract.num_states
    states = contract.states0()
    if contract.T == 0:
        outs = tuple(empty_outputs) if empty_outputs is not None else _empty_steps(core, contract, states, what)
        if contract.final_state:
            return (*outs, *(s if contract.zero_init_states else s.clone() for s in states))
        return (*outs, *(s.new_empty((0, *s.shape)) for s in states))
    out_steps: list[list[torch.Tensor]] = [[] for _ in range(no)]
    state_steps: list[list[torch.Tensor]] = [[] for _ in range(ns)]
    for t in range(contract.T):
        res = as_tensor_tuple(core(*(x[t] for x in contract.input_seqs), *states, *contract.lifted_args), what, no + ns, TypeError)
        states = res[no:]
        for buf, y in zip(out_steps, res[:no]):
            buf.append(y)
        if not contract.final_state:
            for buf, s in zip(state_steps, states):
                buf.append(s)
    outs = tuple(torch.stack(buf) for buf in out_steps)
    if contract.final_state:
        return (*outs, *states)
    return (*outs, *(torch.stack(buf) for buf in state_steps))
