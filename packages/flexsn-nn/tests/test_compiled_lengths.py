"""Sequences of other lengths under ``torch.compile(dynamic=True)``: one graph for every ``T``, results of the loop.

A network sees several sequence lengths (a dataset of variable-length recordings, evaluation at another ``T``).
With dynamic shapes Dynamo should compile its frame once. With ``backend="hop"`` the fused path's fake run
converted ``T`` to an ``int`` (``ScanContract.T``), which made Dynamo guard on it: one graph per length, and
past its recompile limit (8) the network ran uncompiled. The reference is the ``torch`` backend's loop with
autograd through it, on the same weights.
"""

from __future__ import annotations

import pytest
import torch
import torch._dynamo
import torch._dynamo.utils

from flexsn_nn import ParametricLIFNode, hop_available

#: the fused kernels' device: CUDA, else the CPU under Triton's interpreter (conftest sets it; on a GPU host's CPU
#: every backend would run the loop, which unrolls T)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["triton", "inductor", pytest.param("hop", marks=pytest.mark.skipif(not hop_available(), reason="no flexsn_hop"))]


def _net(backend: str) -> torch.nn.Sequential:
    torch.manual_seed(3)
    return torch.nn.Sequential(
        torch.nn.Linear(6, 5), ParametricLIFNode(init_tau=3.0, step_mode="m", backend=backend)
    ).to(DEVICE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_three_lengths_compile_once_and_train_as_the_loop(backend: str) -> None:
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    net, ref = _net(backend), _net("torch")
    compiled = torch.compile(net, backend="aot_eager", dynamic=True, fullgraph=True)
    # lengths whose checkpoint-row counts (about T / 4 in training) stay above 1 and apart from the batch size:
    # Dynamo guards those relations of the training op's shapes, which do not depend on the backend
    for T in (7, 11, 15):  # none equal to a feature size: Dynamo would give both one symbol (duck sizing)
        x = torch.randn(T, 16, 6, device=DEVICE)
        results = []
        for model, module in ((compiled, net), (ref, ref)):
            module[1].reset()
            module.zero_grad(set_to_none=True)
            y = model(x)
            y.sum().backward()
            results.append((y.detach(), [p.grad for p in module.parameters()]))
        (y, grads), (y_ref, grads_ref) = results
        torch.testing.assert_close(y, y_ref)
        for g, g_ref in zip(grads, grads_ref):
            torch.testing.assert_close(g, g_ref, rtol=1e-4, atol=1e-5)
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 1
