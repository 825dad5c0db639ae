"""CUDA graphs: nothing an op allocates outlives its call (the compiled path keeps no tensor between
calls), ``reset()`` runs no tensor op, and, on a GPU, ``torch.compile(mode="reduce-overhead")`` and
``torch.cuda.graph`` capture of training steps give the eager results."""

from __future__ import annotations

import functools
import gc
import warnings
from collections.abc import Iterator

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from flexsn_nn import FlexSN, LIFNode, ParametricLIFNode, graph_capture
from flexsn_runtime import run_inference, run_training
from flexsn_runtime import step_buffers as step_buffers_module
from flexsn_trace.testing import lif_core

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")


@pytest.fixture(autouse=True)
def _no_graph_garbage() -> Iterator[None]:
    """Collect the earlier tests' cyclic garbage before each test, outside any capture.

    ``torch.cuda.make_graphed_callables`` leaves its graphs in a reference cycle (the module's
    patched ``forward`` closes over the module), and ``torch.cuda.graph`` collects before a capture
    only with ``torch.compiler.config.force_cudagraph_gc`` (off by default; ``torch/cuda/graphs.py``).
    Python's collector could then run inside a later test's capture and free an old graph there
    (``CUDAGraph::reset``: "operation not permitted when stream is capturing"), which the default
    "global" capture mode forbids: that capture failed, and the CUDA generator, left in capture state,
    failed every later test of the process ("Offset increment outside graph capture").
    """
    if torch.cuda.is_available():
        gc.collect()
    yield


