"""The joint split's max-flow against networkx's ``minimum_cut`` (the reference it replaces)."""

from __future__ import annotations

import math

import networkx as nx  # type: ignore[import-untyped]
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from flexsn_trace.joint import flow_network, trace_joint
from flexsn_trace.mincut import UnboundedCut, source_side

#: steps whose networks have ties and long chains: a PLIF step (sigmoid of a scalar decay), a surrogate
#: spike, an adaptive threshold, a two-state CUBA step
CORES = {
    "plif": (lambda x, v, w: ((v + (x - v) * torch.sigmoid(w) >= 1.0).to(x.dtype), v + (x - v) * torch.sigmoid(w)), 3),
    "surrogate": (lambda x, v: (torch.sigmoid(4.0 * (v * 0.5 + x - 1.0)), (v * 0.5 + x) * 0.9), 2),
    "adaptive": (lambda x, v, a: (torch.sigmoid(v + x - 1.0 - a), (v + x) * torch.exp(-a), a * 0.9 + torch.tanh(v)), 3),
    "cuba": (lambda x, i, v: (torch.atan(v - 1.0), i * 0.8 + x, v * 0.9 + i * 0.8 + x), 3),
}


def _networkx_side(edges: list[tuple[str, str, float]], source: str = "source", sink: str = "sink") -> set[str]:
    g = nx.DiGraph()
    g.add_nodes_from([source, sink])
    for u, v, c in edges:
        cap = g[u][v]["capacity"] + c if g.has_edge(u, v) else c
        g.add_edge(u, v, capacity=cap)
    _, (reachable, _) = nx.minimum_cut(g, source, sink)
    return set(reachable)


@st.composite
def _networks(draw: st.DrawFn) -> list[tuple[str, str, float]]:
    """Random networks with integer-valued, tied and infinite capacities (ties are where cuts could differ)."""
    n = draw(st.integers(2, 12))
    names = ["source", "sink", *(f"v{k}" for k in range(n))]
    # no capacities near 0 beside ones near 1: networkx's preflow-push adds floats, and a flow of 1e-229 beside 1.0
    # rounds away, so its reference cut comes out wrong (see the test below); the joint networks carry byte counts
    cap = st.one_of(st.integers(0, 6).map(float), st.just(math.inf), st.floats(1e-3, 1e6, allow_nan=False))
    pairs = st.tuples(st.sampled_from(names), st.sampled_from(names), cap).filter(lambda e: e[0] != e[1])
    return draw(st.lists(pairs, max_size=40))


@settings(max_examples=300, deadline=None, derandomize=True)  # reproducible in CI, as the other property tests
@given(_networks())
def test_source_side_is_networkx_minimum_cut(edges: list[tuple[str, str, float]]) -> None:
    try:
        want = _networkx_side(edges)
    except nx.NetworkXUnbounded:
        with pytest.raises(UnboundedCut):
            source_side(edges, "source", "sink")
        return
    assert source_side(edges, "source", "sink") == want


def test_a_tiny_capacity_beside_unit_ones_cuts_exactly() -> None:
    """Found by a random example: the only minimum cut is the source's edge (capacity 1 against 2 + 8.9e-230);
    networkx's float flow put ``v0`` on the source side, ours does not."""
    edges = [("v1", "v0", math.inf), ("v1", "v2", math.inf), ("source", "v1", 1.0), ("v0", "sink", 8.904796335248062e-230), ("v2", "sink", 2.0)]
    assert source_side(edges, "source", "sink") == {"source"}


@pytest.mark.parametrize("name", list(CORES))
def test_joint_networks_cut_as_networkx_cuts_them(name: str) -> None:
    """On the joint graphs' own networks (float byte weights, distances), the same saved set as networkx."""
    fn, n = CORES[name]
    examples = [torch.randn(6, 5) for _ in range(n)]
    outs = fn(*[e.clone().requires_grad_() for e in examples])
    joint = trace_joint(fn, examples, [True] * n, outs)
    edges = flow_network(joint.graph, n, len(outs))
    assert any(c != math.inf for _, _, c in edges)
    assert source_side(edges, "source", "sink") == _networkx_side(edges)


def test_bad_networks_are_refused() -> None:
    with pytest.raises(ValueError, match="capacity must be >= 0"):
        source_side([("source", "a", -1.0)], "source", "sink")
    with pytest.raises(ValueError, match="capacity must be >= 0"):
        source_side([("source", "a", math.nan)], "source", "sink")
    with pytest.raises(ValueError, match="must differ"):
        source_side([], "s", "s")
    with pytest.raises(UnboundedCut):
        source_side([("source", "a", math.inf), ("a", "sink", math.inf), ("source", "sink", 1.0)], "source", "sink")
    assert source_side([], "source", "sink") == {"source"}
