"""SpikingJelly's ``StepModule`` methods on :class:`~flexsn_nn.FlexSN`: one call in a given step mode.

SpikingJelly's stateful modules (``base.StepModule``, and through it every neuron and its ``FlexSN``) offer
``single_step_forward(x)`` and ``multi_step_forward(x_seq)`` beside ``forward``, which picks one by
``step_mode``. Code written for SpikingJelly calls them directly (a container that runs its layers over time,
a block that feeds its neuron a sequence whatever the network's mode), so ours has them too: the same call as
``forward`` in that mode, with the same checks, states and activation-checkpointing replay.
"""

from __future__ import annotations

from typing import Any, Protocol, Union, cast

import torch

from .replay import Replayable, replayed

Outputs = Union[torch.Tensor, tuple[torch.Tensor, ...]]
__all__ = ["StepModule"]


class _Steppable(Replayable, Protocol):
    """What the mixin calls on the neuron it is part of (:class:`flexsn_nn.FlexSN`): one checked call in a given
    step mode. A protocol, so that ``module`` imports this module and nothing here imports ``module``."""

    def _run(self, inputs: tuple[Any, ...], mode: str | None = None) -> Outputs: ...


class StepModule:
    """Mixin of :class:`~flexsn_nn.FlexSN`: SpikingJelly's ``StepModule.single_step_forward`` /
    ``multi_step_forward``."""

    def single_step_forward(self, *x: torch.Tensor) -> Outputs:
        """One step, whatever :attr:`step_mode` says: ``num_inputs`` tensors ``[*shape]`` in, the step's outputs
        ``[*shape]`` out (a tensor, or a tuple of several); the states advance one step.

        Raises:
            As ``forward`` in ``step_mode="s"`` (``TypeError`` / ``ValueError`` for bad inputs).
        """
        return _call_in(cast(_Steppable, self), "s", x)

    def multi_step_forward(self, *x_seq: torch.Tensor) -> Outputs:
        """A sequence, whatever :attr:`step_mode` says: ``num_inputs`` sequences ``[T, *shape]`` in, the output
        sequences ``[T, *shape]`` out (a tensor, or a tuple of several), on the module's backend.

        Raises:
            As ``forward`` in ``step_mode="m"`` (``TypeError`` / ``ValueError`` for bad inputs).
        """
        return _call_in(cast(_Steppable, self), "m", x_seq)


def _call_in(neuron: _Steppable, mode: str, inputs: tuple[Any, ...]) -> Outputs:
    """``forward`` in ``mode``: a call inside a backward pass (activation checkpointing) is replayed."""
    return cast(Outputs, replayed(neuron, inputs, lambda i: neuron._run(i, mode)))
