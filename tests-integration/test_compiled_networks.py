"""Spiking networks under ``torch.compile(fullgraph=True)``, every FlexSN backend, against eager.

Issue 4, items 4 and 6. Two networks:

* ``Linear -> LIFNode -> Linear`` on ``[T, N, F]`` sequences;
* a small spiking convnet on ``[T, N, C, H, W]`` sequences:
  ``Conv2d -> BatchNorm2d -> LIFNode -> MaxPool2d -> Conv2d -> LIFNode ->
  flatten -> Linear``, the conv / norm / pool layers running with ``T``
  flattened into the batch, the neurons on the multi-step sequences.

Each compiled network (backends ``torch``, ``triton``, ``inductor``,
``hop``) is run for one training step and compared with an independent
eager reference: a deep copy of the same network (same parameters and
buffers) whose neurons run the ``torch`` backend, i.e. the plain Python
time loop, eagerly. Compared: outputs, final membrane potentials, the
gradient of the input and of every parameter, and BatchNorm's running
statistics (fp32, tolerance 1e-5).

The Dynamo graphs are captured by a recording backend, which then hands
them to ``aot_eager`` (re-built here so that the AOTAutograd forward /
backward graphs are recorded too) or to Inductor's default (CPU) compiler.
Checked on the captured graphs:

* exactly one graph for two calls (no graph break, no recompilation after
  ``reset()``);
* ``triton`` / ``inductor``: one opaque ``flexsn::training_final_state``
  node per neuron layer, ``hop``: one ``flex_sn_scan`` node per neuron layer
  and, in the AOTAutograd forward graph, one fused
  ``flexsn::training_final_state`` node per layer (the fused path was taken,
  in its final-state form: the neurons keep no state sequences) and, in the
  backward graph, no ``[T, ...]`` zero fill feeding ``flexsn::backward`` (no
  zero gradient for an unused state sequence); neither has any op of the neuron's
  step in the top-level graph (the ``torch`` backend, which does unroll,
  checks that the detector finds them);
* ``triton`` / ``inductor`` / ``hop`` (``flex_sn_scan(...,
  zero_init_states=True)``): after ``reset()`` the op gets only the input
  sequence, no zero-fill node feeds it (the zero initial state is created
  inside the op).

Inductor (CPU, C++ codegen) compiles slowly, so it runs for both networks
with the ``triton`` and ``hop`` backends (and the Linear network with
``inductor``) but not ``torch``; everything runs under ``aot_eager``. Kernels run under Triton's interpreter on CPU tensors.
"""

from __future__ import annotations

import copy
import os
import re
from typing import Any, Callable, Iterator

import pytest
import torch

if not torch.cuda.is_available():
    # before triton is imported: its jit'd helpers are interpreted only when
    # TRITON_INTERPRET is set at import time
    os.environ.setdefault("TRITON_INTERPRET", "1")

import torch._dynamo  # noqa: E402
from torch import nn  # noqa: E402

from flexsn_nn import FlexSN, hop_available  # noqa: E402
from flexsn_nn.neurons import LIFNode  # noqa: E402
from flexsn_nn.surrogate import ATan, Sigmoid  # noqa: E402

