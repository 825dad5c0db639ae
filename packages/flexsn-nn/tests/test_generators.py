"""Building a neuron draws nothing from the caller's random generators (``flexsn_trace.private_generators``).

A trace runs the core on example tensors, and so do the count probe of SpikingJelly 2.0's form and the step that
tells whether a core changes what it reads. A core that draws (noise, dropout-like masks) moved the CPU generator,
so a network built after the neuron got other initial weights with ``backend="triton"`` than with
``backend="torch"`` from the same seed. Before, the layer after such a neuron differed.
"""

from __future__ import annotations

import warnings
from typing import Callable

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN

NOISE = 0.1


def noisy(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0 + NOISE * torch.rand_like(x)  # a draw, and a watched number
    s = (h >= 1.0).to(x.dtype)
    return s, h * (1.0 - s)


def _net(make: Callable[[], nn.Module]) -> nn.Sequential:
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the draw makes the kernel backends fall back, which they say
        return nn.Sequential(nn.Linear(4, 4), make(), nn.Linear(4, 4))


FORMS = {
    "triton": lambda: FlexSN(noisy, 1, 1, 1, step_mode="m", backend="triton"),
    "inductor": lambda: FlexSN(noisy, 1, 1, 1, step_mode="m", backend="inductor"),
    "hop": lambda: FlexSN(noisy, 1, 1, 1, step_mode="m", backend="hop"),
    "single step": lambda: FlexSN(noisy, 1, 1, 1, step_mode="s", backend="triton"),
    "SpikingJelly 2.0's counts": lambda: FlexSN(noisy, num_states=1, step_mode="m", backend="triton"),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_the_layers_after_a_neuron_get_the_weights_the_eager_backend_gives(form: str) -> None:
    expected = _net(lambda: FlexSN(noisy, 1, 1, 1, step_mode="m", backend="torch"))
    got = _net(FORMS[form])
    for (name, a), (_, b) in zip(expected.named_parameters(), got.named_parameters()):
        torch.testing.assert_close(b, a, rtol=0, atol=0, msg=lambda m: f"{name}: {m}")

