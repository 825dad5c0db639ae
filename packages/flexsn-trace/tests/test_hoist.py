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


def test_the_cut_graphs_keep_the_module_holding_the_step_graphs_constants() -> None:
    """A tensor constant of the step (``out[x < -1] = -1.0`` records one as ``get_attr``) stays readable in the loop
    graph: both new graphs have the step graph's owning module. Before, the loop graph had none, and the kernels
    refused the constant ("the graph has no module holding this constant": the neuron ran the eager loop) whenever a
    static input also had something to hoist."""

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = x.clone()
        out[x < -1.0] = -1.0
        return x + torch.atan2(x, w.abs() + 0.5), torch.tanh(out) + v * 0.0

    graph = generate_inference_graph(core, (torch.randn(6), torch.randn(6), torch.rand(1)))
    constants = [n for n in graph.nodes if n.op == "get_attr"]
    assert constants and graph.owning_module is not None  # the premise: the trace records a constant
    split = split_invariants(graph, [2])
    assert split.prologue is not None and split.prologue.owning_module is graph.owning_module
    assert split.loop.owning_module is graph.owning_module
    for node in split.loop.nodes:
        if node.op == "get_attr":
            assert isinstance(getattr(split.loop.owning_module, str(node.target)), torch.Tensor)
