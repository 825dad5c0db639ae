"""Training after ``torch.inference_mode``: tensors made there (a neuron's states, an input) feed training calls.

The eager loop never saves them, so it trains on; the fused training kernels save their inputs and
initial states, which autograd refuses for inference tensors. Every backend must give the loop's
outputs, states and gradients.
"""

from __future__ import annotations

import warnings

import pytest
import torch

from flexsn_nn import LIFNode, ParametricLIFNode

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _train_after_inference(cls: type, backend: str, step_mode: str, x: torch.Tensor) -> list[torch.Tensor]:
    """A call under inference_mode (its states kept, no reset), a training call from them, then (for a neuron
    with parameters, whose gradient needs no input gradient) one fed an input made under inference_mode."""
    torch.manual_seed(0)
    m = cls(backend=backend, step_mode=step_mode).to(DEVICE)
    with torch.inference_mode():
        m(x[0] if step_mode == "s" else x)
        x_inf = x * 0.5  # an inference tensor
    params = list(m.parameters())
    xg = x.clone().requires_grad_()
    inputs = [xg, x_inf] if params else [xg]
    w = torch.linspace(-1.0, 1.0, x.numel(), device=DEVICE).reshape(x.shape)
    loss = torch.zeros((), device=DEVICE)
    spikes = []
    for inp in inputs:
        s = torch.stack([m(inp[t]) for t in range(x.shape[0])]) if step_mode == "s" else m(inp)
        loss = loss + (s * w).sum()
        spikes.append(s.detach())
    loss.backward()
    assert xg.grad is not None
    return [*spikes, m.v.detach(), xg.grad, *(p.grad for p in params if p.grad is not None)]


@pytest.mark.parametrize("step_mode", ["m", "s"])
@pytest.mark.parametrize("cls", [LIFNode, ParametricLIFNode])
@pytest.mark.parametrize("backend", ["triton", "inductor", "hop"])
def test_training_continues_from_states_and_inputs_made_in_inference_mode(backend: str, cls: type, step_mode: str) -> None:
    x = torch.randn(5, 3, 4, device=DEVICE) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fallback's reason is not what this test checks
        got = _train_after_inference(cls, backend, step_mode, x)
        ref = _train_after_inference(cls, "torch", step_mode, x)
    assert len(got) == len(ref) == (5 if cls is ParametricLIFNode else 3)  # every call's spikes: the first ones fire
    assert torch.count_nonzero(ref[0]) > 0
    for a, b in zip(got, ref):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
