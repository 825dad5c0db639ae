"""The eager time loop in the positional form the backends call, and the dtype its results are stored in."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from flexsn_trace import ScanContract, reference_scan

__all__ = ["eager_loop", "stored_in"]


def eager_loop(
    core: Callable[..., Any],
    num_inputs: int,
    num_states: int,
    num_outputs: int,
    input_seqs: Sequence[torch.Tensor],
    init_states: Sequence[torch.Tensor],
    store_state_seqs: bool = True,
    static_inputs: Sequence[torch.Tensor] = (),
) -> tuple[torch.Tensor, ...]:
    """The reference time loop (:func:`flexsn_trace.reference_scan`) in the positional form of ``FlexSN``'s torch backend.

    ``input_seqs`` are ``num_inputs`` sequences ``[T, *shape]``, ``init_states`` ``num_states`` states ``[*shape]``
    (any floating dtype), and ``static_inputs`` are passed to the core after the states at every step.
    Returns ``(*output_seqs, *state_seqs)``, or ``(*output_seqs,
    *final_states)`` when ``store_state_seqs`` is false. Raises as
    :func:`flexsn_trace.reference_scan`. Floating results come in the input
    sequences' dtype, as from the kernels (:func:`stored_in`).
    """
    contract = ScanContract(
        num_inputs, num_states, num_outputs, tuple(input_seqs), tuple(init_states), tuple(static_inputs), not store_state_seqs
    )
    return stored_in(reference_scan(core, contract), contract.input_seqs[0].dtype)


def stored_in(results: tuple[torch.Tensor, ...], dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """``results`` with each floating-point tensor in ``dtype``: the time loop's results stored as the kernels store theirs.

    A step of bfloat16 inputs and a float32 parameter returns float32 by PyTorch's type promotion; the kernels
    store floating outputs and states in the input sequences' dtype (``flexsn_runtime.builders.output_dtypes``),
    so the loop's results are cast likewise (differentiably, after the loop: it computes in the promoted
    dtype). A backend switch or a fallback then leaves a network's dtypes as they were. Bool and integer
    results (a spike returned as ``x >= 1``) keep theirs.
    """
    if not any(r.is_floating_point() and r.dtype != dtype for r in results):
        return results
    return tuple(r.to(dtype) if r.is_floating_point() else r for r in results)
