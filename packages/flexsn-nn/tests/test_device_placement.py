"""Neurons built under a default CUDA device (``torch.set_default_device``, ``with torch.device``) and trained
through ``nn.DataParallel``, against the ``torch`` backend's loop built and run the plain way (GPU only)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch

from flexsn_nn import AdaptiveLIFNode, LearnableThresholdLIFNode, LIFNode, ParametricLIFNode

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
needs_two = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="nn.DataParallel needs two GPUs")

MAKERS: dict[str, Callable[..., torch.nn.Module]] = {
    "lif": LIFNode,
    "plif": ParametricLIFNode,
    "threshold": lambda **kw: LearnableThresholdLIFNode(threshold_shape=(16,), **kw, step_mode="m"),
    "alif": AdaptiveLIFNode,
}
BACKENDS = ["triton", "hop", "torch"]


def _loss_and_grads(m: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, list[Any]]:
    x = x.clone().requires_grad_()
    out = m(x)
    (out * torch.linspace(0, 1, out.numel(), device=out.device).view(out.shape)).sum().backward()
    return out.detach(), [x.grad, *(p.grad for p in m.parameters())]


def _check(got: tuple[torch.Tensor, list[Any]], want: tuple[torch.Tensor, list[Any]], atol: float) -> None:
    torch.testing.assert_close(got[0], want[0])
    assert len(got[1]) == len(want[1])
    for g, w in zip(got[1], want[1]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=atol)


@needs_cuda
@pytest.mark.parametrize("how", ["set_default_device", "device_context"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(MAKERS))
def test_built_under_a_default_cuda_device(name: str, backend: str, how: str) -> None:
    make = MAKERS[name]
    x = torch.rand(8, 4, 16, device="cuda") * 2
    if how == "set_default_device":
        torch.set_default_device("cuda")
        try:
            got = _loss_and_grads(make(backend=backend), x)
        finally:
            torch.set_default_device(None)
    else:
        with torch.device("cuda"):
            got = _loss_and_grads(make(backend=backend), x)
    _check(got, _loss_and_grads(make(backend="torch").cuda(), x), atol=1e-6)


@needs_two
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(MAKERS))
def test_data_parallel_over_the_batch_matches_one_device(name: str, backend: str) -> None:
    """``nn.DataParallel(net, dim=1)`` scatters ``[T, B, F]`` over the batch: the replicas' neurons run on
    their own devices (kernels launched there, states their own) and the gradients gather to the parameters."""
    torch.manual_seed(0)
    make = MAKERS[name]
    net = torch.nn.Sequential(torch.nn.Linear(16, 16), make(backend=backend)).cuda()
    ref = torch.nn.Sequential(torch.nn.Linear(16, 16), make(backend="torch")).cuda()
    ref.load_state_dict(net.state_dict())
    x = torch.rand(6, 8, 16, device="cuda") * 2
    results = []
    for model, params in ((torch.nn.DataParallel(net, dim=1), net), (ref, ref)):
        out = model(x)
        (out * torch.linspace(0, 1, out.numel(), device="cuda").view(out.shape)).sum().backward()
        results.append((out.detach(), [p.grad for p in params.parameters()]))
    _check(results[0], results[1], atol=1e-5)  # the batch's two halves sum on two devices
