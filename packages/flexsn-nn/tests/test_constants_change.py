"""``FlexSN`` follows a number its core reads from outside (a global threshold) when it changes, on every backend."""

from __future__ import annotations

import warnings

import pytest
import torch

from flexsn_nn import FlexSN

V_TH = 1.0


def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= V_TH).to(x.dtype)
    return s, v * (1.0 - s)


@pytest.mark.parametrize("backend", ["triton", "inductor", "hop"])
def test_a_changed_global_threshold_is_followed(backend: str) -> None:
    global V_TH
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(0)) * 3
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend=backend)
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    try:
        for value in (1.0, 0.2):
            V_TH = value
            neuron.reset()
            reference.reset()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the retrace says so once; test_constants_retrace checks that
                out = neuron(x)
            torch.testing.assert_close(out, reference(x))
    finally:
        V_TH = 1.0
