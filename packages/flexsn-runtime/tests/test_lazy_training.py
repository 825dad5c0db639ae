"""Training kernels traced on the first call that needs gradients (#13, start-up time).

A ``FlexSNKernel`` is built with its inference kernels only; the BPTT pair is
traced (or loaded from the trace cache) when a call first needs gradients,
once per handle, then the results are those of autograd through the loop.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch

import flexsn_runtime.kernel_build as kernel_build
from flexsn_runtime import FlexSNKernel, lookup_flexsn_kernel_handle
from flexsn_runtime.registry import ensure_training_kernels
from flexsn_runtime.training_plan import plan_for
from flexsn_trace.testing import count_calls, lif_core, unrolled_loop


def counting_training_traces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return count_calls(monkeypatch, kernel_build, "build_training_variants")


def check_against_loop(k: FlexSNKernel, x: torch.Tensor, v0: torch.Tensor) -> None:
    xk, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
    spikes, vs = k(xk, v0)
    (ref_s,), (ref_v,) = unrolled_loop(lif_core, 1, [xr], [v0])
    torch.testing.assert_close(spikes, ref_s)
    torch.testing.assert_close(vs, ref_v)
    g = torch.rand_like(spikes)
    (gk,) = torch.autograd.grad((spikes * g).sum() + vs.sum(), xk)
    (gr,) = torch.autograd.grad((ref_s * g).sum() + ref_v.sum(), xr)
    torch.testing.assert_close(gk, gr)


def test_construction_and_inference_do_not_trace_training(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, device: torch.device
) -> None:
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    traces = counting_training_traces(monkeypatch)
    k = FlexSNKernel(lif_core, 1, 1, 1)
    x, v0 = torch.rand(6, 5, device=device) * 2, torch.rand(5, device=device)
    with torch.no_grad():
        k(x, v0)
    bundle = lookup_flexsn_kernel_handle(k.handle)
    assert traces == [] and bundle.training is None and bundle.training_builder is not None
    check_against_loop(k, x, v0)
    assert traces == [1] and bundle.training_builder is None and bundle.training is not None
    check_against_loop(k, x, v0)
    check_against_loop(copy.deepcopy(k), x, v0)  # a deep copy shares the handle, and what it built
    assert traces == [1]


def test_a_second_kernel_of_the_same_core_loads_the_training_part_from_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, device: torch.device
) -> None:
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    traces = counting_training_traces(monkeypatch)
    assert FlexSNKernel(lif_core, 1, 1, 1).has_training_kernels and traces == [1]
    k = FlexSNKernel(lif_core, 1, 1, 1)
    assert k.has_training_kernels and k.training_fallback_reason is None and traces == [1]
    check_against_loop(k, torch.rand(6, 5, device=device) * 2, torch.rand(5, device=device))


def test_the_ops_build_the_training_kernels_of_a_handle_they_are_given() -> None:
    k = FlexSNKernel(lif_core, 1, 1, 1)
    assert lookup_flexsn_kernel_handle(k.handle).training is None
    plan = plan_for(k.handle, False)  # what flexsn::training and its fake registration look up
    pair = lookup_flexsn_kernel_handle(k.handle).training
    assert pair is not None and plan.forward is pair.forward


def test_a_failing_builder_raises_and_is_kept_for_the_next_call() -> None:
    k = FlexSNKernel(lif_core, 1, 1, 1)
    bundle = lookup_flexsn_kernel_handle(k.handle)
    real = bundle.training_builder
    calls: list[int] = []

    def failing() -> Any:
        calls.append(1)
        raise RuntimeError("disk on fire")

    bundle.training_builder = failing
    with pytest.raises(RuntimeError, match="disk on fire"):
        ensure_training_kernels(k.handle)
    assert bundle.training_builder is failing and bundle.training is None
    bundle.training_builder = real
    assert k.has_training_kernels and calls == [1]


def test_the_training_fallback_is_told_once_at_the_first_call_that_needs_gradients(device: torch.device) -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = torch.heaviside(h - 1.0, torch.zeros_like(h))  # no autograd formula
        return s, h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = FlexSNKernel(core, 1, 1, 1)
        with torch.no_grad():
            k(torch.rand(4, 3, device=device))
    x = torch.rand(4, 3, device=device, requires_grad=True)
    with pytest.warns(RuntimeWarning) as told:
        k(x)
        k(x)
    messages = [str(w.message) for w in told if "heaviside" in str(w.message)]
    assert len(messages) == 1 and "need gradients run the eager" in messages[0]
    assert not k.has_training_kernels and "heaviside" in (k.training_fallback_reason or "")


def test_a_call_that_falls_back_for_another_reason_traces_no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPU tensors without the interpreter run the eager loop: the training kernels are not traced for it."""
    traces = counting_training_traces(monkeypatch)
    k = FlexSNKernel(lif_core, 1, 1, 1)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    x = (torch.rand(4, 3) * 2.5).requires_grad_()  # scaled: the neurons spike, so the comparison can fail
    with pytest.warns(RuntimeWarning, match="TRITON_INTERPRET=1"):
        spikes, _ = k(x)
    assert traces == [] and lookup_flexsn_kernel_handle(k.handle).training_builder is not None
    (ref,), _ = unrolled_loop(lif_core, 1, [x], [torch.zeros(3)])
    assert torch.count_nonzero(ref) > 0
    torch.testing.assert_close(spikes, ref)


def test_the_training_trace_runs_apart_from_a_tracer_of_the_caller(device: torch.device) -> None:
    """Asked for inside ``make_fx`` (fake tensors on the caller's thread), the trace sees real tensors."""
    from torch.fx.experimental.proxy_tensor import make_fx

    k = FlexSNKernel(lif_core, 1, 1, 1)

    def ask(x: torch.Tensor) -> torch.Tensor:
        assert k.has_training_kernels
        return x * 2

    make_fx(ask, tracing_mode="fake")(torch.rand(3, device=device))
    assert lookup_flexsn_kernel_handle(k.handle).training is not None
    check_against_loop(k, torch.rand(6, 5, device=device) * 2, torch.rand(5, device=device))
