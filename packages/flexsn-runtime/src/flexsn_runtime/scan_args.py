"""The argument check of a kernel call, for callers that take ``(*input_seqs, *init_states)`` themselves."""

from __future__ import annotations

from typing import Any, Sequence

import torch

from flexsn_trace import check_scan_args

__all__ = ["validate_scan_args"]


def validate_scan_args(
    args: Sequence[Any], num_inputs: int, num_states: int, allow_missing_states: bool = True
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """Check ``(*input_seqs, *init_states)`` as the kernels need them (:func:`flexsn_trace.check_scan_args`).

    Returns:
        ``(input_seqs, init_states_or_None)``.

    Raises:
        TypeError / ValueError: as :func:`flexsn_trace.check_scan_args` with
        ``uniform=True``.
    """
    c = check_scan_args(
        num_inputs, num_states, 0, args, who="FlexSNKernel", states="optional" if allow_missing_states else "required", uniform=True
    )
    return list(c.input_seqs), (list(c.init_states) if c.init_states or not num_states else None)
