"""Boolean-mask reads and writes rewritten as selects (flexsn_trace.masked), against autograd through the core.

The traced graphs are run as ``fx.GraphModule`` on random inputs (where the masks select some elements and not
others) and compared with the core itself and ``torch.autograd.grad`` through it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import fx

from flexsn_trace import generate_inference_graph, generate_joint_graph
from flexsn_trace.testing import masked_gradient_core, masked_step_core


def _run(graph: fx.Graph, *args: Any) -> Any:
    return fx.GraphModule(graph.owning_module or torch.nn.Module(), graph)(*args)


def _targets(graph: fx.Graph) -> set[str]:
    return {str(n.target) for n in graph.nodes if n.op == "call_function"}


def _inputs(n: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(4)
    return torch.randn(n, generator=g) * 3.0, torch.randn(n, generator=g) * 3.0


def _check_joint(core: Any) -> None:
    graph = generate_joint_graph(core, [torch.zeros(64), torch.zeros(64)])  # the inputs' size: a read's gradient is new_zeros(g, [n])
    assert not {"aten.index.Tensor", "aten.index_put.default"} & _targets(graph), _targets(graph)
    x, v = _inputs()
    xr, vr = x.clone().requires_grad_(), v.clone().requires_grad_()
    s, v1 = core(xr, vr)
    ts = torch.linspace(-1.0, 1.0, x.numel())
    tv = torch.linspace(0.5, -0.5, x.numel())
    want = torch.autograd.grad((s, v1), (xr, vr), (ts, tv))
    got = _run(graph, x, v, *(t for t, o in zip((ts, tv), (s, v1)) if o.requires_grad))
    torch.testing.assert_close(got[0], s.detach())
    torch.testing.assert_close(got[1], v1.detach())
    torch.testing.assert_close(got[2], want[0])
    torch.testing.assert_close(got[3], want[1])
    assert not any(torch.isnan(t).any() for t in got)


def test_a_gradient_assigned_through_masks_becomes_selects_with_autograds_values() -> None:
    _check_joint(masked_gradient_core)


def test_a_masked_write_in_the_step_and_its_gradient_become_selects_without_nan() -> None:
    """The forward's ``out[pos] = log1p(r[pos])`` and the gradient autograd recorded for it (a read's gradient is
    ``index_put(zeros, [pos], g, accumulate=True)``) both become selects; the whole-tensor ``log1p`` is nan or
    inf where nothing is selected, and none of it reaches a result."""
    _check_joint(masked_step_core)
    graph = generate_inference_graph(masked_step_core, [torch.zeros(8), torch.zeros(8)])
    assert "aten.index.Tensor" not in _targets(graph)
    x, v = _inputs()
    for got, want in zip(_run(graph, x, v), masked_step_core(x, v)):
        torch.testing.assert_close(got, want)


def test_a_masked_write_keeps_the_written_tensors_dtype() -> None:
    graph = generate_inference_graph(masked_step_core, [torch.zeros(8, dtype=torch.bfloat16)] * 2)
    x, v = (t.to(torch.bfloat16) for t in _inputs())
    for got, want in zip(_run(graph, x, v), masked_step_core(x, v)):
        assert got.dtype == want.dtype == torch.bfloat16
        torch.testing.assert_close(got, want)


def test_a_masked_read_used_elsewhere_is_left_for_the_lowering_to_refuse() -> None:
    """``r[pos].sum()``: the selected elements' count matters, so nothing is rewritten (the step stays unfusable)."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        r = v * 0.5 + x
        pos = r > 0
        out = torch.zeros_like(r)
        out[pos] = r[pos] * 2.0
        return out + r[pos].sum(), r

    graph = generate_inference_graph(core, [torch.zeros(8), torch.zeros(8)])
    assert {"aten.index.Tensor", "aten.index_put.default"} <= _targets(graph)
    x, v = _inputs()
    for got, want in zip(_run(graph, x, v), core(x, v)):
        torch.testing.assert_close(got, want)


def test_a_rewrite_whose_shapes_cannot_be_worked_out_leaves_the_graph_as_it_was(monkeypatch: Any) -> None:
    """An op without a meta kernel in the chain: nothing changes (the lowering then names ``aten.index``), and
    the graph still computes the core."""
    import flexsn_trace.masked as masked

    def fails(*_: Any) -> Any:
        raise NotImplementedError("no meta kernel")

    monkeypatch.setattr(masked, "_meta_call", fails)
    graph = generate_inference_graph(masked_step_core, [torch.zeros(8), torch.zeros(8)])
    assert {"aten.index.Tensor", "aten.index_put.default"} <= _targets(graph)
    x, v = _inputs()
    for got, want in zip(_run(graph, x, v), masked_step_core(x, v)):
        torch.testing.assert_close(got, want)


def test_a_mask_written_out_at_each_use_is_one_mask() -> None:
    """``y[(x > 0) & (x < 2)] = f(x[(x > 0) & (x < 2)])`` records the mask's ops twice: still one mask."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        r = v * 0.5 + x
        out = r * 1.0
        out[(r > 0) & (r < 2)] = torch.sqrt(r[(r > 0) & (r < 2)])
        return out, r

    graph = generate_inference_graph(core, [torch.zeros(8), torch.zeros(8)])
    assert "aten.index.Tensor" not in _targets(graph)
    x, v = _inputs()
    for got, want in zip(_run(graph, x, v), core(x, v)):
        torch.testing.assert_close(got, want)


def test_two_random_masks_are_not_one() -> None:
    """``rand_like(x) > 0.5`` recorded twice is two draws, two masks; ``x > 0.5`` recorded twice is one."""
    from flexsn_trace.masked import _same

    graph = fx.Graph()
    x = graph.placeholder("x")
    aten = torch.ops.aten
    drawn = [graph.call_function(aten.gt.Scalar, (graph.call_function(aten.rand_like.default, (x,)), 0.5)) for _ in range(2)]
    plain = [graph.call_function(aten.gt.Scalar, (graph.call_function(aten.abs.default, (x,)), 0.5)) for _ in range(2)]
    assert not _same(*drawn)
    assert _same(*plain)
    assert not _same(plain[0], graph.call_function(aten.gt.Scalar, (graph.call_function(aten.abs.default, (x,)), 0.25)))
