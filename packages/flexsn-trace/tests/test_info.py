"""``extract_info`` / ``FlexSNInfo``.

The mapping is checked semantically: for every saved value, the tensor its
``SavedSource`` points at (an input at step t, the state before step t, or
a forward-kernel return) must equal the value the forward graph returns
in that slot, over a few unrolled steps.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
import torch
from torch import fx

from flexsn_trace import (
    FlexSNInfo,
    SavedSource,
    extract_info,
    generate_inference_graph,
    graph_output_nodes,
    placeholders,
    trace_training_graphs,
)
from flexsn_trace.testing import lif_core as lif, two_by_two_core as two


def saves_input_and_prev_state(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x * v, v * 0.5 + x  # d/dx needs v (previous state), d/dv needs x (input)


def saves_intermediate(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = torch.sigmoid(x + y + z + v)  # one value the backward needs, cheaper to save than the four it comes from
    return 2.0 * h, h * v


def output_is_state(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v * 0.5 + x
    return h, h


CORES: dict[str, tuple[Callable[..., Any], int, int, int]] = {
    "lif": (lif, 1, 1, 1),
    "two": (two, 2, 2, 2),
    "input+prev_state": (saves_input_and_prev_state, 1, 1, 1),
    "intermediate": (saves_intermediate, 3, 1, 1),
    "output-is-state": (output_is_state, 1, 1, 1),
}


def info_of(name: str) -> tuple[FlexSNInfo, fx.Graph]:
    core, ni, ns, no = CORES[name]
    graphs = trace_training_graphs(core, [torch.zeros(4) for _ in range(ni + ns)])
    return extract_info(graphs.fwd, ni, ns, no), graphs.fwd


@pytest.mark.parametrize("name", list(CORES))
def test_names_and_counts(name: str) -> None:
    core, ni, ns, no = CORES[name]
    info, fwd = info_of(name)
    rets = graph_output_nodes(fwd)
    assert (info.num_inputs, info.num_states, info.num_outputs) == (ni, ns, no)
    assert info.fwd_core_args == tuple(p.name for p in placeholders(fwd))
    assert info.fwd_core_returns == tuple(r.name for r in rets)  # type: ignore[union-attr]
    assert len(info.fwd_core_recipients) == len(rets) == len(set(info.fwd_core_recipients))
    # kernel returns: visible results first, then saved values, no duplicates
    assert info.fwd_kernel_returns[: no + ns] == info.fwd_core_returns[: no + ns]
    assert len(set(info.fwd_kernel_returns)) == len(info.fwd_kernel_returns)
    assert info.num_fwd_kernel_returns == len(info.fwd_kernel_returns)
    n_saved = len(rets) - no - ns
    assert len(info.c2k_return_mapping) == len(info.saved_sources) == n_saved
    for k, src in zip(info.c2k_return_mapping, info.saved_sources):
        assert isinstance(src, SavedSource)
        if src[0] == "return":
            assert k == src[1] and 0 <= k < info.num_fwd_kernel_returns
        else:
            assert k == -1 and src[0] in ("input", "prev_state")


def test_saved_source_kinds() -> None:
    info, _ = info_of("input+prev_state")
    assert set(map(tuple, info.saved_sources)) == {("input", 0), ("prev_state", 0)}
    assert info.c2k_return_mapping == (-1, -1)
    assert info.num_fwd_kernel_returns == 2  # nothing beyond the output and the state sequence

    info, _ = info_of("intermediate")
    assert any(src[0] == "return" and src[1] >= 2 for src in info.saved_sources)

    info, _ = info_of("output-is-state")
    assert info.saved_sources == () and info.num_fwd_kernel_returns == 2


@pytest.mark.parametrize("name", list(CORES))
def test_saved_sources_point_at_the_saved_values(name: str) -> None:
    """Unroll a few steps: each saved value equals what its SavedSource designates."""
    core, ni, ns, no = CORES[name]
    info, fwd = info_of(name)
    gm = fx.GraphModule(torch.nn.Module(), fwd)
    g = torch.Generator().manual_seed(0)
    states = [torch.randn(6, generator=g) for _ in range(ns)]
    kernel_seqs: list[list[torch.Tensor]] = [[] for _ in range(info.num_fwd_kernel_returns)]
    for t in range(4):
        xs = [torch.randn(6, generator=g) * 2 for _ in range(ni)]
        rets = gm(*xs, *states)
        by_name = dict(zip(info.fwd_core_returns, rets))
        for k, kname in enumerate(info.fwd_kernel_returns):
            kernel_seqs[k].append(by_name[kname])
        for s, src in enumerate(info.saved_sources):
            value = rets[no + ns + s]
            kind, slot = src
            if kind == "input":
                expected = xs[slot]
            elif kind == "prev_state":
                # state_seq[slot][t - 1], or the initial state at t == 0
                expected = kernel_seqs[no + slot][t - 1] if t > 0 else states[slot]
            else:
                expected = kernel_seqs[slot][t]
            torch.testing.assert_close(value, expected, msg=lambda m: f"saved {s} ({src}) at t={t}: {m}")
        states = list(rets[no : no + ns])


def test_inference_graph_has_no_saved_values() -> None:
    graph = generate_inference_graph(two, [torch.zeros(4) for _ in range(4)])
    info = extract_info(graph, 2, 2, 2)
    assert info.saved_sources == () and info.c2k_return_mapping == ()
    assert info.num_fwd_kernel_returns == 4


def test_info_is_hashable_and_comparable() -> None:
    a, _ = info_of("lif")
    b, _ = info_of("lif")
    assert a == b and hash(a) == hash(b)


@pytest.mark.parametrize(
    "counts, message",
    [((-1, 1, 1), "num_inputs must be a non-negative int"), ((1, 1, 1.5), "num_outputs must be a non-negative int"),
     ((2, 1, 1), "forward graph has 2 placeholders, expected num_inputs \\+ num_states = 3"),
     ((1, 1, 2), "returns 2 values, expected at least num_outputs \\+ num_states = 3")],
)
def test_extract_info_errors(counts: tuple[Any, ...], message: str) -> None:
    graph = generate_inference_graph(lif, (torch.zeros(4), torch.zeros(4)))
    with pytest.raises(ValueError, match=message):
        extract_info(graph, *counts)


def test_a_non_graph_return_is_rejected() -> None:
    g = fx.Graph()
    x = g.placeholder("x")
    g.output((g.call_function(torch.ops.aten.exp.default, (x,)), 1.0))
    with pytest.raises(ValueError, match="return 1 is 1.0, not a graph value"):
        extract_info(g, 1, 0, 2)


def test_reads_step_tells_results_made_from_static_inputs_or_constants_alone() -> None:
    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v * w + x
        return h, w * 2.0, torch.zeros_like(x) + w, h * 0.5, torch.tensor(1.0) + w * 0.0

    g = generate_inference_graph(core, (torch.rand(3), torch.rand(3), torch.rand(3)))
    info = extract_info(g, 1, 1, 4, num_static=1)
    # w alone, and a constant beside w (the state), keep their own shape in the loop; zeros_like(x) reads x
    assert info.reads_step == (True, False, True, True, False)
