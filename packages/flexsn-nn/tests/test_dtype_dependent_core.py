"""A core whose step depends on the sequences' dtype is not run with kernels traced at another dtype.

The kernels are traced once (float32 examples) and run every storage dtype with float32 arithmetic. A core that
reads the dtype (``if x.dtype == torch.bfloat16``, ``torch.finfo(x.dtype).eps``) would have the float32 branch or
constant baked in: before, a bfloat16 call silently returned the float32 step's result (off by 0.6 here). Now
the first call of each other dtype traces the core again there; if the step differs beyond conversions, calls of
that dtype run the eager loop, saying why once, and the result equals the loop's. A core that only converts
(``.to(x.dtype)``, ``.float()``) keeps the kernels at every dtype.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import loop_output, pick_device


def branch_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - (0.3 if x.dtype == torch.bfloat16 else 1.0)))
    return s, h * (1.0 - s)


def eps_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - 1.0) / (0.5 + 64.0 * torch.finfo(x.dtype).eps))
    return s, h * (1.0 - s)


def converting_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x.float() - v.float()) / 2.0
    s = (h >= 1.0).to(x.dtype)
    return s, (h * (1.0 - s.float())).to(v.dtype)


def _calls(
    core: Callable[..., Any], dtype: torch.dtype, compiled: bool = False
) -> tuple[FlexSN, torch.Tensor, torch.Tensor, list[str]]:
    """A neuron called once at float32, then twice at ``dtype`` (compiled: through ``torch.compile(fullgraph=True)``):
    (neuron, the ``dtype`` input, its output, warnings)."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(41)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    torch._dynamo.reset()
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    try:
        torch.testing.assert_close(run(x), loop_output(core, x))
        xd = x.to(dtype)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            neuron.reset()
            run(xd)
            neuron.reset()
            out = run(xd)
    finally:
        torch._dynamo.reset()
    return neuron, xd, out, [str(w.message) for w in caught]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize(("core", "dtype"), [(branch_core, torch.bfloat16), (eps_core, torch.float16), (eps_core, torch.bfloat16)])
def test_a_core_reading_the_dtype_runs_the_loop_at_another_dtype_and_says_why(
    core: Callable[..., Any], dtype: torch.dtype, compiled: bool
) -> None:
    neuron, xd, out, messages = _calls(core, dtype, compiled)
    told = [m for m in messages if "computes a different step for" in m]
    assert len(told) == 1 and str(dtype) in told[0] and "torch.float32" in told[0], messages
    torch.testing.assert_close(out, loop_output(core, xd))
    assert not neuron.uses_kernels(xd) and neuron.uses_kernels(xd.float())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_core_that_only_converts_keeps_the_kernels(dtype: torch.dtype) -> None:
    neuron, xd, out, messages = _calls(converting_core, dtype)
    assert neuron.uses_kernels(xd) and not [m for m in messages if "different step" in m], messages
    # float32 arithmetic, stored in the sequences' dtype: within one rounding of the dtype's own loop
    torch.testing.assert_close(out.float(), loop_output(converting_core, xd.float()).to(dtype).float())