class CountOps(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def test_the_custom_ops_keep_no_tensor_between_calls() -> None:
    """What torch.compile runs (CUDA-graph trees included) allocates per call: no process-wide cache grows."""
    m = FlexSN(lif_core, 1, 1, 1)
    handle = m.kernel.handle
    assert handle is not None
    step_buffers_module._CACHE.clear()
    x = torch.rand(5, 3, 4, device=DEVICE)
    out = run_inference(handle, [x], True, tracing=True)  # the flexsn::inference op; initial state omitted
    xg = x.clone().requires_grad_()
    y, v = run_training(handle, [xg], True, tracing=True)[:2]  # flexsn::training, then flexsn::backward
    y.sum().backward()  # no gradient for v: the final-state gradient is zeros made in the op
    assert len(step_buffers_module._CACHE) == 0
    assert out[0].shape == x.shape and xg.grad is not None


def test_reset_runs_no_tensor_op() -> None:
    m = LIFNode(step_mode="m")
    m(torch.rand(4, 6, device=DEVICE))
    with CountOps() as counter:
        m.reset()
    assert counter.ops == [] and m.states == []


def assert_same_grads(ref: torch.nn.Module, net: torch.nn.Module, label: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """``net``'s parameter gradients equal ``ref``'s (same architecture), each named with ``label`` on failure."""
    for (n, a), b in zip(ref.named_parameters(), net.parameters()):
        torch.testing.assert_close(b.grad, a.grad, rtol=rtol, atol=atol, msg=lambda m: f"{label}, {n}: {m}")


#: multi-step neurons on the default backend (the neurons' default step mode is SpikingJelly's "s")
_LIF = functools.partial(LIFNode, step_mode="m")
_PLIF = functools.partial(ParametricLIFNode, step_mode="m")


class Net(torch.nn.Module):
    def __init__(self, neuron: torch.nn.Module) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)
        self.sn = neuron

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.sn.reset()
        return self.sn(self.fc(x)).mean(0)


@needs_cuda
@pytest.mark.parametrize("make", [_LIF, _PLIF], ids=["lif", "plif"])
def test_reduce_overhead_replays_follow_a_changed_threshold(make) -> None:  # type: ignore[no-untyped-def]
    """A threshold schedule (``v_threshold`` set between steps): Dynamo's guards on the watched numbers compile
    again and the kernels are traced again, so no CUDA-graph replay runs the kernels of the old threshold."""
    torch.manual_seed(0)
    eager = Net(make()).cuda()
    graphed = Net(make()).cuda()
    graphed.load_state_dict(eager.state_dict())
    step = torch.compile(graphed, mode="reduce-overhead")
    torch._dynamo.reset()
    try:
        for i, threshold in enumerate((1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 1.0)):
            eager.sn.v_threshold = graphed.sn.v_threshold = threshold
            x = torch.rand(8, 16, 32, device="cuda") * 2
            outs = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the retrace says so once per change
                for net, fn in ((eager, eager), (graphed, step)):
                    net.zero_grad(set_to_none=True)
                    out = fn(x)
                    out.square().sum().backward()
                    outs.append(out.detach().clone())  # a replay's output is overwritten by the next one
            torch.testing.assert_close(outs[1], outs[0], msg=lambda m: f"step {i}, threshold {threshold}: {m}")
            for (n, a), b in zip(eager.named_parameters(), graphed.parameters()):
                torch.testing.assert_close(b.grad, a.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"step {i}, {n}: {m}")
    finally:
        torch._dynamo.reset()


@needs_cuda
@pytest.mark.parametrize("make", [_LIF, _PLIF, lambda: LIFNode(backend="hop", step_mode="m"), lambda: LIFNode(backend="torch", step_mode="m")],
                         ids=["lif", "plif", "lif-hop", "lif-torch"])
def test_reduce_overhead_training_matches_eager(make) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    eager = Net(make()).cuda()
    graphed = Net(make()).cuda()
    graphed.load_state_dict(eager.state_dict())
    step = torch.compile(graphed, mode="reduce-overhead")
    for i in range(4):  # warm-up, recording, replays
        x = torch.rand(8, 16, 32, device="cuda") * 2
        for net, fn in ((eager, eager), (graphed, step)):
            net.zero_grad(set_to_none=True)
            fn(x).square().sum().backward()
        assert_same_grads(eager, graphed, f"step {i}")


_BACKENDS = {
    "lif-triton": _LIF,
    "lif-inductor": lambda: LIFNode(backend="inductor", step_mode="m"),
    "lif-hop": lambda: LIFNode(backend="hop", step_mode="m"),
    "lif-torch": lambda: LIFNode(backend="torch", step_mode="m"),
    "plif-triton": _PLIF,
    "plif-hop": lambda: ParametricLIFNode(backend="hop", step_mode="m"),
}


def _grads(net: torch.nn.Module) -> list[torch.Tensor]:
    return [p.grad.detach().clone() for p in net.parameters()]  # type: ignore[union-attr]


@needs_cuda
@pytest.mark.parametrize("make", list(_BACKENDS.values()), ids=list(_BACKENDS))
def test_make_graphed_callables_training_matches_eager(make) -> None:  # type: ignore[no-untyped-def]
    """``torch.cuda.make_graphed_callables`` of a block whose forward resets its neuron: replays of the
    captured forward and backward give the eager outputs and parameter gradients on new inputs."""
    torch.manual_seed(0)
    eager = Net(make()).cuda()
    graphed_net = Net(make()).cuda()
    graphed_net.load_state_dict(eager.state_dict())
    graphed = torch.cuda.make_graphed_callables(graphed_net, (torch.rand(8, 16, 32, device="cuda"),))
    for i in range(3):
        x = torch.rand(8, 16, 32, device="cuda") * (1 + i)
        outs = []
        for net, fn in ((eager, eager), (graphed_net, graphed)):
            net.zero_grad(set_to_none=True)
            out = fn(x)
            out.square().sum().backward()
            outs.append(out.detach().clone())
        torch.testing.assert_close(outs[1], outs[0], msg=lambda m: f"replay {i}: {m}")
        assert_same_grads(eager, graphed_net, f"replay {i}")


@needs_cuda
@pytest.mark.parametrize("make", list(_BACKENDS.values()), ids=list(_BACKENDS))
def test_cuda_graph_capture_of_a_training_step_on_every_backend(make) -> None:  # type: ignore[no-untyped-def]
    """``torch.cuda.graph`` capture of forward + backward (warm-up on a side stream, as PyTorch asks); each replay
    on new data in the captured input gives the gradients of an eager network with the same parameters."""
    torch.manual_seed(0)
    net = Net(make()).cuda()
    x = torch.rand(8, 16, 32, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # warm-up on a side stream, as torch.cuda.graph asks
            net.zero_grad(set_to_none=False)
            net(x).sum().backward()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    net.zero_grad(set_to_none=True)  # the captured backward allocates the gradients in the graph's pool
    with torch.cuda.graph(graph):
        net(x).sum().backward()
    for scale in (1.0, 2.5):
        x.copy_(torch.rand(8, 16, 32, device="cuda") * scale)
        graph.replay()
        got = _grads(net)
        ref = Net(make()).cuda()
        ref.load_state_dict(net.state_dict())
        ref(x).sum().backward()
        for g, want in zip(got, _grads(ref)):
            torch.testing.assert_close(g, want, rtol=1e-4, atol=1e-5)


@needs_cuda
@pytest.mark.parametrize("make", list(_BACKENDS.values()), ids=list(_BACKENDS))
def test_training_on_a_side_stream_matches_the_default_stream(make) -> None:  # type: ignore[no-untyped-def]
    """Forward and backward under ``torch.cuda.stream(side)``: the kernels launch on the current stream and the
    shared step buffers are per stream, so the gradients equal those of the same network on the default stream."""
    torch.manual_seed(0)
    ref = Net(make()).cuda()
    side_net = Net(make()).cuda()
    side_net.load_state_dict(ref.state_dict())
    side = torch.cuda.Stream()
    for i in range(3):
        x = torch.rand(8, 64, 32, device="cuda") * 2
        ref.zero_grad(set_to_none=True)
        ref(x).square().sum().backward()
        side_net.zero_grad(set_to_none=True)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            side_net(x).square().sum().backward()
        torch.cuda.current_stream().wait_stream(side)
        assert_same_grads(ref, side_net, f"step {i}", rtol=1e-5, atol=1e-6)


@pytest.fixture
def fresh_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """The capture warning not yet told in this process (it is told once per neuron class)."""
    monkeypatch.setattr(graph_capture, "_told", set())


def _capture_inference(
    m: torch.nn.Module, x: torch.Tensor, reset_first: bool, detach_first: bool = False
) -> tuple[torch.cuda.CUDAGraph, torch.Tensor, list[str]]:
    """Warm ``m`` up on a side stream as PyTorch's recipe does (three calls, no reset between), then capture one call."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad():
        with torch.cuda.stream(side):
            for _ in range(3):
                m(x)
        torch.cuda.current_stream().wait_stream(side)
        if reset_first:
            m.reset()  # type: ignore[operator]
        if detach_first:
            m.detach()  # type: ignore[operator]  # new tensors, the warm-up's memory
        graph = torch.cuda.CUDAGraph()
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            with torch.cuda.graph(graph):
                out = m(x)
    return graph, out, [str(w.message) for w in told if "CUDA graph captured" in str(w.message)]


@needs_cuda
@pytest.mark.parametrize("detach_first", [False, True], ids=["held", "detached"])
@pytest.mark.parametrize("backend", ["triton", "hop", "torch"])
@pytest.mark.usefixtures("fresh_told")
def test_a_capture_from_warm_up_states_is_told(backend: str, detach_first: bool) -> None:
    """Captured while the warm-up's states are still held (or detached: the same memory), every replay starts
    from them (its spikes differ from a reset neuron's on every backend): the capture says so, naming reset()."""
    torch.manual_seed(0)
    m = LIFNode(backend=backend, step_mode="m").cuda()
    x = torch.rand(8, 4, 16, device="cuda") * 2
    graph, out, told = _capture_inference(m, x, reset_first=False, detach_first=detach_first)
    assert len(told) == 1 and "reset()" in told[0]
    m.reset()
    graph.replay()
    assert not torch.equal(out, LIFNode(backend="torch", step_mode="m").cuda()(x))  # what the warning is about


@needs_cuda
@pytest.mark.parametrize("backend", ["triton", "hop", "torch"])
@pytest.mark.usefixtures("fresh_told")
def test_a_capture_after_reset_is_not_told_and_replays_start_fresh(backend: str) -> None:
    torch.manual_seed(0)
    m = LIFNode(backend=backend, step_mode="m").cuda()
    x = torch.rand(8, 4, 16, device="cuda") * 2
    graph, out, told = _capture_inference(m, x, reset_first=True)
    assert told == []
    for scale in (1.0, 2.5):
        x.copy_(torch.rand(8, 4, 16, device="cuda") * scale)
        graph.replay()
        torch.testing.assert_close(out, LIFNode(backend="torch", step_mode="m").cuda()(x))
