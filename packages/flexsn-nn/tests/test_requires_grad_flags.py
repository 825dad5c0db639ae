"""``FlexSN(requires_grad=...)`` (SpikingJelly's argument): flags that leave an input out of the training trace.

An input flagged ``False`` gets no gradient from the training kernels. Before: a call whose input
required grad anyway trained fused and returned a zero gradient for it, silently. Now it runs the
loop (autograd through it) with one warning naming the flag; calls whose flagged inputs do not
require grad still train fused.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import flexsn_runtime.flexsn_kernel as flexsn_kernel_module
from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from flexsn_trace.testing import lif_core

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _x(requires_grad: bool) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    return (torch.rand(6, 2, 5, generator=g) * 3).to(DEVICE).requires_grad_(requires_grad)


@pytest.mark.parametrize("backend", ["triton", "inductor"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_an_input_flagged_false_that_requires_grad_gets_its_gradient_from_the_loop(backend: str, compiled: bool) -> None:
    neuron = FlexSN(lif_core, 1, 1, 1, requires_grad=[False, True], backend=backend)
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = _x(True)
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                neuron.reset()
                x.grad = None
                run(x).sum().backward()
    finally:
        torch._dynamo.reset()
    told = [str(w.message) for w in caught if "requires_grad[0] is False" in str(w.message)]
    assert len(told) == 1 and "eager PyTorch loop" in told[0], [str(w.message) for w in caught]
    xr = x.detach().clone().requires_grad_()
    want, _ = reference_scan(lif_core, ScanContract(1, 1, 1, (xr,), ()))
    want.sum().backward()
    assert x.grad is not None and xr.grad is not None and xr.grad.abs().sum() > 0
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)


def test_an_input_flagged_false_that_needs_no_grad_still_trains_fused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flags' purpose: a static input (or state) needs gradients, the data input does not."""
    paths: list[str] = []
    real = flexsn_kernel_module.run_route
    monkeypatch.setattr(flexsn_kernel_module, "run_route", lambda k, r, *a, **kw: (paths.append(r.path), real(k, r, *a, **kw))[1])

    def core(x: torch.Tensor, v: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return lif_core(x - th + 1.0, v)

    th = nn.Parameter(torch.full((5,), 0.8, device=DEVICE))
    neuron = FlexSN(core, 1, 1, 1, requires_grad=[False, True], static_inputs=[th])
    x = _x(False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        neuron(x).sum().backward()
    assert paths == ["training"]
    got = th.grad.clone()  # type: ignore[union-attr]
    th.grad = None
    want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), (), (th,)))
    want.sum().backward()
    torch.testing.assert_close(got, th.grad, rtol=1e-4, atol=1e-5)
