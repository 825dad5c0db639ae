"""``flexsn_hop.enable_template_lowering`` where no template can run (the CPU): its switch, its place in Inductor's
cache key, and a call it cannot lower staying the opaque op with one warning and the same numbers.

The template itself runs on CUDA only (``tests-integration/test_template_lowering.py`` in the GPU suite);
its rendered lines are checked here on the CPU in ``test_inductor_template.py``.
"""

from __future__ import annotations

import operator
import os
import warnings
from collections.abc import Iterator

import pytest
import torch
import torch._dynamo
import torch._functorch.config
import torch._inductor.config

import flexsn_hop
from flexsn_hop import template_lowering
from flexsn_runtime import FlexSNKernel
from flexsn_trace import ScanContract
from flexsn_trace.testing import lif_core


@pytest.fixture(autouse=True)
def _switches() -> Iterator[None]:
    flexsn_hop.enable_fused_kernels(True)  # conftest clears the hook around every test
    flexsn_hop.enable_neighbour_fusion(False)
    yield
    flexsn_hop.enable_template_lowering(False)
    flexsn_hop.enable_fused_kernels(False)
    flexsn_hop.enable_neighbour_fusion(None)


def test_the_switch_checks_its_argument_and_reads_back() -> None:
    with pytest.raises(TypeError, match="takes a bool, got str"):
        flexsn_hop.enable_template_lowering("on")  # type: ignore[arg-type]
    assert flexsn_hop.enable_template_lowering(True)
    assert flexsn_hop.template_lowering_enabled()
    flexsn_hop.enable_template_lowering(False)
    assert not flexsn_hop.template_lowering_enabled()


def test_the_switch_is_part_of_inductors_cache_key() -> None:
    from torch._inductor import config

    flexsn_hop.enable_template_lowering(True)
    on = config.post_grad_custom_post_pass.uuid()
    flexsn_hop.enable_template_lowering(False)
    off = config.post_grad_custom_post_pass.uuid()
    assert on != off


needs_kernels = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1", reason="the fused kernels on the CPU need TRITON_INTERPRET=1"
)


@needs_kernels
def test_a_cpu_call_stays_the_opaque_op_with_one_warning() -> None:
    messages, codes = _compile_told()
    assert len(messages) == 1 and "sequences on cpu (the template is a CUDA kernel)" in messages[0], messages
    calls = [line for code in codes for line in code.splitlines()
             if "torch.ops.flexsn.inference.default(" in line and not line.strip().startswith("#")]
    assert calls, "the op is called as it is without the lowering"


