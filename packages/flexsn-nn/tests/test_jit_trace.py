"""``torch.jit.trace`` of a network with FlexSN neurons: the traced graph computes what the network computes.

``torch.jit.trace`` records aten operations; a fused kernel's launch is none, so a trace taken through
the kernels would hold no neuron (or, before, crashed inside the launch: the tracer hands sizes as
tensors). Every backend must record the eager loop instead, the kernel backends with one warning
that says why, also when the same call signature ran fused before the trace (the call cache).
"""

from __future__ import annotations

import warnings

import pytest
import torch

from flexsn_nn import LIFNode, ParametricLIFNode

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["triton", "inductor", "hop", "torch"]


def _net(cls: type, backend: str) -> torch.nn.Sequential:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(5, 7), cls(step_mode="m", backend=backend)).to(DEVICE)


@pytest.mark.parametrize("cls", [LIFNode, ParametricLIFNode])
@pytest.mark.parametrize("backend", BACKENDS)
def test_traced_network_matches_the_network(cls: type, backend: str) -> None:
    net, ref = _net(cls, backend), _net(cls, "torch")
    x = torch.randn(4, 3, 5, device=DEVICE)
    net(x)  # a fused call of this signature first: the trace must not replay it from the call cache
    net[1].reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(net, (x,), check_trace=False)
    net[1].reset()
    reasons = [str(w.message) for w in caught if "records aten operations only" in str(w.message)]
    assert len(reasons) == (1 if backend in ("triton", "inductor") else 0), reasons
    # a new input of the traced shape, with gradients: outputs and every gradient as the eager network's
    x2 = (torch.randn(4, 3, 5, device=DEVICE) * 2.0).requires_grad_()
    x2_ref = x2.detach().clone().requires_grad_()
    out, out_ref = traced(x2), ref(x2_ref)
    g = torch.randn_like(out_ref)
    out.backward(g)
    out_ref.backward(g)
    assert out.abs().sum() > 0, "a trace that fires no spike tests nothing"
    torch.testing.assert_close(out, out_ref, rtol=0, atol=0)
    torch.testing.assert_close(x2.grad, x2_ref.grad, rtol=1e-5, atol=1e-6)
    for (name, p), p_ref in zip(net.named_parameters(), ref.parameters()):
        assert p.grad is not None, name
        torch.testing.assert_close(p.grad, p_ref.grad, rtol=1e-5, atol=1e-6, msg=name)
