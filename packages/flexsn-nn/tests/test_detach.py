"""Truncated BPTT: ``FlexSN.detach()`` and ``functional.detach_net`` cut the states from their history.

SpikingJelly's ``MemoryModule.detach`` and ``functional.detach_net`` do this between chunks of a long
sequence: each chunk's backward stops at the states the chunk started from. The reference here
does not detach at all: it runs the chunks before under ``no_grad`` on the eager loop, then the
chunk itself with gradients.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from flexsn_nn import LIFNode, ParametricLIFNode, functional

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["triton", "inductor", "hop", "torch"]
T, CHUNK = 9, 3


def _net(cls: type, backend: str, step_mode: str) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 6), cls(step_mode=step_mode, backend=backend)).to(DEVICE)


def _call(net: nn.Module, x: torch.Tensor, step_mode: str) -> torch.Tensor:
    return net(x) if step_mode == "m" else torch.stack([net(xt) for xt in x])


def _weights(y: torch.Tensor) -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, y.numel(), device=DEVICE).reshape(y.shape)


def _detached_chunks(cls: type, backend: str, step_mode: str, x: torch.Tensor) -> list[list[torch.Tensor]]:
    """Per chunk: its spikes and its parameters' gradients, ``detach_net`` between chunks."""
    net = _net(cls, backend, step_mode)
    rows = []
    for xc in x.split(CHUNK):
        y = _call(net, xc, step_mode)
        (y * _weights(y)).sum().backward()
        rows.append([y.detach(), *(p.grad.clone() for p in net.parameters())])  # type: ignore[union-attr]
        net.zero_grad()
        functional.detach_net(net)
        assert all(not s.requires_grad for s in net[1].states)
    return rows


def _reference_chunks(cls: type, step_mode: str, x: torch.Tensor) -> list[list[torch.Tensor]]:
    """The same per-chunk results without detach: the steps before a chunk run under ``no_grad``."""
    rows = []
    for k in range(T // CHUNK):
        net = _net(cls, "torch", step_mode)
        with torch.no_grad():
            if k:
                _call(net, x[: k * CHUNK], step_mode)
        y = _call(net, x[k * CHUNK : (k + 1) * CHUNK], step_mode)
        (y * _weights(y)).sum().backward()
        rows.append([y.detach(), *(p.grad for p in net.parameters())])  # type: ignore[misc]
    return rows


@pytest.mark.parametrize("step_mode", ["m", "s"])
@pytest.mark.parametrize("cls", [LIFNode, ParametricLIFNode])
@pytest.mark.parametrize("backend", BACKENDS)
def test_detach_net_truncates_bptt_at_the_chunk_boundary(backend: str, cls: type, step_mode: str) -> None:
    torch.manual_seed(1)
    x = torch.randn(T, 4, 5, device=DEVICE) * 2.0
    got, ref = _detached_chunks(cls, backend, step_mode, x), _reference_chunks(cls, step_mode, x)
    assert sum(float(r[0].sum()) for r in ref) > 0, "no spike: the comparison would test nothing"
    for k, (row, row_ref) in enumerate(zip(got, ref)):
        torch.testing.assert_close(row[0], row_ref[0], rtol=0, atol=0, msg=f"chunk {k} spikes")
        for j, (g, g_ref) in enumerate(zip(row[1:], row_ref[1:])):
            torch.testing.assert_close(g, g_ref, rtol=1e-5, atol=1e-6, msg=f"chunk {k} parameter {j}")


def test_detach_keeps_values_and_is_a_no_op_without_states() -> None:
    m = ParametricLIFNode(step_mode="m").to(DEVICE)
    m.detach()  # nothing to cut yet
    assert m.states == []
    x = (torch.randn(4, 3, device=DEVICE) * 2.0).requires_grad_()
    m(x)
    before = [s.clone() for s in m.states]
    assert all(s.requires_grad for s in m.states)
    m.detach()
    assert all(not s.requires_grad and s.grad_fn is None for s in m.states)
    for s, b in zip(m.states, before):
        torch.testing.assert_close(s, b, rtol=0, atol=0)


def test_detach_net_checks_its_argument() -> None:
    with pytest.raises(TypeError, match="detach_net expects an nn.Module, got list"):
        functional.detach_net([LIFNode(step_mode="m")])  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["triton", "inductor"])
@pytest.mark.parametrize("cls", [LIFNode, ParametricLIFNode])
def test_a_forgotten_reset_names_the_remedies_on_the_fused_backends(cls: type, backend: str) -> None:
    """States carried from a batch whose backward ran: the next backward reaches the freed call, as in the eager
    loop, and the fused node's error names reset(), detach() and retain_graph (PyTorch's own message kept)."""
    net = _net(cls, backend, "m")
    x = torch.rand(T, 2, 5, device=DEVICE)
    net(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"reset\(\).*detach\(\).*retain_graph=True") as caught:
        net(x).sum().backward()  # no reset between the batches
    assert "backward through the graph a second time" in str(caught.value)
    functional.reset_net(net)
    net(x).sum().backward()  # the remedy works


@pytest.mark.parametrize("backend", ["triton", "inductor"])
def test_a_second_backward_through_one_call_names_retain_graph(backend: str) -> None:
    net = _net(LIFNode, backend, "m")
    loss = net(torch.rand(T, 2, 5, device=DEVICE)).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match=r"FlexSN: a backward pass reached .* retain_graph=True"):
        loss.backward()
