"""A surrogate whose backward formula writes in place, as SpikingJelly's own ``Erf``, ``SoftSign`` and
``QPseudoSpike`` do (``(x * alpha).pow_(2)``, ``.exp_()``): the training kernels take it, and its gradient is
autograd's through the eager loop. Before, ``pow_`` of a tensor by a number was rewritten to the functional
overload of the same name, ``pow.Scalar`` (a number raised to a tensor), and training ran the eager loop."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
import torch

from flexsn_nn import FlexSN

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class _HeavisideSaving(torch.autograd.Function):
    """Heaviside forward saving its input; subclasses write the surrogate gradient."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return (x >= 0).to(x.dtype)


class _ErfInPlace(_HeavisideSaving):
    """The erf surrogate's gradient (alpha 2) written with in-place calls."""

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * (-(x * 2.0).pow_(2)).exp_() * (2.0 / math.sqrt(math.pi))


class _SoftSignInPlace(_HeavisideSaving):
    """The soft-sign surrogate's gradient (alpha 2) with an in-place square."""

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad / (2 * 2.0 * (1 / 2.0 + x.abs()).pow_(2))


@pytest.mark.parametrize("spike", [_ErfInPlace, _SoftSignInPlace], ids=["erf", "soft_sign"])
def test_a_gradient_written_in_place_trains_fused_and_matches_the_loop(spike: type[torch.autograd.Function]) -> None:
    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = spike.apply(h - 1.0)
        return s, h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback, for inference or training
        m = FlexSN(lif, 1, 1, 1).to(DEVICE)
    assert m.kernel.has_training_kernels, m.kernel.training_fallback_reason
    x = (torch.rand(7, 3, 5, generator=torch.Generator().manual_seed(2)) * 3.0).to(DEVICE)
    xg = x.clone().requires_grad_()
    w = torch.linspace(-1.0, 1.0, 7, device=DEVICE).view(7, 1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = m(xg)
    ((y * w).sum() + (m.states[0] ** 2).sum()).backward()  # type: ignore[operator]
    xr, v, ys = x.clone().requires_grad_(), torch.zeros_like(x[0]), []
    for t in range(7):
        s, v = lif(xr[t], v)
        ys.append(s)
    ((torch.stack(ys) * w).sum() + (v**2).sum()).backward()
    assert y.any() and xg.grad is not None and xr.grad is not None and xr.grad.abs().sum() > 0
    torch.testing.assert_close(y, torch.stack(ys))
    torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-5, atol=1e-6)