DEV = torch.device("cuda" if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1" else "cpu")
ATOL = RTOL = 1e-5  # fp32
KERNEL_OPS = ("flexsn.training_final_state", "flexsn.training", "flexsn.inference_final_state", "flexsn.inference")
ZERO_FILLS = ("zeros", "zeros_like", "new_zeros", "full", "full_like", "new_full", "fill", "fill_", "zero_")
#: how the gradient of ``state_seq[-1]`` becomes a zero-filled state-sequence gradient
#: (``aot_eager`` keeps ``select_backward``; Inductor's decomposition fills zeros and scatters)
SELECT_BACKWARDS = ("select_backward", "select_scatter")
needs_hop = pytest.mark.skipif(not hop_available(), reason="flexsn_hop is not importable")
BACKENDS = ["torch", "triton", "inductor", pytest.param("hop", marks=needs_hop)]

T = 4


# ---------------------------------------------------------------- networks


class LinearNet(nn.Module):
    """``[T, N, 12] -> Linear -> LIF -> Linear -> [T, N, 5]`` (N * 80 neurons per step)."""

    def __init__(self, backend: str) -> None:
        super().__init__()
        self.fc1 = nn.Linear(12, 80)
        self.sn = LIFNode(tau=2.0, surrogate_function=ATan(), backend=backend, step_mode="m")
        self.fc2 = nn.Linear(80, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[T, N, 12]``; returns ``[T, N, 5]``."""
        y: torch.Tensor = self.fc2(self.sn(self.fc1(x)))
        return y


class ConvNet(nn.Module):
    """A spiking convnet on ``[T, N, 2, 8, 8]``; conv layers see ``T`` flattened into the batch."""

    def __init__(self, backend: str) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.sn1 = LIFNode(tau=2.0, surrogate_function=Sigmoid(), backend=backend, step_mode="m")
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 6, 3, padding=1)
        self.sn2 = LIFNode(tau=1.5, v_reset=None, surrogate_function=ATan(), backend=backend, step_mode="m")
        self.fc = nn.Linear(6 * 4 * 4, 5)
        with torch.no_grad():  # the second layer's default drive never reaches its threshold: spikes must flow
            self.conv2.weight.mul_(4.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[T, N, 2, 8, 8]``; returns ``[T, N, 5]``."""
        t, n = x.shape[:2]
        h = self.bn1(self.conv1(x.flatten(0, 1)))
        s = self.sn1(h.unflatten(0, (t, n)))  # [T, N, 4, 8, 8]: N * 256 neurons per step
        h = self.conv2(self.pool(s.flatten(0, 1)))
        s = self.sn2(h.unflatten(0, (t, n)))  # [T, N, 6, 4, 4]
        y: torch.Tensor = self.fc(s.flatten(2))
        return y


NETS: dict[str, tuple[Callable[[str], nn.Module], tuple[int, ...], int]] = {
    # name: (constructor, input shape, number of neuron layers)
    "linear": (LinearNet, (T, 3, 12), 1),
    "conv": (ConvNet, (T, 2, 2, 8, 8), 2),
}


def _neurons(net: nn.Module) -> list[LIFNode]:
    found = [m for m in net.modules() if isinstance(m, FlexSN)]
    assert all(isinstance(m, LIFNode) for m in found)
    return [m for m in found if isinstance(m, LIFNode)]


def _reset(net: nn.Module) -> None:
    for m in _neurons(net):
        m.reset()


# ---------------------------------------------------------------- recording backends


class Recorder:
    """A Dynamo backend that records every captured graph, then compiles it.

    ``compiler="aot_eager"``: AOTAutograd with no-op compilers (what Dynamo's
    ``aot_eager`` does); ``compiler="inductor"``: Inductor's default
    compiler. Either way the AOTAutograd forward / backward graphs are
    recorded too (``aot["fw"]``, ``aot["bw"]``).
    """

    def __init__(self, compiler: str) -> None:
        self.compiler = compiler
        self.graphs: list[torch.fx.GraphModule] = []
        self.aot: dict[str, list[torch.fx.GraphModule]] = {"fw": [], "bw": []}

    def _keep(self, kind: str) -> Callable[..., Any]:
        from functorch.compile import make_boxed_func

        def compiler(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
            self.aot[kind].append(gm)
            return make_boxed_func(gm.forward)

        return compiler

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        """Record ``gm`` and return the compiled callable."""
        # Inductor's pre-grad passes (FlexSN's neighbour pass among them) rewrite gm in place: keep Dynamo's graph
        self.graphs.append(copy.deepcopy(gm) if self.compiler == "inductor" else gm)
        if self.compiler == "inductor":
            from torch._inductor.compile_fx import compile_fx, compile_fx_inner

            def inner(graph: torch.fx.GraphModule, inputs: Any, **kwargs: Any) -> Any:
                kind = "bw" if kwargs.get("is_backward", bool(self.aot["fw"])) else "fw"
                self.aot[kind].append(graph)
                return compile_fx_inner(graph, inputs, **kwargs)

            return compile_fx(gm, example_inputs, inner_compile=inner)
        from functorch.compile import min_cut_rematerialization_partition
        from torch._dynamo.backends.common import aot_autograd

        backend = aot_autograd(
            fw_compiler=self._keep("fw"),
            bw_compiler=self._keep("bw"),
            partition_fn=min_cut_rematerialization_partition,
            keep_inference_input_mutations=True,
        )
        return backend(gm, example_inputs)


def _target_name(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        name = f"{target.namespace}.{target._opname}"
        # the final-state variant of flexsn::inference / flexsn::training (final_state=True)
        final = node.args[2] if len(node.args) > 2 else node.kwargs.get("final_state", False)
        return f"{name}_final_state" if name in ("flexsn.inference", "flexsn.training") and final else name
    if isinstance(target, torch._ops.OpOverloadPacket):
        return f"{target._qualified_op_name.replace('::', '.')}"
    return getattr(target, "__name__", str(target))


def _calls(gm: torch.fx.GraphModule, name: str) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op == "call_function" and _target_name(n) == name]


_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\w+)')


def _step_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """Top-level nodes traced from inside a neuron's step (charge / fire / reset / surrogate).

    Detected from the innermost frame of each node's stack trace; the hop
    backend's body lives in a subgraph and is not top level.
    """
    found = []
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        frames = _FRAME.findall(n.meta.get("stack_trace") or "")
        if not frames:
            continue
        path, fn = frames[-1]
        name = os.path.basename(path)
        if (name == "neurons.py" and fn in ("__call__", "charge")) or name == "surrogate.py":
            found.append(n)
    return found


def _producers(node: torch.fx.Node) -> Iterator[torch.fx.Node]:
    """Every node that feeds ``node``, transitively (through lists, views and getitems)."""
    seen: set[torch.fx.Node] = set()
    stack = list(node.all_input_nodes)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        yield n
        stack.extend(n.all_input_nodes)


def _fmt(nodes: list[torch.fx.Node], limit: int = 6) -> str:
    more = f" ... ({len(nodes)} in all)" if len(nodes) > limit else ""
    return "; ".join(str(n.format_node()) for n in nodes[:limit]) + more


def _is_zero_fill(node: torch.fx.Node) -> bool:
    if node.op == "call_method":
        return node.target in ZERO_FILLS
    if node.op == "call_function":
        name = _target_name(node).split(".")[-1]
        return name in ZERO_FILLS
    return False


def _is_seq_grad_fill(node: torch.fx.Node) -> bool:
    """A zero fill or ``select_backward`` producing a ``[T, ...]`` tensor (a state-sequence gradient)."""
    if not (_is_zero_fill(node) or _target_name(node).split(".")[-1] in SELECT_BACKWARDS):
        return False
    val = node.meta.get("val")
    return isinstance(val, torch.Tensor) and val.dim() > 0 and val.shape[0] == T


# ---------------------------------------------------------------- the comparison


def _close(actual: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    torch.testing.assert_close(actual, expected, atol=ATOL, rtol=RTOL, msg=lambda m: f"{what}: {m}")


def _grads(net: nn.Module) -> dict[str, torch.Tensor | None]:
    return {name: p.grad for name, p in net.named_parameters()}


def _assert_matches_eager(net: nn.Module, compiled: Callable[..., torch.Tensor], shape: tuple[int, ...], seed: int) -> None:
    """One training step of ``compiled`` against a deep copy of ``net`` run eagerly on the torch backend."""
    ref = copy.deepcopy(net)
    for m in _neurons(ref):
        m.backend = "torch"
    gen = torch.Generator().manual_seed(seed)
    x = (torch.rand(shape, generator=gen) * 2.0).to(DEV)
    weight = torch.randn((*shape[:2], 5), generator=gen).to(DEV)
    x_c = x.clone().requires_grad_()
    x_r = x.clone().requires_grad_()
    _reset(net)
    _reset(ref)
    net.zero_grad(set_to_none=True)
    ref.zero_grad(set_to_none=True)
    y_c = compiled(x_c)
    y_r: torch.Tensor = ref(x_r)
    _close(y_c, y_r, "network output")
    for a, b in zip(_neurons(net), _neurons(ref)):
        assert isinstance(a.v, torch.Tensor) and isinstance(b.v, torch.Tensor)
        _close(a.v, b.v, "final membrane potential")
    assert y_r.abs().sum() > 0 and y_r.std() > 0, "degenerate network output: the comparison would be vacuous"
    (y_c * weight).sum().backward()  # type: ignore[no-untyped-call]
    (y_r * weight).sum().backward()  # type: ignore[no-untyped-call]
    assert x_c.grad is not None and x_r.grad is not None
    _close(x_c.grad, x_r.grad, "input gradient")
    assert x_r.grad.abs().sum() > 0
    grads_c, grads_r = _grads(net), _grads(ref)
    assert grads_c.keys() == grads_r.keys()
    for name, g_r in grads_r.items():
        g_c = grads_c[name]
        assert g_c is not None and g_r is not None, f"no gradient for {name}"
        # a zero weight gradient behind a neuron layer means that layer never fired: a vacuous comparison
        assert g_r.abs().sum() > 0, f"the reference gradient of {name} is all zero: a neuron layer never fired"
        _close(g_c, g_r, f"gradient of {name}")
    for (name, b_c), (_, b_r) in zip(net.named_buffers(), ref.named_buffers()):
        _close(b_c, b_r, f"buffer {name}")


def _check_graph(rec: Recorder, backend: str, layers: int) -> None:
    assert len(rec.graphs) == 1, f"expected one captured graph (no break / recompile), got {len(rec.graphs)}"
    gm = rec.graphs[0]
    step_nodes = _step_nodes(gm)
    if backend == "torch":
        # the eager loop unrolls: the detector must see every step of every layer
        assert len(step_nodes) >= T * layers, _fmt(step_nodes)
        assert not any(_calls(gm, op) for op in KERNEL_OPS)
        return
    assert not step_nodes, f"unrolled per-step ops in the graph: {_fmt(step_nodes)}"
    if backend == "hop":
        scans = _calls(gm, "flex_sn_scan")
        assert len(scans) == layers, gm.code
        assert not any(_calls(gm, op) for op in KERNEL_OPS)
        # AOTAutograd's graphs (what aot_eager runs / Inductor compiles): the fused kernels
        fw, bw = rec.aot["fw"], rec.aot["bw"]
        assert len(fw) == 1 and len(bw) == 1, (len(fw), len(bw))
        assert len(_calls(fw[0], "flexsn.training_final_state")) == layers, f"the fused path was not taken:\n{fw[0].code}"
        assert not _calls(fw[0], "flexsn.training"), f"state sequences were written:\n{fw[0].code}"
        assert not any(_calls(fw[0], name) for name in ("flex_sn_scan", "autograd_function_apply")), fw[0].code
        backward_ops = _calls(bw[0], "flexsn.backward")
        assert len(backward_ops) == layers, bw[0].code
        for op in backward_ops:
            assert op.args[-1] is True or op.kwargs.get("final_state") is True, op.format_node()
            fills = [n for n in _producers(op) if _is_seq_grad_fill(n)]
            assert not fills, f"[T, ...] zero fills feed {op.format_node()}: {_fmt(fills)}"
        return
    ops = _calls(gm, "flexsn.training_final_state")
    assert len(ops) == layers, gm.code
    assert not _calls(gm, "flex_sn_scan")
    for op in ops:
        flat_args = op.args[1]
        assert isinstance(flat_args, (list, tuple)) and len(flat_args) == 1, (
            f"after reset() the op must get only the input sequence, got {op.format_node()}"
        )
        zeros = [n for n in _producers(op) if _is_zero_fill(n)]
        assert not zeros, f"zero fills feed {op.format_node()}: {_fmt(zeros)}"


@pytest.fixture(autouse=True)
def _fresh_dynamo() -> Iterator[None]:
    """A fresh Dynamo cache per test; full fp32 matmuls / convolutions on a GPU (no TF32);
    flex_sn_scan's fused-kernel hook installed (the default, whatever earlier tests left)."""
    torch._dynamo.reset()
    tf32 = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    hook = None
    if hop_available():
        import flexsn_hop

        hook = flexsn_hop.get_fused_impl()
        flexsn_hop.enable_fused_kernels(True)
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
        if hop_available():
            flexsn_hop.register_fused_impl(hook)
        torch._dynamo.reset()


def _run(net_name: str, backend: str, compiler: str) -> None:
    make, shape, layers = NETS[net_name]
    torch.manual_seed(0)
    net = make(backend).to(DEV)
    net.train()
    for m in _neurons(net):
        if backend in ("triton", "inductor"):
            assert m.uses_kernels(torch.zeros(1, 4, device=DEV)), "the kernels must run (no eager fallback)"
    rec = Recorder(compiler)
    compiled = torch.compile(net, backend=rec, fullgraph=True)
    _assert_matches_eager(net, compiled, shape, seed=1)
    _assert_matches_eager(net, compiled, shape, seed=2)  # after reset(): no recompilation
    _check_graph(rec, backend, layers)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("net_name", ["linear", "conv"])
def test_compiled_network_aot_eager(net_name: str, backend: str) -> None:
    """``aot_eager``: forward and backward match eager; one graph; opaque kernel / scan nodes."""
    _run(net_name, backend, "aot_eager")


INDUCTOR_CASES = [
    ("linear", "triton"),
    ("linear", "inductor"),
    pytest.param("linear", "hop", marks=needs_hop),
    ("conv", "triton"),
    pytest.param("conv", "hop", marks=needs_hop),
]


@pytest.mark.parametrize(("net_name", "backend"), INDUCTOR_CASES)
def test_compiled_network_inductor(net_name: str, backend: str) -> None:
    """Inductor's default (CPU) compiler: forward and backward match eager; one graph; opaque nodes.

    The ``torch`` backend is left out: Inductor compiling its unrolled loop
    costs most of a minute per network on the CPU and tests no FlexSN code.
    """
    _run(net_name, backend, "inductor")


@needs_hop
def test_hop_zero_initial_states_not_materialized() -> None:
    """After reset(), the ``hop`` backend passes no initial states (``zero_init_states=True``):
    the zero states are created inside the fused op, so no zero fill feeds it."""
    net = LinearNet("hop").to(DEV)
    rec = Recorder("aot_eager")
    compiled = torch.compile(net, backend=rec, fullgraph=True)
    compiled(torch.rand(T, 3, 12, device=DEV, requires_grad=True)).sum().backward()
    (op,) = _calls(rec.aot["fw"][0], "flexsn.training_final_state")
    assert not [n for n in _producers(op) if _is_zero_fill(n)]


def test_detectors_can_fail() -> None:
    """The graph helpers flag what they should: zero fills, step ops, op names."""

    def core_like(x: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x) + x

    gm = torch.fx.symbolic_trace(core_like)
    assert any(_is_zero_fill(n) for n in gm.graph.nodes)
    net = LinearNet("torch")
    rec = Recorder("aot_eager")
    torch.compile(net, backend=rec, fullgraph=True)(torch.rand(T, 2, 12))
    with pytest.raises(AssertionError):
        _check_graph(rec, "triton", 1)
    with pytest.raises(AssertionError):
        _check_graph(rec, "hop", 1)
