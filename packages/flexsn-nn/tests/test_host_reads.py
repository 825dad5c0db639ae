"""A core that reads a tensor's values on the host (``self.th.tolist()[0]``, ``W.numpy()``) runs the eager loop with a
warning, so a change to the tensor shows in the next result.

``.tolist()``, ``.numpy()`` and ``numpy.asarray`` of a CPU tensor never reach PyTorch's dispatcher, so the trace
recorder did not see them: the kernels kept the values they returned at tracing time, and an in-place change to the
buffer (an optimizer step, ``fill_``, ``load_state_dict``) gave the old numbers without a warning. Each case failed
before (``flexsn_trace.recorder._HostReads``). ``.item()`` was refused already (``test_static_inputs`` covers what
Dynamo makes of it).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from nn_reference import pick_device

W = torch.tensor([1.0, 0.5])


class _BufferCore(torch.nn.Module):
    """Reads its threshold from a buffer as a Python list."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("th", torch.tensor([1.0, 0.5]))

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = (h >= self.th.tolist()[0]).to(x.dtype)
        return s, h * (1.0 - s)


def _numpy_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= float(W.numpy()[0])).to(x.dtype)
    return s, h * (1.0 - s)


def _asarray_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= float(np.asarray(W)[0])).to(x.dtype)
    return s, h * (1.0 - s)


def _case(kind: str) -> tuple[Callable[..., Any], torch.Tensor]:
    """A core and the CPU tensor whose first value it reads as its threshold."""
    if kind == "a buffer's tolist()":
        core = _BufferCore()
        return core, core.th
    return (_numpy_core if kind == "a global's numpy()" else _asarray_core), W


@pytest.mark.parametrize("kind", ["a buffer's tolist()", "a global's numpy()", "numpy.asarray of a global"])
def test_a_host_read_runs_the_eager_loop_and_follows_a_change(kind: str) -> None:
    core, held = _case(kind)
    held[0] = 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    told = [str(w.message) for w in caught]
    assert any("on the host" in t and "eager" in t for t in told), told
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(41)) * 2).to(pick_device())
    try:
        for value in (1.0, 0.3):
            held[0] = value  # in place, as an optimizer step or load_state_dict writes it
            neuron.reset()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = neuron(x)
            want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
            torch.testing.assert_close(got, want, msg=lambda m: f"threshold {value}: {m}")
    finally:
        held[0] = 1.0
