"""Lifted tensors of ``flex_sn_scan`` (parameters a body reads, Dynamo's lifted freevars) run on the
fused kernels as static inputs, eagerly and under ``torch.compile``, with gradients equal to
autograd through ``eager_scan``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
import torch

import flexsn_hop

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
STEP = (2, 3, 4)


def decay_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return torch.tanh(h), h * 0.9


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_lifted_tensors_run_fused_as_static_inputs(compiled: bool, fused_paths: list[str]) -> None:
    def scan(x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(flexsn_hop.flex_sn_scan(decay_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE), w))

    run = torch.compile(scan, fullgraph=True, backend="aot_eager") if compiled else scan
    x = torch.randn(5, *STEP, device=DEVICE, requires_grad=True)
    w = torch.randn(3, 1, device=DEVICE, requires_grad=True)
    y, vs = run(x, w)
    (y.sum() + vs.pow(2).sum()).backward()
    assert fused_paths and set(fused_paths) == {"training"}  # the fused kernels, the lifted tensor their static input
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    yr, vr = flexsn_hop.eager_scan(decay_core, 1, 1, 1, xr, torch.zeros(STEP, device=DEVICE), wr)
    (yr.sum() + vr.pow(2).sum()).backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fused", [True, False], ids=["fused kernels", "eager loop"])
@pytest.mark.parametrize("final_state", [False, True], ids=["state sequences", "final states"])
def test_half_sequences_reading_a_float32_tensor_keep_their_dtype(fused: bool, final_state: bool) -> None:
    """A bfloat16 step reading a float32 lifted tensor computes in float32 (PyTorch's promotion); the fused
    kernels store in bfloat16, and so does the loop. Before: float32 where the kernels did not run (a CPU
    without Triton's interpreter), bfloat16 where they did, for the same call."""
    flexsn_hop.enable_fused_kernels(fused)
    try:
        x = torch.randn(5, *STEP, device=DEVICE).bfloat16()
        w = torch.randn(3, 1, device=DEVICE)
        y, v = flexsn_hop.flex_sn_scan(decay_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE, dtype=torch.bfloat16), w,
                                       final_state=final_state)
    finally:
        flexsn_hop.enable_fused_kernels(False)
    assert y.dtype == v.dtype == torch.bfloat16
    want_y, want_v = flexsn_hop.eager_scan(decay_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE, dtype=torch.bfloat16), w,
                                           final_state=final_state)
    assert want_y.dtype == torch.float32  # the plain loop keeps the promoted dtype
    if not fused:  # the loop computes in float32 and stores once
        torch.testing.assert_close(y, want_y.bfloat16())
        torch.testing.assert_close(v, want_v.bfloat16())


class _Holder:
    """A float the body reads, as a neuron's ``v_threshold`` or a surrogate's ``alpha``."""

    thr = 1.0


HOLDER = _Holder()


def threshold_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - HOLDER.thr))
    return s, h * (1.0 - s)


@pytest.mark.parametrize("dynamic", [None, True], ids=["float changed", "dynamic=True"])
def test_a_float_dynamo_lifts_is_read_by_the_kernels_at_every_call(dynamic: bool | None, fused_paths: list[str]) -> None:
    """Dynamo lifts a float the body reads once it changes (a 0-d tensor the body reads with ``.item()``) or, under
    ``dynamic=True``, at once (a ``SymFloat``). Before, the kernels could not trace ``.item()`` and the scan fell back
    to the loop with a warning; a ``SymFloat`` raised a TypeError while Dynamo compiled. Now each value runs fused and
    equals the loop, gradients included, with nothing to warn about."""

    def scan(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(flexsn_hop.flex_sn_scan(threshold_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE)))

    _matches_the_loop_at_each_value(threshold_core, torch.compile(scan, fullgraph=True, backend="aot_eager", dynamic=dynamic),
                                    (1.0, 0.7, 0.4), Warning)
    assert fused_paths and set(fused_paths) == {"training"}, fused_paths


def _matches_the_loop_at_each_value(
    core: Any, run: Any, values: tuple[float, ...], no_warning: type[Warning]
) -> None:
    """``run`` (a compiled scan of ``core``) with ``HOLDER.thr`` at each of ``values``: no warning of category
    ``no_warning`` (no fallback) while it runs, and results and input gradients equal to the loop's."""
    try:
        for thr in values:
            HOLDER.thr = thr
            x = (torch.rand(5, *STEP, device=DEVICE) * 3).requires_grad_()
            xr = x.detach().clone().requires_grad_()
            with warnings.catch_warnings():
                warnings.simplefilter("error", no_warning)  # no fallback
                y, vs = run(x)
            (y.sum() + vs.pow(2).sum()).backward()
            yr, vr = flexsn_hop.eager_scan(core, 1, 1, 1, xr, torch.zeros(STEP, device=DEVICE))
            (yr.sum() + vr.pow(2).sum()).backward()
            torch.testing.assert_close(y, yr)
            torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    finally:
        HOLDER.thr = 1.0


def exp_threshold_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - math.exp(HOLDER.thr - 1.0)))  # Python math on the number
    return s, h * (1.0 - s)


