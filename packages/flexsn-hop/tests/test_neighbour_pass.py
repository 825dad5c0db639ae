"""``flexsn_hop.fuse_neighbours``: pointwise producers of a scan's inputs run inside its step.

The pass is applied here by a backend that runs it on Dynamo's graph and then
executes that graph eagerly (the rewritten ``flex_sn_scan`` on the fused
kernels); Inductor runs it the same way as its pre-grad pass (end to end in
``tests-integration/test_neighbour_fusion.py``). Every result is compared with
the same module run eagerly without the pass: outputs, every gradient,
BatchNorm's running statistics.
"""

from __future__ import annotations

import copy
import operator
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
import torch._dynamo
from torch import fx, nn

import flexsn_hop
from flexsn_hop import flex_sn_scan, fuse_neighbours
from flexsn_hop import neighbour_pass
from flexsn_runtime import FlexSNKernel
from flexsn_trace import ScanContract
from flexsn_trace.testing import assert_trained_alike, lif_core

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)
DEVICE = "cuda" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" else "cpu"
T, B, C = 3, 2, 4


@pytest.fixture(autouse=True)
def _fused_kernels() -> Iterator[None]:
    flexsn_hop.enable_fused_kernels(True)  # conftest clears the hook around every test
    flexsn_hop.enable_neighbour_fusion(True)  # the default, set in case a test left it off
    yield
    flexsn_hop.enable_fused_kernels(False)
    flexsn_hop.enable_neighbour_fusion(None)


class Neuron(nn.Module):
    """LIF on ``[T, B, ...]`` through the runtime's custom op (``kind="op"``) or ``flex_sn_scan`` (``"hop"``)."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.kernel = FlexSNKernel(lif_core, 1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.kind == "hop":
            return flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, final_state=True)[0]
        return self.kernel.run(ScanContract(1, 1, 1, (x,), (), (), True, True))[0]


class Block(nn.Module):
    """``conv -> BatchNorm2d -> (a pointwise tail) -> LIF`` with ``T`` flattened into the batch for the conv."""

    def __init__(self, kind: str, tail: str = "") -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, C, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(C)
        self.gain = nn.Parameter(torch.rand(C, 1, 1) + 0.5)
        self.sn = Neuron(kind)
        self.tail = tail

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x.flatten(0, 1)))
        if self.tail == "after":  # consumers of the spikes: a scale and a residual add
            return self.sn(y.unflatten(0, (x.shape[0], x.shape[1]))) * 0.5 + r
        if self.tail == "after_view":  # the same on the [T * B, ...] view, with a per-channel gain
            r_flat = r.flatten(0, 1)
            s = self.sn(y.unflatten(0, (x.shape[0], x.shape[1])))
            return s.flatten(0, 1) * self.gain + r_flat
        if self.tail == "residual":
            y = y + r.flatten(0, 1)
        elif self.tail == "gain":
            y = torch.relu(y * self.gain) * 2.0
        elif self.tail == "twice":  # the normalised tensor is needed elsewhere: nothing to gain
            return self.sn(y.unflatten(0, (x.shape[0], x.shape[1]))) + y.unflatten(0, (x.shape[0], x.shape[1]))
        return self.sn(y.unflatten(0, (x.shape[0], x.shape[1])))


class PassThenEager:
    """A ``torch.compile`` backend: :func:`fuse_neighbours` on Dynamo's graph, then run it eagerly."""

    def __init__(self) -> None:
        self.graphs: list[fx.GraphModule] = []
        self.rewritten: list[int] = []

    def __call__(self, gm: fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        self.rewritten.append(fuse_neighbours(gm.graph))
        self.graphs.append(gm)
        return gm.forward


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(T, B, 2, 6, 6, generator=g) * 3).to(DEVICE)
    r = torch.randn(T, B, C, 6, 6, generator=g).to(DEVICE)
    return x, r


def _compare(net: nn.Module, ref: nn.Module, backend: Any, grad: bool = True) -> None:
    x, r = _inputs()
    compiled = torch.compile(net, backend=backend, fullgraph=True)
    with torch.set_grad_enabled(grad):
        y, y_ref = compiled(x, r), ref(x, r)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    if grad:
        y.square().sum().backward()
        y_ref.square().sum().backward()
    assert_trained_alike(net, ref)


def _pair(kind: str, tail: str = "", train: bool = True) -> tuple[nn.Module, nn.Module]:
    torch.manual_seed(0)
    net = Block(kind, tail).to(DEVICE)
    with torch.no_grad():
        net.bn.running_mean.normal_()
        net.bn.running_var.uniform_(0.5, 2.0)
    net.train(train)
    return net, copy.deepcopy(net)


