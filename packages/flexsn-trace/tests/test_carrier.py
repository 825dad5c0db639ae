"""The carrier rewrite (``flexsn_trace.carrier``): one saved sequence restates the states and recovers
the inputs, and the rewritten backward step equals autograd through the step, guard lanes included."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch
from torch import fx

from flexsn_trace import trace_training_graphs

@pytest.fixture(autouse=True)
def _saved_value_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The carrier is a saved-value pair: with recomputation on (the default) a PLIF step recomputes instead
    (:mod:`flexsn_trace.recompute`), so these tests trace with it off."""
    monkeypatch.setenv("FLEXSN_RECOMPUTE", "0")



def spike(x: torch.Tensor) -> torch.Tensor:
    """Heaviside forward, sigmoid(4x) surrogate backward."""
    s = torch.sigmoid(4.0 * x)
    return (x >= 0).to(x) + (s - s.detach())


def plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def shifted_soft(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + ((x - th + 1.0) - v) / (1.0 + torch.exp(-w))  # a division on the chain, and an add with a static
    s = spike(h - th)
    return s, h - s * th


def with_abs(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    s, v2 = plif(x, v, w)
    return s * torch.abs(x), v2  # abs' gradient reads sign(x): a recovered x would reach a jump


def state_times_input(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v * x + w  # x is multiplied by a state: not inverted
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def _run(graph: fx.Graph, *args: torch.Tensor) -> tuple[Any, ...]:
    out = fx.GraphModule(torch.nn.Module(), graph)(*args)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


N = 64


def _examples(statics: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    x, v = torch.randn(N, generator=g) * 1.5, torch.rand(N, generator=g)
    # decays from sigmoid(-7) (read back: below the guard) to sigmoid(3)
    w = torch.linspace(-7.0, 3.0, N)
    th = torch.full((N,), 0.9)
    return [x, v, w, th][: 2 + statics]


@pytest.mark.parametrize("core,statics", [(plif, 1), (shifted_soft, 2)], ids=["plif", "shifted-soft"])
def test_the_rewritten_backward_equals_autograd_through_the_step(core: Callable[..., Any], statics: int) -> None:
    ex = _examples(statics)
    graphs = trace_training_graphs(core, ex, num_inputs=1, num_static=statics)
    carrier = graphs.carrier
    assert carrier is not None and carrier.restated == (0,) and carrier.recovered == (0,)
    assert carrier.guard is not None
    s, v_new, c = _run(graphs.fwd, *ex)
    # the forward stores one carrier; the state after the step is restated from it exactly
    assert torch.equal(_run(carrier.restate, c, *ex[2:])[0], v_new)
    (guard,) = _run(carrier.guard, *ex[2:])
    assert guard.dtype == torch.bool and 0 < int(guard.sum()) < N  # both kinds of lanes
    x = ex[0]
    fallback = torch.where(guard, torch.zeros_like(x), x)  # what the kernel reads: nothing where the guard holds
    g = torch.Generator().manual_seed(4)
    gs, gv = torch.randn(N, generator=g), torch.randn(N, generator=g)
    grads = _run(graphs.bwd, c, ex[1], fallback, guard, *ex[2:], gs, gv)

    leaves = [e.clone().requires_grad_() for e in ex]
    ys, vs = core(*leaves)
    torch.autograd.backward([ys, vs], [gs, gv])
    for got, leaf in zip(grads, leaves):
        assert leaf.grad is not None
        torch.testing.assert_close(got.reshape(leaf.shape), leaf.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "core,statics", [(with_abs, 1), (state_times_input, 1), (lif, 0)], ids=["jump", "state-multiplier", "one-saved"]
)
def test_no_carrier_where_it_would_round_a_jump_divide_by_a_state_or_save_nothing(core: Callable[..., Any], statics: int) -> None:
    graphs = trace_training_graphs(core, _examples(statics), num_inputs=1, num_static=statics)
    assert graphs.carrier is None


def test_flexsn_carrier_0_keeps_the_saved_sequences(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEXSN_CARRIER", "0")
    graphs = trace_training_graphs(plif, _examples(1), num_inputs=1, num_static=1)
    assert graphs.carrier is None and len(graphs.bwd.find_nodes(op="placeholder")) == 3 + 2  # x, v, w; two tangents


def test_a_copied_constant_reads_its_own_tensor_not_one_of_the_same_name() -> None:
    """``copy_node`` carries a ``get_attr`` node's tensor into the destination graph's module under a name of its own:
    the forward's and the backward's modules each number their constants ``_tensor_constant0``, and a forward node
    copied into a backward graph must keep reading the forward's."""
    from flexsn_trace.saved import copy_node

    def module_with(value: float) -> fx.GraphModule:
        root = torch.nn.Module()
        root.register_buffer("_tensor_constant0", torch.tensor(value))
        g = fx.Graph()
        g.output(g.get_attr("_tensor_constant0"))
        return fx.GraphModule(root, g)

    fwd, bwd = module_with(-1.0), module_with(7.0)
    node = next(n for n in fwd.graph.nodes if n.op == "get_attr")
    into_bwd = copy_node(bwd.graph, node, lambda a: a)
    assert getattr(bwd, str(into_bwd.target)).item() == -1.0 and bwd._tensor_constant0.item() == 7.0
    fresh = fx.Graph()
    into_fresh = copy_node(fresh, node, lambda a: a)
    assert fresh.owning_module is not None and getattr(fresh.owning_module, str(into_fresh.target)).item() == -1.0
    same = copy_node(fwd.graph, node, lambda a: a)  # the same module: the same name, nothing carried
    assert same.target == node.target