@needs_kernels
def test_a_template_that_fails_to_build_leaves_the_opaque_op(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise IndexError("a drifted Inductor internal")

    monkeypatch.setattr(template_lowering, "_emit", broken)
    messages, _ = _compile_told()
    assert len(messages) == 1 and "building the template failed (IndexError: a drifted Inductor internal)" in messages[0]


def _compile_told() -> tuple[list[str], list[str]]:
    """Compile a scan with the lowering on (CPU): the results equal eager; the lowering's warnings and the code."""
    from torch._inductor.utils import run_and_get_code

    kernel = FlexSNKernel(lif_core, 1, 1, 1)

    def step(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return kernel.run(ScanContract(1, 1, 1, (x * 2.0,), (), (), True, True))[0] + r

    x, r = torch.randn(4, 3, 5), torch.randn(4, 3, 5)
    with torch.no_grad():
        want = step(x, r)
    flexsn_hop.enable_template_lowering(True)
    template_lowering._TOLD.clear()  # told once per process: a test before may have been told
    torch._dynamo.reset()
    # Inductor's caches would serve the graph compiled by a test before, without asking the lowering
    with torch.no_grad(), warnings.catch_warnings(record=True) as told, torch._inductor.config.patch(
        fx_graph_cache=False
    ), torch._functorch.config.patch(enable_autograd_cache=False):
        warnings.simplefilter("always")
        got, codes = run_and_get_code(torch.compile(step, fullgraph=True), x, r)
    torch.testing.assert_close(got, want)
    return [str(w.message) for w in told if "template lowering" in str(w.message)], codes


def test_a_consumer_of_the_spikes_that_reads_a_state_keeps_the_op_opaque() -> None:
    """An epilogue runs inside the template's loop over time, before the final states are written: a graph where a
    node fed by output 0 reads another result is not lowered (checked on the FX graph the lowering sees)."""
    reads = template_lowering._reads_a_result_after_output0

    def graph(tail: str) -> torch.fx.Node:
        g = torch.fx.Graph()
        x, r = g.placeholder("x"), g.placeholder("r")
        scan = g.call_function(torch.ops.aten.split.Tensor, (x, 1))  # stands for flexsn::inference: a list result
        spikes = g.call_function(operator.getitem, (scan, 0))
        state = g.call_function(operator.getitem, (scan, 1))
        y = g.call_function(torch.ops.aten.add.Tensor, (spikes, r))
        if tail == "reads_state":  # through a chain: add, then mul with the final state
            y = g.call_function(torch.ops.aten.mul.Tensor, (y, state))
        elif tail == "other_use":
            g.call_function(torch.ops.aten.clone.default, (scan,))
        g.output((y, state))  # the graph returns spikes and state alike: not a reader
        return scan

    assert not reads(graph("plain"))
    assert reads(graph("reads_state"))
    assert reads(graph("other_use"))


@needs_kernels
@pytest.mark.parametrize("mode", ["eval", "train", "residual"])
def test_the_walk_follows_the_order_a_prologue_reads_in(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the lowering decides before it renders, asked on the CPU (where it then keeps the opaque op): a
    BatchNorm over a channels-last convolution output is a prologue whose layout is still open, so the neurons
    are walked in the order it reads the convolution's output (``[T, B, C, H, W]``: channels innermost). In
    ``eval`` its normalisation is a pointwise node; in ``train`` (batch statistics, as the convnet's inference
    step runs it) Inductor has realized it into a buffer of open layout, whose computation is read through.
    The template leaves that prologue candidate's layout contiguous (asked for another through its views, it was
    written by a kernel of its own on the GPU). A ``residual`` sum in front of the neuron reads two sequences, more
    than Inductor fuses as a prologue: written to memory contiguously, it is walked so."""
    seen: dict[str, object] = {}

    def probe(handle: int, flat_args: list[object], final_state: bool) -> list[object]:
        x0 = flat_args[0]
        order = template_lowering._memory_order(x0, len(x0.get_size()))  # type: ignore[attr-defined]
        seen["order"], seen["request"] = order, template_lowering._layout_request(x0, order)
        raise template_lowering._NotLowered("probed")

    monkeypatch.setattr(template_lowering, "_emit", probe)
    T, B, C = 3, 2, 4
    conv = torch.nn.Conv2d(3, C, 3, padding=1, bias=False).to(memory_format=torch.channels_last)
    bn = torch.nn.BatchNorm2d(C).train(mode == "train")
    kernel = FlexSNKernel(lif_core, 1, 1, 1)
    r = torch.randn(T * B, C, 5, 6).contiguous(memory_format=torch.channels_last).unflatten(0, (T, B))

    def step(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = bn(conv(x.flatten(0, 1))).unflatten(0, (T, B))
        y = y + r if mode == "residual" else y
        spikes, final = kernel.run(ScanContract(1, 1, 1, (y,), (), (), True, True))
        return spikes.mean(0), final

    x = torch.randn(T * B, 3, 5, 6).contiguous(memory_format=torch.channels_last).unflatten(0, (T, B))
    with torch.no_grad():
        want = step(x)
    flexsn_hop.enable_template_lowering(True)
    torch._dynamo.reset()
    with torch.no_grad(), warnings.catch_warnings(), torch._inductor.config.patch(fx_graph_cache=False):
        warnings.simplefilter("ignore", RuntimeWarning)  # "probed": the op stays opaque
        got = torch.compile(step, fullgraph=True)(x)
    torch.testing.assert_close(got, want)
    assert seen["order"] == ([0, 1, 2, 3, 4] if mode == "residual" else [0, 1, 3, 4, 2]), seen
    assert seen["request"] == [0, 1, 2, 3, 4], seen  # the prologue candidate is left as it is (contiguous)