def _rewritten_once(kind: str, tail: str) -> fx.GraphModule:
    """Dynamo's graph of ``Block(kind, tail)`` after one rewrite, its training step checked against eager."""
    net, ref = _pair(kind, tail)
    backend = PassThenEager()
    _compare(net, ref, backend)
    assert backend.rewritten == [1]
    return backend.graphs[0]


@pytest.mark.parametrize("kind", ["op", "hop"])
@pytest.mark.parametrize("tail", ["", "residual", "gain"])
def test_batch_norm_and_pointwise_tail_run_inside_the_scan(kind: str, tail: str) -> None:
    """Training-mode BatchNorm (+ a residual add / a per-channel gain and ReLU): one scan, no normalised tensor."""
    gm = _rewritten_once(kind, tail)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert torch.nn.functional.batch_norm not in targets  # normalisation moved into the step
    assert torch.var_mean in targets  # the statistics stay outside
    (scan,) = [n for n in gm.graph.nodes if n.target is flex_sn_scan]
    body = getattr(gm, scan.args[0].target)
    body_targets = [n.target for n in body.graph.nodes]
    assert body_targets.count(torch.mul) >= 1 and torch.add in body_targets  # x * scale + shift
    expected_seqs = 2 if tail == "residual" else 1
    assert scan.args[1] == expected_seqs  # the conv output (and the residual) are the scan's sequences


@pytest.mark.parametrize("kind", ["op", "hop"])
def test_eval_batch_norm_and_inference(kind: str) -> None:
    """Running statistics (eval mode), with and without gradients."""
    net, ref = _pair(kind, train=False)
    _compare(net, ref, PassThenEager())
    net, ref = _pair(kind, train=False)
    _compare(net, ref, PassThenEager(), grad=False)


