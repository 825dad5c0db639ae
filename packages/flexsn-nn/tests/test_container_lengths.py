"""A tensor added to a list or dict a core reads is followed: the kernels are traced again and the new tensor lifted.

``WEIGHTS[-1]`` after ``WEIGHTS.append(w)`` and ``sum(GAINS.values())`` after a new key are reads whose result
depends on the container's length. Before, the lengths of containers of tensors were not watched: the kernels
kept the tensor they lifted first and gave the old result with no warning. Now the length is a watched constant
(``len(global WEIGHTS)``); the call traces again with one warning, and outputs and the gradients of the input and
of every tensor (the new one included) equal autograd through the eager loop. Eagerly and under
``torch.compile(fullgraph=True)``, where Dynamo guards the length.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import loop_loss_and_grad, loop_output, loss_and_grad, pick_device

WEIGHTS: list[torch.Tensor] = []
GAINS: dict[str, torch.Tensor] = {}


def last_weight_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - WEIGHTS[-1]))
    return s, h * (1.0 - s)


def gains_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - sum(GAINS.values())))
    return s, h * (1.0 - s)


def _param(value: float) -> torch.Tensor:
    return torch.tensor(value, device=pick_device(), requires_grad=True)


def _case(kind: str) -> tuple[Callable[..., Any], Callable[[], list[torch.Tensor]], Callable[[], None], str]:
    """The core, the tensors it reads now (their gradients are compared), the change, and the place the warning names."""
    if kind == "list":
        WEIGHTS[:] = [_param(1.0)]
        return last_weight_core, lambda: [WEIGHTS[-1]], lambda: WEIGHTS.append(_param(0.3)), "len(global WEIGHTS) (1 -> 2)"
    GAINS.clear()
    GAINS["a"] = _param(1.0)
    return gains_core, lambda: list(GAINS.values()), lambda: GAINS.__setitem__("b", _param(-0.6)), "len(global GAINS) (1 -> 2)"


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_a_tensor_added_to_a_container_the_core_reads_is_followed(kind: str, compiled: bool) -> None:
    core, tensors, change, told = _case(kind)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(31)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    torch._dynamo.reset()
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    try:
        for got, want in zip(loss_and_grad(run, x, tensors()), loop_loss_and_grad(core, x, tensors())):
            torch.testing.assert_close(got, want)
        before = loop_output(core, x).detach()
        change()
        neuron.reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got_after = loss_and_grad(run, x, tensors())
        want_after = loop_loss_and_grad(core, x, tensors())
        assert not torch.allclose(want_after[0], before)  # the change matters: a stale result fails below
        for got, want in zip(got_after, want_after):
            torch.testing.assert_close(got, want)
        assert any(f"{told} changed since the kernels were traced" in str(w.message) for w in caught)
    finally:
        WEIGHTS.clear()
        GAINS.clear()
        torch._dynamo.reset()
