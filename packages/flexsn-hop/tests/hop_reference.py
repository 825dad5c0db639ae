"""Step functions and independent references shared by the flexsn_hop tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

Tensors = tuple[torch.Tensor, ...]


def lif_core(x: torch.Tensor, v: torch.Tensor) -> Tensors:
    """Hard-reset LIF: tau = 2, v_threshold = 1, v_reset = 0."""
    h = v + (x - v) / 2.0
    spike = (h >= 1.0).to(h.dtype)
    return spike, h * (1.0 - spike)


def lif_by_hand(x_seq: torch.Tensor, v0: torch.Tensor) -> Tensors:
    """The same LIF written out without any step function."""
    v = v0.clone()
    spikes, vs = [], []
    for t in range(x_seq.shape[0]):
        h = v + (x_seq[t] - v) / 2.0
        s = torch.where(h >= 1.0, torch.ones_like(h), torch.zeros_like(h))
        v = torch.where(s > 0, torch.zeros_like(h), h)
        spikes.append(s)
        vs.append(v)
    return torch.stack(spikes), torch.stack(vs)


def smooth_lif_core(x: torch.Tensor, v: torch.Tensor) -> Tensors:
    """Differentiable LIF (sigmoid spike, soft reset) for gradcheck."""
    h = v + (x - v) / 2.0
    spike = torch.sigmoid(4.0 * (h - 1.0))
    return spike, h * (1.0 - spike)


def two_by_two_core(x: torch.Tensor, y: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> Tensors:
    """2 inputs, 2 states, 2 outputs."""
    a_next = 0.9 * a + x
    b_next = 0.8 * b + y * torch.tanh(a_next)
    return a_next * b_next, a_next - b_next, a_next, b_next


def two_by_two_by_hand(xs: torch.Tensor, ys: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> Tensors:
    o1, o2, sa, sb = [], [], [], []
    for t in range(xs.shape[0]):
        a = 0.9 * a + xs[t]
        b = 0.8 * b + ys[t] * torch.tanh(a)
        o1.append(a * b)
        o2.append(a - b)
        sa.append(a)
        sb.append(b)
    return torch.stack(o1), torch.stack(o2), torch.stack(sa), torch.stack(sb)


def lifted_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> Tensors:
    """One state, two lifted tensors passed unchanged to every step."""
    v_next = 0.5 * v + x * w + bias
    return torch.tanh(v_next), v_next


def python_loop(
    core: Callable[..., Sequence[torch.Tensor]],
    num_outputs: int,
    input_seqs: Sequence[torch.Tensor],
    states: Sequence[torch.Tensor],
    lifted: Sequence[torch.Tensor] = (),
) -> tuple[Tensors, Tensors]:
    """Explicit loop: returns ``(output_seqs + state_seqs, final_states)``."""
    cur = tuple(states)
    outs: list[list[torch.Tensor]] = []
    seqs: list[list[torch.Tensor]] = []
    for t in range(input_seqs[0].shape[0]):
        res = core(*(x[t] for x in input_seqs), *cur, *lifted)
        if not outs:
            outs = [[] for _ in range(num_outputs)]
            seqs = [[] for _ in range(len(res) - num_outputs)]
        for buf, y in zip(outs, res[:num_outputs]):
            buf.append(y)
        cur = tuple(res[num_outputs:])
        for buf, s in zip(seqs, cur):
            buf.append(s)
    stacked = tuple(torch.stack(b) for b in outs) + tuple(torch.stack(b) for b in seqs)
    return stacked, cur


def assert_all_close(got: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], **kw: float) -> None:
    assert len(got) == len(expected), (len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape, (i, g.shape, e.shape)
        assert g.dtype == e.dtype, (i, g.dtype, e.dtype)
        torch.testing.assert_close(g, e, **kw)


class Recorder:
    """A ``torch.compile`` backend that keeps every FX graph Dynamo hands it and runs it as is."""

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: object) -> Callable[..., object]:
        self.graphs.append(gm)
        return gm.forward


def scan_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The ``flex_sn_scan`` calls in a captured graph."""
    from flexsn_hop import flex_sn_scan

    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target is flex_sn_scan]
