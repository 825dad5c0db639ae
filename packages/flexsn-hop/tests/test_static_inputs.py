"""Lifted tensors of ``flex_sn_scan`` (parameters a body reads, Dynamo's lifted freevars) run on the
fused kernels as static inputs, eagerly and under ``torch.compile``, with gradients equal to
autograd through ``eager_scan``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import flexsn_hop
from flexsn_hop import runtime_fusion

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
STEP = (2, 3, 4)


def decay_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return torch.tanh(h), h * 0.9


@pytest.fixture
def fused_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    flexsn_hop.enable_fused_kernels(True)  # the conftest starts every test without the fused hook
    paths: list[str] = []
    real = runtime_fusion.run_route

    def spy(kernel, r, *args, **kwargs):  # type: ignore[no-untyped-def]
        paths.append(r.path)
        return real(kernel, r, *args, **kwargs)

    monkeypatch.setattr(runtime_fusion, "run_route", spy)
    yield paths
    flexsn_hop.enable_fused_kernels(False)


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
