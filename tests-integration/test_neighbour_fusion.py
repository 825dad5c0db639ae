"""Neurons fused with their neighbours under ``torch.compile`` (Inductor), against eager.

A spiking conv block (``Conv2d -> BatchNorm2d -> neuron``, ``T`` flattened
into the batch for the conv) and a residual block (``neuron(bn(conv(x)) +
shortcut)``) compiled with Inductor's default compiler: the BatchNorm's
normalisation and the residual add run inside the neuron's scan
(:func:`flexsn_hop.fuse_neighbours`, Inductor's pre-grad pass). Checked
against the same network run eagerly: outputs, every gradient, BatchNorm's
running statistics (fp32, 1e-5); on the AOTAutograd forward graph Inductor
compiles, the scan reads the convolution output itself (with the pass
turned off, it reads the normalised tensor). Neurons: ``LIFNode`` (backends ``triton`` and ``hop``) and
``ParametricLIFNode`` (a captured learnable decay, so the scan's statics mix
the neuron's parameter with the BatchNorm's).
"""

from __future__ import annotations

import contextlib
import copy
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
import torch._dynamo
from torch import nn
from torch._dynamo.utils import counters

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)

import flexsn_hop  # noqa: E402
from flexsn_nn.neurons import LIFNode  # noqa: E402
from flexsn_nn.neurons_learnable import ParametricLIFNode  # noqa: E402
from flexsn_nn.surrogate import Sigmoid  # noqa: E402
from flexsn_trace.testing import assert_trained_alike  # noqa: E402

