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
from nn_reference import loop_loss_and_grad, loop_output, loss_and_grad, pick_device


def branch_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - (0.3 if x.dtype == torch.bfloat16 else 1.0)))
    return s, h * (1.0 - s)


def eps_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - 1.0) / (0.5 + 64.0 * torch.finfo(x.dtype).eps))
    return s, h * (1.0 - s)


def overflow_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # exp(12 h) overflows float16 where h > 0.925: nan_to_num's default posinf is the dtype's largest value,
    # 65504 in a float16 step; the kernels' float32 step gives a finite value that the float16 store makes inf
    h = v + (x - v) / 2.0
    return torch.nan_to_num(torch.exp(12.0 * h)), h * 0.5


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
@pytest.mark.parametrize(
    ("core", "dtype"),
    [(branch_core, torch.bfloat16), (eps_core, torch.float16), (eps_core, torch.bfloat16), (overflow_core, torch.float16)],
)
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


class _DtypeSurrogate(torch.autograd.Function):
    """Heaviside forward; a sigmoid surrogate whose slope depends on the gradient's dtype (backward alone reads it)."""

    @staticmethod
    def forward(ctx: Any, h: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(h)
        return (h >= 0).to(h.dtype)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors
        alpha = 8.0 if g.dtype in (torch.bfloat16, torch.float16) else 2.0
        sig = torch.sigmoid(alpha * h)
        return g * alpha * sig * (1.0 - sig)


def backward_reading_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = _DtypeSurrogate.apply(h - 1.0)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_gradient_reading_the_dtype_trains_on_the_loop_at_another_dtype_and_says_why(dtype: torch.dtype, compiled: bool) -> None:
    """Before, the float32 trace's backward (slope 2) ran for 16-bit sequences, whose loop uses slope 8: dL/dx was off
    by up to 0.8 with no warning. Inference keeps the kernels: the forward is the same at every dtype."""
    core = backward_reading_core
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(43)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    torch._dynamo.reset()
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    try:
        for got, want in zip(loss_and_grad(run, x), loop_loss_and_grad(core, x)):  # the build's dtype runs fused
            torch.testing.assert_close(got, want)
        xd = x.to(dtype)
        assert neuron.uses_kernels(xd)
        with torch.no_grad():  # an inference call of that dtype is not told anything
            with warnings.catch_warnings(record=True) as quiet:
                warnings.simplefilter("always")
                neuron.reset()
                torch.testing.assert_close(run(xd), loop_output(core, xd))
        assert not [w for w in quiet if "different" in str(w.message)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            neuron.reset()
            loss_and_grad(run, xd)
            neuron.reset()
            got = loss_and_grad(run, xd)
    finally:
        torch._dynamo.reset()
    told = [str(w.message) for w in caught if "computes a different gradient for" in str(w.message)]
    assert len(told) == 1 and str(dtype) in told[0] and "backward" in told[0], [str(w.message) for w in caught]
    for g, want in zip(got, loop_loss_and_grad(core, xd)):
        torch.testing.assert_close(g, want)


NEURONS = ["IFNode", "LIFNode", "ParametricLIFNode", "LearnableThresholdLIFNode", "AdaptiveLIFNode", "CUBALIFNode", "QIFNode", "EIFNode", "IzhikevichNode"]
SURROGATES = ["Sigmoid", "ATan", "PiecewiseQuadratic", "SoftSign", "Erf", "SuperSpike", "PiecewiseLeakyReLU", "Rect"]


@pytest.mark.parametrize(
    ("neuron", "surrogate"), [(n, "Sigmoid") for n in NEURONS] + [("LIFNode", s) for s in SURROGATES[1:]]
)
def test_our_neurons_and_surrogates_train_fused_at_every_dtype(neuron: str, surrogate: str) -> None:
    """Their step and gradient trace alike at float32, bfloat16 and float16: 16-bit training keeps the kernels."""
    import flexsn_nn
    from flexsn_runtime.routing import dtype_reason

    m = getattr(flexsn_nn, neuron)(surrogate_function=getattr(flexsn_nn.surrogate, surrogate)(), step_mode="m")
    for dtype in (torch.bfloat16, torch.float16):
        assert dtype_reason(m.kernel, dtype, True) is None
        assert dtype_reason(m.kernel, dtype, False) is None