@pytest.mark.parametrize("kind", ["op", "hop"])
@pytest.mark.parametrize("tail", ["after", "after_view"])
def test_pointwise_consumers_of_the_spikes_run_inside_the_scan(kind: str, tail: str) -> None:
    """The scan returns the consumers' value: the spikes are never written."""
    gm = _rewritten_once(kind, tail)
    (scan,) = [n for n in gm.graph.nodes if n.target is flex_sn_scan]
    assert scan.args[1] == 2  # the conv output and the residual r are the scan's sequences
    outer = [n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")]
    assert "mul" not in outer and torch.mul not in outer and "add" not in outer  # nothing pointwise left after it
    body = getattr(gm, scan.args[0].target)
    body_ops = [n.target for n in body.graph.nodes if n.op == "call_function"]
    assert sum(t in (torch.mul, torch.add, operator.mul, operator.add) for t in body_ops) >= 4  # BN and the tail


def test_a_value_read_elsewhere_is_left_alone() -> None:
    net, ref = _pair("op", "twice")
    backend = PassThenEager()
    _compare(net, ref, backend)
    assert backend.rewritten == [0]


def test_disabled_by_switch_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    net, ref = _pair("op")
    flexsn_hop.enable_neighbour_fusion(False)
    backend = PassThenEager()
    _compare(net, ref, backend)
    assert backend.rewritten == [0]
    flexsn_hop.enable_neighbour_fusion(True)
    monkeypatch.setenv("FLEXSN_FUSE_NEIGHBOURS", "0")  # wins over the switch
    assert not flexsn_hop.neighbour_fusion_enabled()
    monkeypatch.setenv("FLEXSN_FUSE_NEIGHBOURS", "1")
    assert flexsn_hop.neighbour_fusion_enabled()
    with pytest.raises(TypeError, match="True, False or None"):
        flexsn_hop.enable_neighbour_fusion("no")  # type: ignore[arg-type]


@pytest.mark.parametrize("cudagraphs", [False, True])
def test_by_default_every_compiled_graph_is_rewritten(cudagraphs: bool) -> None:
    """The default (``None``): on, with CUDA graphs (``mode="reduce-overhead"``) and without."""
    from torch._inductor import config

    flexsn_hop.enable_neighbour_fusion(None)
    with config.patch({"triton.cudagraphs": cudagraphs}):
        assert flexsn_hop.neighbour_fusion_enabled()
        torch._dynamo.reset()
        net, ref = _pair("op")
        backend = PassThenEager()
        _compare(net, ref, backend)
        assert backend.rewritten == [1]


@pytest.mark.parametrize("kind", ["op", "hop"])
@pytest.mark.parametrize("tail", ["", "residual", "after_view"])
def test_symbolic_batch_sizes_are_fused_too(kind: str, tail: str) -> None:
    """A symbolic batch size (as after a second one, or ``dynamic=True``): the shapes the pass compares are known
    equal to the shape environment, so the BatchNorm (and a residual add, or the consumers of the spikes' ``[T * B,
    ...]`` view) run inside the scan as with concrete sizes; training matches eager. Before, symbolic sizes left
    the graph as it was."""
    net, ref = _pair(kind, tail)
    backend = PassThenEager()
    x, r = _inputs()
    torch._dynamo.mark_dynamic(x, 1)
    torch._dynamo.mark_dynamic(r, 1)
    compiled = torch.compile(net, backend=backend, fullgraph=True)
    y, y_ref = compiled(x, r), ref(x, r)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    y.square().sum().backward()
    y_ref.square().sum().backward()
    assert_trained_alike(net, ref)
    assert backend.rewritten == [1]
    (gm,) = backend.graphs
    assert any(isinstance(n.meta.get("example_value"), torch.Tensor) and not all(
        type(d) is int for d in n.meta["example_value"].shape) for n in gm.graph.nodes)  # the sizes were symbolic


def test_a_failed_rewrite_leaves_the_graph_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error half-way (after the statistics and running-stat updates were emitted) is undone, with a warning."""

    def broken(self: Any, p: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(neighbour_pass._Rewrite, "_emit_prologue", broken)
    net, ref = _pair("op")
    backend = PassThenEager()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compare(net, ref, backend)  # running statistics updated once, as eagerly
    assert backend.rewritten == [0]
    assert any("boom" in str(w.message) and "stays unfused" in str(w.message) for w in caught)


def test_install_keeps_a_pass_configured_before() -> None:
    from torch._inductor import config

    seen: list[fx.Graph] = []
    with config.patch(pre_grad_custom_pass=seen.append):  # restored afterwards (config modules refuse monkeypatch's undo)
        assert flexsn_hop.install_neighbour_pass()
        installed = config.pre_grad_custom_pass
        assert isinstance(installed, neighbour_pass._NeighbourPass)
        assert flexsn_hop.install_neighbour_pass() and config.pre_grad_custom_pass is installed  # once
        graph = fx.symbolic_trace(nn.ReLU()).graph
        installed(graph)
        assert seen == [graph]
    assert isinstance(config.pre_grad_custom_pass, neighbour_pass._NeighbourPass)


def _smooth_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A leaky integrator with a sigmoid readout: no threshold, so bf16 rounding flips no spike."""
    h = v + (x - v) * 0.5
    return torch.sigmoid(h), h


class SmoothBlock(nn.Module):
    """bf16 conv output -> BatchNorm2d with fp32 parameters -> a smooth neuron (runtime custom op)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, C, 3, padding=1, bias=False).to(torch.bfloat16)
        self.bn = nn.BatchNorm2d(C)
        self.kernel = FlexSNKernel(_smooth_core, 1, 1, 1)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x.flatten(0, 1))).unflatten(0, (x.shape[0], x.shape[1]))
        return self.kernel.run(ScanContract(1, 1, 1, (y,), (), (), True, True))[0]


def test_bf16_sequences_with_fp32_batch_norm_parameters() -> None:
    """The statistics in fp32 (as BatchNorm computes them), the normalised step back in bf16."""
    torch.manual_seed(0)
    net = SmoothBlock().to(DEVICE)
    ref = copy.deepcopy(net)
    x, r = _inputs()
    x = x.to(torch.bfloat16)
    backend = PassThenEager()
    y = torch.compile(net, backend=backend, fullgraph=True)(x, r)
    y_ref = ref(x, r)
    assert backend.rewritten == [1] and y.dtype == y_ref.dtype == torch.bfloat16
    torch.testing.assert_close(y, y_ref, rtol=2e-2, atol=2e-2)
    y.float().square().sum().backward()
    y_ref.float().square().sum().backward()
    for p, p_ref in zip(net.parameters(), ref.parameters()):
        scale = float(p_ref.grad.abs().max())  # type: ignore[union-attr]
        torch.testing.assert_close(p.grad, p_ref.grad, rtol=3e-2, atol=3e-2 * scale)
    torch.testing.assert_close(net.bn.running_mean, ref.bn.running_mean, rtol=1e-3, atol=1e-4)
