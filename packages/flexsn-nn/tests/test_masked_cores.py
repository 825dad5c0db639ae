"""Cores that read and write through boolean masks train on the fused kernels (``flexsn_trace.masked``).

``grad_x[x > 1] = 1 / x[x > 1]`` in a surrogate's backward (SpikingJelly's ``LogTailedReLU`` writes it so), or
``out[pos] = log1p(r[pos])`` in the step: before, the trace kept ``aten.index`` and training ran the eager loop
with a warning. Reference: the ``torch`` backend's loop, autograd through it.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from nn_reference import pick_device

from flexsn_nn import FlexSN, surrogate
from flexsn_trace.testing import masked_gradient_core, masked_step_core

DEV = pick_device()


_ATAN = surrogate.ATan()


def mask_reset_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A hard reset written as a masked assignment, ``v[s > 0] = 0``."""
    h = v * 0.5 + x
    s = _ATAN(h - 1.0)
    v_new = h.clone()
    v_new[s > 0] = 0.0
    return s, v_new


def mask_on_a_computed_base_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``out[pos] = log1p(r[pos]) * 2`` into ``out = r * 0.5``: the base carries a gradient too, which autograd writes
    as ``index_put(g, [pos], zeros(count))``; before, that kept the backward on the eager loop."""
    h = v * 0.5 + x
    s = _ATAN(h - 1.0)
    r = h * (1.0 - s)
    out = r * 0.5
    pos = r > 0
    out[pos] = torch.log1p(r[pos]) * 2.0
    out[r < -2.0] = -1.0
    return s, out


def mask_of_a_saved_result_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``out[m] = v[m] * 0.5 + tanh(h[m])``: autograd saves ``tanh(h[m])`` for its backward as a ``detach`` of it,
    which kept the backward on the eager loop before (``aten.index`` of the gradient)."""
    h = v * 0.5 + x
    s = _ATAN(h - 1.0)
    out = h * (1.0 - s)
    m = h > v
    out[m] = v[m] * 0.5 + torch.tanh(h[m])
    return s, out


def _call(core: Any, backend: str, x0: torch.Tensor) -> tuple[torch.Tensor, ...]:
    m = FlexSN(core, 1, 1, 1, backend=backend).to(DEV)
    if backend == "triton":
        assert m.kernel.has_training_kernels, m.kernel.training_fallback_reason
    x = x0.clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no fallback
        y = m(x)
    (v,) = m.states
    ((y * torch.linspace(-1.0, 1.0, y.numel(), device=DEV).view_as(y)).float().sum() + (v.float() ** 2).sum()).backward()
    assert x.grad is not None
    return y.detach(), v.detach(), x.grad


@pytest.mark.parametrize("shape", [(9, 3, 5), (4, 2, 3, 7)])
@pytest.mark.parametrize(
    "core",
    [masked_gradient_core, masked_step_core, mask_reset_core, mask_on_a_computed_base_core, mask_of_a_saved_result_core],
    ids=["mask-in-backward", "mask-in-step", "mask-reset", "mask-on-a-computed-base", "mask-of-a-saved-result"],
)
def test_a_core_with_masked_writes_trains_fused_with_the_loops_gradient(core: Any, shape: tuple[int, ...]) -> None:
    x0 = (torch.randn(shape, generator=torch.Generator().manual_seed(9)) * 2.5).to(DEV)
    got, want = _call(core, "triton", x0), _call(core, "torch", x0)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    assert not torch.isnan(got[2]).any() and got[2].abs().sum() > 0


def test_explain_advises_a_select_for_a_masked_read_that_cannot_fuse() -> None:
    from flexsn_nn import explain

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        r = v * 0.5 + x
        return r + r[r > 0].sum(), r  # the count of selected elements matters: no rewrite

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = explain(core, 1, 1, 1)
    assert not found.lowers and found.blocking_op == "aten.index.Tensor"
    assert found.suggestion is not None and "torch.where(mask" in found.suggestion


def test_a_masked_constant_beside_a_hoisted_static_runs_fused() -> None:
    """``out[h < -1] = -1.0`` (a tensor constant in the trace) in a step that also computes from a static input alone
    (``w.abs() + 0.5``, hoisted out of the time loop): the kernels run and match the loop. Before, the hoisted loop
    graph lost the module holding the constant and the neuron ran the eager loop (found by exploring random cores)."""

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * 0.5 + x + torch.atan2(x, w.abs() + 0.5)
        out = h.clone()
        out[h < -1.0] = -1.0
        return _ATAN(h - 1.0), out

    x0 = (torch.randn(6, 3, 5, generator=torch.Generator().manual_seed(12)) * 2.5).to(DEV)
    results = []
    for backend in ("triton", "torch"):
        w = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 5, device=DEV))
        m = FlexSN(core, 1, 1, 1, backend=backend, static_inputs=(w,))
        x = x0.clone().requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # no fallback
            y = m(x)
        if backend == "triton":
            assert m.kernel.has_training_kernels, m.kernel.training_fallback_reason
        (y * torch.linspace(-1.0, 1.0, y.numel(), device=DEV).view_as(y)).sum().add(m.states[0].sum()).backward()
        results.append((y.detach(), m.states[0].detach(), x.grad, w.grad))
    for a, b in zip(*results):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
