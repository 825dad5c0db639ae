"""A core that changes state outside its arguments (counts its steps, records a value) is told at construction,
once: the eager loop makes the change at every step, fused kernels only while they are traced, so what the user
reads afterwards differs from the loop's. Before, nothing was said (``flexsn_trace.side_effects``)."""

from __future__ import annotations

import warnings

import torch

from flexsn_nn import FlexSN
from nn_reference import pick_device

RECORD: list[torch.Tensor] = []


class _Counter:
    steps = 0


def recording_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= 1.0).to(x.dtype)
    RECORD.append(h)
    _Counter.steps += 1
    return s, h * (1.0 - s)


def test_a_core_changing_state_outside_its_arguments_is_told_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(recording_core, 1, 1, 1, step_mode="m", backend="triton")
        told = [str(w.message) for w in caught if "changes state outside its arguments" in str(w.message)]
        assert len(told) == 1, told
        assert "RECORD.append(h) in recording_core" in told[0] and "_Counter.steps += 1" in told[0], told
        x = torch.rand(6, 3, 8, device=pick_device()) * 2
        RECORD.clear()
        _Counter.steps = 0
        neuron(x)
        neuron.reset()
        neuron(x)
    # what the warning says: the fused calls did not record the steps the eager loop records
    assert len(RECORD) == 0 and _Counter.steps == 0
    assert not [w for w in caught[len(told):] if "changes state outside" in str(w.message)], "told more than once"


def test_the_eager_backend_says_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FlexSN(recording_core, 1, 1, 1, step_mode="m", backend="torch")
