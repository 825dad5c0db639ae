"""SpikingJelly's ``StepModule`` methods: ``single_step_forward`` / ``multi_step_forward`` whatever ``step_mode`` says.

References: the neuron's own call in that step mode (a fresh neuron with the same parameters), and the
core's equations stepped by hand through :func:`flexsn_trace.reference_scan`.
"""

from __future__ import annotations

import copy

import pytest
import torch
from nn_reference import pick_device
from torch.utils.checkpoint import checkpoint

import flexsn_nn
from flexsn_trace import ScanContract, reference_scan

DEV = pick_device()


def _x(T: int = 6) -> torch.Tensor:
    g = torch.Generator().manual_seed(13)
    return (torch.rand(T, 3, 5, generator=g) * 2.5).to(DEV)


@pytest.mark.parametrize("make", ["LIFNode", "ParametricLIFNode", "CUBALIFNode"])
@pytest.mark.parametrize("mode", ["s", "m"])
def test_multi_step_forward_runs_a_sequence_in_either_step_mode(make: str, mode: str) -> None:
    node = getattr(flexsn_nn, make)(step_mode=mode).to(DEV)
    ref = copy.deepcopy(node)
    ref.step_mode = "m"
    x = _x()
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    got, want = node.multi_step_forward(xa), ref(xb)
    assert got.any(), "the neuron must fire for the comparison to mean anything"
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(node.v, ref.v)
    (got * torch.linspace(-1.0, 1.0, got.numel(), device=DEV).view_as(got)).sum().backward()
    (want * torch.linspace(-1.0, 1.0, want.numel(), device=DEV).view_as(want)).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-6)
    for p, q in zip(node.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6)
    assert node.step_mode == mode  # the call does not change the mode


@pytest.mark.parametrize("mode", ["s", "m"])
def test_single_step_forward_advances_one_step_in_either_step_mode(mode: str) -> None:
    node = flexsn_nn.LIFNode(step_mode=mode).to(DEV)
    x = _x()
    steps = torch.stack([node.single_step_forward(x[t]) for t in range(x.shape[0])])  # type: ignore[misc]
    contract = ScanContract(1, 1, 1, (x,), (torch.zeros(3, 5, device=DEV),), ())
    want_s, want_v = reference_scan(node.neuron_core, contract._replace(final_state=True))
    torch.testing.assert_close(steps, want_s)
    torch.testing.assert_close(node.v, want_v)
    assert node.step_mode == mode


def test_single_steps_then_a_sequence_carry_the_states_on() -> None:
    node, ref = flexsn_nn.LIFNode(step_mode="s").to(DEV), flexsn_nn.LIFNode(step_mode="m").to(DEV)
    x = _x(8)
    head = torch.stack([node.single_step_forward(x[t]) for t in range(3)])  # type: ignore[misc]
    tail = node.multi_step_forward(x[3:])
    torch.testing.assert_close(torch.cat([head, tail]), ref(x))  # type: ignore[list-item]
    torch.testing.assert_close(node.v, ref.v)


def test_multi_step_forward_under_activation_checkpointing_replays_from_the_same_states() -> None:
    node, ref = flexsn_nn.LIFNode(step_mode="s").to(DEV), flexsn_nn.LIFNode(step_mode="m").to(DEV)
    x = _x()
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    got = checkpoint(node.multi_step_forward, xa, use_reentrant=False)
    want = ref(xb)
    (got * 1.5).sum().backward()
    (want * 1.5).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(node.v, ref.v)


def test_a_bad_input_is_refused_as_forward_refuses_it() -> None:
    node = flexsn_nn.LIFNode(step_mode="s")
    with pytest.raises(ValueError, match="0-dim"):
        node.multi_step_forward(torch.tensor(1.0))
    with pytest.raises(TypeError, match="floating-point"):
        node.single_step_forward(torch.ones(3, dtype=torch.int64))
