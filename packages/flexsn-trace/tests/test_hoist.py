"""Loop invariants hoisted out of a step graph: the prologue computes what depends on static inputs
alone, and prologue + loop compute what the step graph computes."""

from __future__ import annotations

import torch
from torch import fx

from flexsn_trace import generate_inference_graph, split_invariants


def plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    s = (h >= th * 2.0).to(h)
    return s, h * (1.0 - s) + torch.exp(th) * 0.0


def _run(graph: fx.Graph, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
    out = fx.GraphModule(torch.nn.Module(), graph)(*args)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def test_the_prologue_holds_the_static_only_ops_and_the_parts_compose() -> None:
    examples = tuple(torch.rand(6) for _ in range(4))
    graph = generate_inference_graph(plif, examples)
    split = split_invariants(graph, [2, 3])
    assert split.prologue is not None and split.num_invariants == 3  # sigmoid(w), th * 2, exp(th) * 0
    pro_ops = {str(n.target) for n in split.prologue.nodes if n.op == "call_function"}
    loop_ops = {str(n.target) for n in split.loop.nodes if n.op == "call_function"}
    assert any("sigmoid" in op for op in pro_ops) and not any("sigmoid" in op or "exp" in op for op in loop_ops)
    x, v, w, th = (torch.randn(6) for _ in range(4))
    invariants = _run(split.prologue, w, th)
    for a, b in zip(_run(split.loop, x, v, w, th, *invariants), _run(graph, x, v, w, th)):
        torch.testing.assert_close(a, b)


def test_nothing_to_hoist_keeps_the_graph() -> None:
    graph = generate_inference_graph(lambda x, v, w: (x + w, v * w), tuple(torch.rand(3) for _ in range(3)))
    split = split_invariants(graph, [2])
    assert split.prologue is None and split.loop is graph and split.num_invariants == 0
