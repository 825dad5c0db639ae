"""A result the core makes from static inputs or constants alone keeps their shape, as in the loop.

The loop stacks a per-channel threshold returned as it is (``th * 2.0``, ``th`` of shape ``[C, 1, 1]``) as
``[T, C, 1, 1]`` and a constant as ``[T]``; the fused kernels write one value per neuron, so such calls run the
loop with a warning (``flexsn_runtime.routing.fit_shapes``, ``FlexSNInfo.reads_step``). Before, the kernels'
``[T, B, C, H, W]`` came back silently.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN, hop_available
from flexsn_nn.surrogate import Sigmoid

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
needs_hop = pytest.mark.skipif(not hop_available(), reason="flexsn_hop is not importable")
BACKENDS = ["torch", "triton", "inductor", pytest.param("hop", marks=needs_hop)]
T, B, C, H = 5, 2, 3, 4
spike = Sigmoid(alpha=4.0)


def _threshold_out(x: torch.Tensor, v: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    h = 0.5 * v + x
    return spike(h - th), th * 2.0, h  # output 1 is the per-channel threshold's own shape, [C, 1, 1]


_CAPTURED_TH = torch.linspace(0.5, 1.5, C).view(C, 1, 1)


def _captured_threshold_out(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _threshold_out(x, v, _CAPTURED_TH.to(x.device))


def _constant_out(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    h = 0.5 * v + x
    return spike(h - 1.0), torch.tensor(2.0, device=x.device), h  # output 1: a constant, [] per step


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("made", ["static", "captured", "constant"])
@pytest.mark.parametrize("backend", BACKENDS[1:])
def test_an_output_of_a_static_inputs_shape_keeps_it_as_in_the_loop(backend: str, made: str, compiled: bool) -> None:
    """The loop stacks ``th * 2`` as ``[T, C, 1, 1]`` (a constant as ``[T]``); before, the kernels wrote it at every
    neuron, ``[T, B, C, H, H]``."""
    th = _CAPTURED_TH.to(DEVICE)
    m = {
        "static": lambda: FlexSN(_threshold_out, 1, 1, 2, backend=backend, static_inputs=(nn.Parameter(th.clone()),)),
        "captured": lambda: FlexSN(_captured_threshold_out, 1, 1, 2, backend=backend),
        "constant": lambda: FlexSN(_constant_out, 1, 1, 2, backend=backend),
    }[made]()
    x = torch.rand(T, B, C, H, H, device=DEVICE) * 2
    call = torch.compile(m, backend="aot_eager", fullgraph=True) if compiled else m
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            s, o = call(x)
    finally:
        torch._dynamo.reset()
    v, ys = torch.zeros(B, C, H, H, device=DEVICE), []
    for t in range(T):
        y, _, v = _threshold_out(x[t], v, th if made != "constant" else torch.tensor(1.0, device=DEVICE))
        ys.append(y)
    want = torch.full((T,), 2.0, device=DEVICE) if made == "constant" else (th * 2.0).expand(T, C, 1, 1)
    torch.testing.assert_close(o, want)
    torch.testing.assert_close(s, torch.stack(ys))
    if backend != "hop" and not compiled:  # the kernels cannot write that shape: the loop ran, and said why
        assert any("the fused kernels write every output and state in one shape" in str(w.message) for w in told)
