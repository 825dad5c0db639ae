"""Type aliases shared by the ``flexsn_hop`` modules (seed 003)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

import torch

__all__ = ["CoreFn", "OutputTemplateSpec", "OutputTemplateSpecs", "ScanResult"]

#: One step of a neuron: ``core(*step_inputs, *states, *lifted) ->
#: (*step_outputs, *next_states)``; a lone tensor counts as a 1-tuple.
CoreFn = Callable[..., Union[torch.Tensor, Sequence[torch.Tensor]]]

#: ``(shape, dtype)`` or ``(shape, dtype, device)`` of ONE step output, i.e.
#: ``shape`` has no time dimension. Used only when ``T == 0``.
OutputTemplateSpec = Union[
    tuple[tuple[int, ...], torch.dtype],
    tuple[tuple[int, ...], torch.dtype, torch.device],
]

#: One :data:`OutputTemplateSpec` per step output, in output order.
OutputTemplateSpecs = tuple[OutputTemplateSpec, ...]

#: What every scan returns: a flat tuple of tensors.
ScanResult = tuple[torch.Tensor, ...]
