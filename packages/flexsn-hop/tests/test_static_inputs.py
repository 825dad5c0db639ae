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
