"""Shared checks of the captured-tensor tests (``test_captures.py``, ``test_captures_places.py``).

Each builds a :class:`flexsn_runtime.FlexSNKernel` for a core that reads tensors from outside its
arguments and compares it with :func:`flexsn_trace.reference_scan` (the Python loop, autograd through it).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import pytest
import torch

import flexsn_runtime.flexsn_kernel as flexsn_kernel_module
from flexsn_runtime import FlexSNKernel
from flexsn_trace import ScanContract, reference_scan

#: steps, neurons and channels of every call: sequences [T, N, C]
T, N, C = 5, 3, 4


def spike(h: torch.Tensor) -> torch.Tensor:
    """A smooth spike, so that every captured parameter gets a gradient."""
    return torch.sigmoid(4.0 * h)


def check_fused_with_gradients(
    core: Callable[..., Any], params: Sequence[torch.Tensor], names: tuple[str, ...], device: torch.device,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``core``'s kernel lifts ``names`` with no fallback warning, trains on the fused route, and gives the loop's
    outputs and the gradients autograd gives through it, of the input and of each of ``params``."""
    paths: list[str] = []
    real = flexsn_kernel_module.run_route
    monkeypatch.setattr(flexsn_kernel_module, "run_route", lambda k, r, *a, **kw: (paths.append(r.path), real(k, r, *a, **kw))[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = FlexSNKernel(core, 1, 1, 1)
    assert k.captures.names() == names
    x = (torch.rand(T, N, C, device=device) * 2).requires_grad_()
    y, v = k(x)
    (y.sum() + (v * v).sum()).backward()
    assert paths == ["training"]
    got = [p.grad.clone() for p in params]  # type: ignore[union-attr]
    for p in params:
        p.grad = None
    xr = x.detach().clone().requires_grad_()
    yr, vr = reference_scan(core, ScanContract(1, 1, 1, (xr,), ()))
    (yr.sum() + (vr * vr).sum()).backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    for g, p in zip(got, params):
        assert p.grad is not None
        torch.testing.assert_close(g, p.grad, rtol=1e-4, atol=1e-5)


def follows_a_change(core: Callable[..., Any], change: Callable[[], None], device: torch.device) -> None:
    """``core``'s kernels, built with no fallback warning, give the loop's result after ``change()`` between two calls."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = FlexSNKernel(core, 1, 1, 1)
    x = torch.rand(T, N, C, device=device) * 2
    with torch.no_grad():
        before, _ = k(x)
        change()
        y, _ = k(x)
        want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(y, want)
    assert not torch.allclose(y, before)