def test_python_math_on_a_lifted_float_stays_fused(fused_paths: list[str]) -> None:
    """Dynamo folds ``math.exp`` of the lifted float into a constant it guards, but keeps the dead call on it; on the
    tensor read in its place that call failed the kernels' trace (the loop ran, with a warning). It is dropped now."""

    def scan(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(flexsn_hop.flex_sn_scan(exp_threshold_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE)))

    run = torch.compile(scan, fullgraph=True, backend="aot_eager")
    try:
        for thr in (1.0, 0.7, 0.4):
            HOLDER.thr = thr
            x = torch.rand(5, *STEP, device=DEVICE) * 3
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no fallback
                y, v = run(x)
            yr, vr = flexsn_hop.eager_scan(exp_threshold_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE))
            torch.testing.assert_close(y, yr)
            torch.testing.assert_close(v, vr)
    finally:
        HOLDER.thr = 1.0
    assert fused_paths and set(fused_paths) == {"inference"}, fused_paths


def test_a_float_among_the_lifted_arguments_is_a_scalar_static_input(fused_paths: list[str]) -> None:
    """``flex_sn_scan(core, ..., x, v0, 0.5)``: the float reaches the body as a 0-d tensor, on the loop and fused."""

    def core(x: torch.Tensor, v: torch.Tensor, thr: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = torch.sigmoid(4.0 * (h - thr))
        return s, h * (1.0 - s)

    x = torch.rand(5, *STEP, device=DEVICE) * 3
    v0 = torch.zeros(STEP, device=DEVICE)
    with torch.no_grad():
        y, v = flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, v0, 0.5)
    assert fused_paths == ["inference"]
    yr, vr = flexsn_hop.eager_scan(core, 1, 1, 1, x, v0, torch.tensor(0.5))
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(v, vr)
    with pytest.raises(TypeError, match="an int / SymInt size or a float"):
        flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, v0, "0.5")


THR = torch.nn.Parameter(torch.tensor(0.9, device=DEVICE))
GAIN = torch.nn.Parameter(torch.tensor(4.0, device=DEVICE))


def item_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(GAIN * (h - THR.item()))  # the threshold as a number: no gradient for it
    return s, h * (1.0 - s)


def test_a_parameter_read_through_item_gets_no_gradient_on_the_kernels(fused_paths: list[str]) -> None:
    """The kernels read a lifted 0-d tensor where the body reads its ``.item()``, detached: ``THR.grad`` stays ``None``
    as in the loop (a zero gradient would still move it under weight decay or Adam), ``GAIN.grad`` is the loop's."""

    def scan(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(flexsn_hop.flex_sn_scan(item_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE)))

    x = (torch.rand(5, *STEP, device=DEVICE) * 3).requires_grad_()
    grads = []
    for run in (torch.compile(scan, fullgraph=True, backend="aot_eager"), None):
        THR.grad = GAIN.grad = x.grad = None
        if run is None:
            y, vs = flexsn_hop.eager_scan(item_core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE))
        else:
            y, vs = run(x)
        (y.sum() + vs.pow(2).sum()).backward()
        grads.append((y.detach(), x.grad, THR.grad, GAIN.grad))
    assert fused_paths and set(fused_paths) == {"training"}, fused_paths
    (y, gx, gthr, ggain), (yr, gxr, gthr_r, ggain_r) = grads
    assert gthr is None and gthr_r is None
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(gx, gxr, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(ggain, ggain_r, rtol=1e-4, atol=1e-5)


class _SpikeSavingAlpha(torch.autograd.Function):
    """A surrogate spike taking its slope as a number: the forward keeps it (``ctx.alpha``) for the backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, alpha: float) -> torch.Tensor:
        ctx.save_for_backward(x)
        ctx.alpha = alpha * 4.0
        return (x >= 0).to(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.alpha * x)
        return g * ctx.alpha * s * (1 - s), None


class _SpikeReadingAGlobal(torch.autograd.Function):
    """A surrogate spike whose backward reads a global float itself (as a formula reads ``math.pi``)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return (x >= 0).to(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return g / (1 + (HOLDER.thr * 3.0 * x) ** 2)


def saving_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = _SpikeSavingAlpha.apply(h - 1.0, HOLDER.thr)  # the float itself: the Function's forward reads it
    return s, h * (1.0 - s)


def global_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = _SpikeReadingAGlobal.apply(h - 1.0)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("core", [saving_core, global_core], ids=["forward reads it", "backward reads it"])
def test_a_lifted_float_a_custom_function_reads_is_read_by_the_kernels(core: Any, fused_paths: list[str]) -> None:
    """Under ``dynamic=True`` Dynamo lifts a float a custom ``autograd.Function`` gets (a surrogate's slope) or its
    backward reads (``math.pi`` in a formula): the Function's own bodies read it with ``.item()``. Before, the
    kernels' trace failed there and the scan trained on the loop, with a warning (every ``nn.Module`` core with a
    surrogate of ours, on ``backend="hop"``). Now it runs fused at each value, equal to the loop with gradients."""

    def scan(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, torch.zeros(STEP, device=DEVICE)))

    # Dynamo's own DeprecationWarning about the Function class aside: a fallback is a RuntimeWarning
    _matches_the_loop_at_each_value(core, torch.compile(scan, fullgraph=True, backend="aot_eager", dynamic=True), (1.0, 0.5),
                                    RuntimeWarning)
    assert fused_paths and set(fused_paths) == {"training"}, fused_paths
