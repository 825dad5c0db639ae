"""torch.compile of flex_sn_scan: one captured node, eager-equal results."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
import torch
import torch._dynamo
import torch._dynamo.utils
from hop_reference import Recorder, assert_all_close, lif_by_hand, lif_core, scan_nodes, two_by_two_by_hand, two_by_two_core

from flexsn_hop import dynamo_hop_available, flex_sn_scan

pytestmark = pytest.mark.skipif(not dynamo_hop_available(), reason="Dynamo registration failed")


def compute_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """call_function nodes other than the scan and tuple indexing."""
    import operator

    return [
        n
        for n in gm.graph.nodes
        if n.op == "call_function" and n.target not in (flex_sn_scan, operator.getitem)
    ]


def make_model(w: torch.Tensor, tau: float) -> Callable[..., tuple[torch.Tensor, ...]]:
    """flex_sn_scan of a closure capturing a tensor (w) and a float (tau)."""

    def run(x: torch.Tensor, v0: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = v + (x * w - v) / tau
            spike = torch.sigmoid(4.0 * (h - 1.0))
            return spike, h * (1.0 - spike)

        return flex_sn_scan(core, 1, 1, 1, x, v0)

    return run


def test_capture_is_one_node_with_graphmodule_body() -> None:
    torch._dynamo.utils.counters.clear()
    w = torch.randn(3)
    run = make_model(w, 2.0)
    x, v0 = torch.randn(5, 3), torch.zeros(3)
    rec = Recorder()
    out = torch.compile(run, backend=rec, fullgraph=True)(x, v0)
    assert_all_close(out, run(x, v0))

    (gm,) = rec.graphs
    (node,) = scan_nodes(gm)
    assert compute_nodes(gm) == []
    body = node.args[0]
    assert body.op == "get_attr"
    assert isinstance(getattr(gm, body.target), torch.fx.GraphModule)
    assert node.args[1:4] == (1, 1, 1)
    # x, v0, then the captured tensor w lifted after the initial state.
    assert len(node.args) == 4 + 3
    assert node.kwargs["output_template_specs"] == (((3,), torch.float32),)
    assert dict(torch._dynamo.utils.counters["graph_break"]) == {}


def test_explain_reports_no_graph_break() -> None:
    run = make_model(torch.randn(3), 2.0)
    explanation = torch._dynamo.explain(run)(torch.randn(4, 3), torch.zeros(3))
    assert explanation.graph_count == 1
    assert explanation.graph_break_count == 0
    (gm,) = explanation.graphs
    assert len(scan_nodes(gm)) == 1


def test_two_by_two_with_explicit_lifted_and_nn_module_params() -> None:
    class Core(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.decay = torch.nn.Parameter(torch.tensor([0.9, 0.8]))

        def forward(self, x, y, a, b, gain):
            a = self.decay[0] * a + x * gain
            b = self.decay[1] * b + y * torch.tanh(a)
            return a * b, a - b, a, b

    core = Core()

    def run(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return flex_sn_scan(core, 2, 2, 2, *args)

    args = (torch.randn(4, 2), torch.randn(4, 2), torch.randn(2), torch.randn(2), torch.randn(2))
    rec = Recorder()
    out = torch.compile(run, backend=rec, fullgraph=True)(*args)
    assert_all_close(out, run(*args))
    (gm,) = rec.graphs
    (node,) = scan_nodes(gm)
    # 5 explicit tensors, then the module parameter lifted after them.
    assert len(node.args) == 4 + 5 + 1


def test_t0_compiles_and_uses_body_templates() -> None:
    def run(x: torch.Tensor, v0: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def core(x, v):
            return (x > v).to(torch.float16), v + x

        return flex_sn_scan(core, 1, 1, 1, x, v0)

    rec = Recorder()
    y, v = torch.compile(run, backend=rec, fullgraph=True)(torch.empty(0, 2, 3), torch.zeros(2, 3))
    assert y.shape == (0, 2, 3) and y.dtype == torch.float16
    assert v.shape == (0, 2, 3)
    (gm,) = rec.graphs
    assert scan_nodes(gm)[0].kwargs["output_template_specs"] == (((2, 3), torch.float16),)


def test_aot_eager_forward_and_backward_match_eager() -> None:
    torch.manual_seed(9)
    w = torch.randn(3, requires_grad=True)
    run = make_model(w, 2.0)
    compiled = torch.compile(run, backend="aot_eager", fullgraph=True)
    for T in (3, 5):
        x = torch.randn(T, 3, requires_grad=True)
        v0 = torch.randn(3, requires_grad=True)
        leaves = (x, v0, w)
        out = compiled(x, v0)
        ref = run(x, v0)
        assert_all_close(out, ref)
        grads = torch.autograd.grad(out[0].sum() + out[1].pow(2).sum(), leaves)
        ref_grads = torch.autograd.grad(ref[0].sum() + ref[1].pow(2).sum(), leaves)
        assert_all_close(grads, ref_grads)


def test_aot_eager_two_by_two_matches_hand_written_loop() -> None:
    compiled = torch.compile(
        lambda *a: flex_sn_scan(two_by_two_core, 2, 2, 2, *a), backend="aot_eager", fullgraph=True
    )
    args = (torch.randn(4, 2), torch.randn(4, 2), torch.randn(2), torch.randn(2))
    assert_all_close(compiled(*args), two_by_two_by_hand(*args))


def test_inductor_forward_and_backward_match_eager() -> None:
    torch.manual_seed(10)
    w = torch.randn(3, requires_grad=True)
    run = make_model(w, 2.0)
    x = torch.randn(4, 3, requires_grad=True)
    v0 = torch.randn(3)
    compiled = torch.compile(run, fullgraph=True)  # default backend: inductor (CPU)
    out = compiled(x, v0)
    ref = run(x, v0)
    assert_all_close(out, ref)
    grads = torch.autograd.grad(out[0].sum() + out[1].sum(), (x, w))
    ref_grads = torch.autograd.grad(ref[0].sum() + ref[1].sum(), (x, w))
    assert_all_close(grads, ref_grads)


def test_aot_eager_hard_threshold_lif_no_grad() -> None:
    compiled = torch.compile(
        lambda x, v: flex_sn_scan(lif_core, 1, 1, 1, x, v), backend="aot_eager", fullgraph=True
    )
    x = torch.rand(6, 3) * 3
    with torch.no_grad():
        assert_all_close(compiled(x, torch.zeros(3)), lif_by_hand(x, torch.zeros(3)))


#: the fused kernels' device: CUDA, else the CPU under Triton's interpreter (without either, the loop runs)
KERNEL_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
needs_kernels = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)


@needs_kernels
@pytest.mark.parametrize("final_state", [False, True])
def test_dynamic_T_is_one_graph(final_state: bool, fused_paths: list[str]) -> None:
    """``dynamic=True`` with the fused kernels: calls of other sequence lengths reuse the one graph (before, the
    fused path's fake run specialised ``T``: one graph per length, and past Dynamo's recompile limit the
    loop ran uncompiled)."""
    torch.manual_seed(12)
    w = torch.randn(3, device=KERNEL_DEVICE)

    def run(x: torch.Tensor, v0: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = v + (x * w - v) / 2.0
            spike = torch.sigmoid(4.0 * (h - 1.0))
            return spike, h * (1.0 - spike)

        return flex_sn_scan(core, 1, 1, 1, x, v0, final_state=final_state)

    rec = Recorder()
    compiled = torch.compile(run, backend=rec, dynamic=True, fullgraph=True)
    for T in (4, 6, 9):
        x, v0 = torch.randn(T, 2, 3, device=KERNEL_DEVICE), torch.randn(2, 3, device=KERNEL_DEVICE)
        assert_all_close(compiled(x, v0), run(x, v0))
    assert len(rec.graphs) == 1
    assert fused_paths and set(fused_paths) == {"inference"}


@needs_kernels
def test_dynamic_T_training_matches_eager_without_recompiling(fused_paths: list[str]) -> None:
    """AOTAutograd (forward and backward graphs) over three sequence lengths: gradients equal to the loop's, and
    Dynamo compiles the frame once."""
    torch.manual_seed(13)
    w = torch.randn(3, device=KERNEL_DEVICE, requires_grad=True)
    run = make_model(w, 2.0)
    torch._dynamo.utils.counters.clear()
    compiled = torch.compile(run, backend="aot_eager", dynamic=True, fullgraph=True)
    for T in (5, 7, 10):
        x = torch.randn(T, 3, device=KERNEL_DEVICE, requires_grad=True)
        v0 = torch.randn(3, device=KERNEL_DEVICE, requires_grad=True)
        out, ref = compiled(x, v0), run(x, v0)
        assert_all_close(out, ref)
        loss, ref_loss = out[0].sum() + out[1].pow(2).sum(), ref[0].sum() + ref[1].pow(2).sum()
        assert_all_close(torch.autograd.grad(loss, (x, v0, w)), torch.autograd.grad(ref_loss, (x, v0, w)))
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 1
    assert "training" in fused_paths and "eager" not in fused_paths