DEV = torch.device("cuda" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" else "cpu")
T, N, C = 3, 2, 4


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    from torch._inductor import config

    torch._dynamo.reset()
    counters.clear()
    flexsn_hop.enable_neighbour_fusion(True)  # the default, set in case a test left it off
    with config.patch(force_disable_caches=True):  # the AOT graphs are recorded when Inductor compiles them
        yield
    flexsn_hop.enable_neighbour_fusion(None)


def _neuron(kind: str) -> nn.Module:
    if kind == "plif":
        return ParametricLIFNode(init_tau=2.0, surrogate_function=Sigmoid(), step_mode="m")
    return LIFNode(tau=2.0, surrogate_function=Sigmoid(), step_mode="m", backend=kind)


class ConvBlock(nn.Module):
    """``[T, N, 2, 6, 6] -> conv -> bn -> (+ shortcut) -> neuron -> [T, N, C, 6, 6]``."""

    def __init__(self, kind: str, residual: bool, after: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, C, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(C)
        self.sn = _neuron(kind)
        self.residual, self.after = residual, after

    def forward(self, x: torch.Tensor, shortcut: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x.flatten(0, 1)))
        if self.residual:
            y = y + shortcut.flatten(0, 1)
        out: torch.Tensor = self.sn(y.unflatten(0, (x.shape[0], x.shape[1])))
        if self.after:  # SEW-ResNet's ADD connection: the spikes plus the shortcut
            out = out + shortcut
        return out


class AotRecorder:
    """Inductor's compiler, recording the AOTAutograd graphs it compiles (forward first)."""

    def __init__(self) -> None:
        self.aot: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        def inner(graph: torch.fx.GraphModule, inputs: Any, **kwargs: Any) -> Any:
            self.aot.append(graph)
            return compile_fx_inner(graph, inputs, **kwargs)

        return compile_fx(gm, example_inputs, inner_compile=inner)  # type: ignore[no-any-return]


def _reset(net: nn.Module) -> None:
    for m in net.modules():
        if hasattr(m, "reset") and m is not net:
            m.reset()


def _channels_last(t: torch.Tensor) -> torch.Tensor:
    """``[T, N, C, H, W]`` in the memory of a channels-last ``[T * N, C, H, W]`` batch."""
    return t.flatten(0, 1).contiguous(memory_format=torch.channels_last).view(t.shape)


def _run(kind: str, residual: bool, grad: bool, after: bool = False, channels_last: bool = False) -> AotRecorder:
    torch.manual_seed(0)
    net = ConvBlock(kind, residual, after).to(DEV)
    if channels_last:
        net = net.to(memory_format=torch.channels_last)
    ref = copy.deepcopy(net)
    g = torch.Generator().manual_seed(2)
    x = (torch.randn(T, N, 2, 6, 6, generator=g) * 3).to(DEV)
    shortcut = torch.randn(T, N, C, 6, 6, generator=g).to(DEV)
    if channels_last:
        x, shortcut = _channels_last(x), _channels_last(shortcut)
    recorder = AotRecorder()
    compiled = torch.compile(net, backend=recorder, fullgraph=True)
    for step in range(2):  # a second call (after reset) reuses the compiled graph
        _step_both(compiled, net, ref, (x, shortcut), grad)
    assert_trained_alike(net, ref)
    return recorder


def _step_both(compiled: Callable[..., torch.Tensor], net: nn.Module, ref: nn.Module, args: tuple[torch.Tensor, ...],
               grad: bool) -> None:
    """One step of the compiled network and of its eager copy from reset states: outputs equal, then (``grad``)
    both backwards, whose gradients accumulate for :func:`assert_trained_alike`."""
    _reset(net), _reset(ref)
    with torch.set_grad_enabled(grad):
        y, y_ref = compiled(*args), ref(*args)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    if grad:
        y.square().sum().backward()
        y_ref.square().sum().backward()


@pytest.mark.parametrize("kind", ["triton", "hop", "plif"])
@pytest.mark.parametrize("grad", [True, False], ids=["training", "inference"])
def test_a_second_shape_fuses_too(kind: str, grad: bool) -> None:
    """A second ``T`` and batch size: Dynamo compiles again with both symbolic, and that graph runs the BatchNorm and
    the residual add inside the scan as the first did; a third shape reuses it. Results, gradients and running
    statistics are eager's throughout.

    Before, the pass required concrete sizes and left such a graph as it was (as it still does where the shape
    environment cannot prove what it needs), so a network lost its fusion at an epoch's smaller last batch, or in
    evaluation at another batch size. (``dynamic=True`` would also make the spatial sizes symbolic, which
    Inductor's CPU layout choice for the convolution's input cannot order in torch 2.13, with or without FlexSN.)
    """
    torch.manual_seed(0)
    net = ConvBlock(kind, True).to(DEV)
    ref = copy.deepcopy(net)
    recorder = AotRecorder()
    compiled = torch.compile(net, backend=recorder, fullgraph=True)
    g = torch.Generator().manual_seed(5)
    # sizes unlike every other size of the block (Dynamo gives equal sizes one symbol), each T past one checkpoint
    # row, and T * N >= 16 (the convolution's own fake implementation guards on that product)
    for t, n in ((5, 7), (7, 9), (9, 5)):
        x = (torch.randn(t, n, 2, 6, 6, generator=g) * 3).to(DEV)
        shortcut = torch.randn(t, n, C, 6, 6, generator=g).to(DEV)
        _step_both(compiled, net, ref, (x, shortcut), grad)
    assert_trained_alike(net, ref)
    assert counters["stats"]["unique_graphs"] == 2  # the first shape's, then one with T and the batch size symbolic
    assert counters["flexsn"]["scans_fused"] == 2 and counters["flexsn"]["ops_absorbed"] == 4
    assert all(_scan_reads_conv(gm) for gm in recorder.aot[::2 if grad else 1])  # the forward graphs


class DenseBlock(nn.Module):
    """``[T, N, 6] -> linear -> BatchNorm1d -> neuron -> * 0.5``: the feature-layer form of :class:`ConvBlock`."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 8, bias=False)  # a bias before BatchNorm gets a zero gradient: only rounding to compare
        self.bn = nn.BatchNorm1d(8)
        self.sn = _neuron(kind)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.fc(x.flatten(0, 1))).view(x.shape[0], x.shape[1], 8)
        out: torch.Tensor = self.sn(y) * 0.5
        return out


@pytest.mark.parametrize("kind", ["triton", "hop", "plif"])
def test_dynamic_true_fuses_on_the_kernels(kind: str) -> None:
    """``torch.compile(dynamic=True)``: every size symbolic from the first call; the BatchNorm and the scale run
    inside the scan on the fused kernels (no fallback warning: a ``backend="hop"`` body is inlined into the fused
    step, where the kernels read its lifted floats and sizes), one graph for three shapes, training as eager."""
    torch.manual_seed(0)
    net = DenseBlock(kind).to(DEV)
    ref = copy.deepcopy(net)
    compiled = torch.compile(net, fullgraph=True, dynamic=True)
    g = torch.Generator().manual_seed(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a scan on the eager loop says so with one
        for t, n in ((5, 7), (7, 9), (9, 5)):
            _step_both(compiled, net, ref, (torch.randn(t, n, 6, generator=g).to(DEV),), True)
    assert_trained_alike(net, ref)
    assert counters["stats"]["unique_graphs"] == 1
    assert counters["flexsn"]["scans_fused"] >= 1 and counters["flexsn"]["ops_absorbed"] >= 2


def _scan_reads_conv(gm: torch.fx.GraphModule) -> bool:
    """Whether a ``flexsn::*`` node of ``gm`` takes the convolution output (through views) as a sequence."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and str(n.target).startswith("flexsn."):
            src = n.args[1][0]
            while str(src.target).startswith("aten.view") or str(src.target).startswith("aten.reshape"):
                src = src.args[0]
            return str(src.target).startswith("aten.convolution")
    raise AssertionError("no flexsn op in the graph")


@pytest.mark.parametrize("kind", ["triton", "hop", "plif"])
@pytest.mark.parametrize("residual", [False, True], ids=["bn", "bn+residual"])
def test_training_step_fused_with_batch_norm(kind: str, residual: bool) -> None:
    recorder = _run(kind, residual, grad=True)
    assert counters["flexsn"]["scans_fused"] == 1
    assert _scan_reads_conv(recorder.aot[0])  # the normalised (and summed) tensor is never materialised


@pytest.mark.parametrize("kind", ["triton", "plif"])
def test_spikes_plus_shortcut_fused_as_well(kind: str) -> None:
    """A consumer of the spikes (``s + shortcut``) runs inside the scan too: BatchNorm before, the add after."""
    _run(kind, False, grad=True, after=True)
    assert counters["flexsn"]["scans_fused"] == 1 and counters["flexsn"]["ops_absorbed"] == 2


def test_inference_fused_with_batch_norm() -> None:
    recorder = _run("triton", False, grad=False)
    assert counters["flexsn"]["scans_fused"] == 1
    assert _scan_reads_conv(recorder.aot[0])


def _scan_strides(gm: torch.fx.GraphModule) -> tuple[int, ...]:
    """The strides the compiled graph plans for the first ``flexsn::*`` node's first output (its fake value)."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and str(n.target).startswith("flexsn."):
            return tuple(n.meta["val"][0].stride())
    raise AssertionError("no flexsn op in the graph")


@pytest.mark.parametrize("kind", ["triton", "hop", "plif"])
@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_a_channels_last_network_keeps_its_layout_through_the_scan(kind: str, fuse: bool) -> None:
    """A channels-last network: the scan reads the convolution's memory as it is and writes its spikes alike."""
    flexsn_hop.enable_neighbour_fusion(fuse)
    recorder = _run(kind, True, grad=True, channels_last=True)
    want = _channels_last(torch.empty(T, N, C, 6, 6)).stride()
    assert _scan_strides(recorder.aot[0]) == want  # planned channels-last: no transposing copies around it
    assert counters["flexsn"]["scans_fused"] == int(fuse)


def test_switched_off_keeps_the_batch_norm() -> None:
    flexsn_hop.enable_neighbour_fusion(False)
    recorder = _run("triton", False, grad=True)
    assert counters["flexsn"]["scans_fused"] == 0
    assert not _scan_reads_conv(recorder.aot[0])  # the scan reads the normalised tensor (the check can fail)


@pytest.mark.skipif(not torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1", reason="CUDA graphs need a GPU")
def test_reduce_overhead_fuses_by_default_and_replays_like_eager() -> None:
    """``mode="reduce-overhead"``: the pass runs by default; three replayed training steps equal eager ones."""
    flexsn_hop.enable_neighbour_fusion(None)
    torch.manual_seed(0)
    net = ConvBlock("triton", True).to(DEV)
    ref = copy.deepcopy(net)
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(T, N, 2, 6, 6, generator=g) * 3).to(DEV)
    shortcut = torch.randn(T, N, C, 6, 6, generator=g).to(DEV)
    compiled = torch.compile(net, mode="reduce-overhead")
    for _ in range(3):  # warm-up, recording, replay
        _reset(net), _reset(ref)
        # gradients are graph outputs, overwritten by the next replay: no accumulation across steps
        net.zero_grad(set_to_none=True), ref.zero_grad(set_to_none=True)
        torch.compiler.cudagraph_mark_step_begin()
        y, y_ref = compiled(x, shortcut), ref(x, shortcut)
        torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
        y.square().sum().backward()
        y_ref.square().sum().backward()
        assert_trained_alike(net, ref)
    assert counters["flexsn"]["scans_fused"] == 1


def _weird(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A core the kernels cannot lower (``cumsum``): the rewritten scan falls back to the loop, with a warning."""
    h = v + torch.cumsum(x, -1) * 0.1
    return torch.sigmoid(h), h


class MoreShapes(nn.Module):
    """BatchNorm into a 2-input core (the second input scaled), into state sequences, or into a core that falls back."""

    def __init__(self, case: str) -> None:
        super().__init__()
        from flexsn_nn import FlexSN
        from flexsn_trace.testing import two_by_two_core

        self.case = case
        self.conv = nn.Conv2d(2, C, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(C)
        if case == "2x2":
            self.sn = FlexSN(two_by_two_core, 2, 2, 2, step_mode="m")
        elif case == "state_seqs":
            self.sn = _neuron("triton")
            self.sn.store_state_seqs = True
        else:
            self.sn = FlexSN(_weird, 1, 1, 1, step_mode="m", backend="hop")

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x.flatten(0, 1))).unflatten(0, (x.shape[0], x.shape[1]))
        if self.case == "2x2":
            a, b = self.sn(y, r * 2.0)
            out: torch.Tensor = a + b
            return out
        return self.sn(y)  # type: ignore[no-any-return]


@pytest.mark.parametrize("case", ["2x2", "state_seqs", "fallback"])
def test_two_inputs_state_sequences_and_a_core_that_falls_back(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass on Dynamo's graph, run eagerly (no Inductor): results and gradients as eager, one rewrite each."""
    # flex_sn_scan's fallback warning is shown once per reason and process: forget the earlier tests' ones
    monkeypatch.setattr(flexsn_hop.runtime_fusion, "_WARNED", set())
    rewritten: list[int] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        rewritten.append(flexsn_hop.fuse_neighbours(gm.graph))
        return gm.forward

    torch.manual_seed(0)
    net = MoreShapes(case).to(DEV)
    ref = copy.deepcopy(net)
    g = torch.Generator().manual_seed(4)
    x = (torch.randn(T, N, 2, 6, 6, generator=g) * 3).to(DEV)
    r = torch.randn(T, N, C, 6, 6, generator=g).to(DEV)
    with pytest.warns(RuntimeWarning, match="cumsum") if case == "fallback" else contextlib.nullcontext():
        y = torch.compile(net, backend=backend, fullgraph=True)(x, r)
    y_ref = ref(x, r)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    y.square().sum().backward()
    y_ref.square().sum().backward()
    assert_trained_alike(net, ref)
    assert rewritten == [1]
