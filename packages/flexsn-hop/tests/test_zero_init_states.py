"""``flex_sn_scan(..., zero_init_states=True)``: no initial states are passed.

The states start as zeros of input 0's per-step shape, dtype and device;
results equal passing explicit zeros. With the runtime's fused kernels the
zeros are created inside the custom op, so a traced graph has no zero fill
feeding it.
"""

from __future__ import annotations

import operator
import os

import pytest
import torch
import torch._dynamo
from functorch.compile import aot_function, make_boxed_func
from hop_reference import Recorder, assert_all_close, lif_core, lifted_core, two_by_two_core

import flexsn_hop
from flexsn_hop import FusedScanCall, dynamo_hop_available, flex_sn_scan, use_fused_impl

needs_dynamo = pytest.mark.skipif(not dynamo_hop_available(), reason="Dynamo registration failed")
needs_kernels = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
ZERO_FILLS = ("zeros", "zeros_like", "new_zeros", "full", "full_like", "new_full", "fill", "fill_", "zero_")


def _zeros(x: torch.Tensor, n: int) -> list[torch.Tensor]:
    return [x.new_zeros(x.shape[1:]) for _ in range(n)]


# ---- eager semantics ----------------------------------------------------------


@pytest.mark.parametrize("final_state", [False, True])
def test_equals_explicit_zeros(final_state: bool) -> None:
    torch.manual_seed(0)
    x = torch.rand(6, 2, 3) * 3.0
    got = flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, final_state=final_state)
    ref = flex_sn_scan(lif_core, 1, 1, 1, x, *_zeros(x, 1), final_state=final_state)
    assert_all_close(got, ref)
    args = (torch.randn(5, 2), torch.randn(5, 2))
    got = flex_sn_scan(two_by_two_core, 2, 2, 2, *args, zero_init_states=True, final_state=final_state)
    ref = flex_sn_scan(two_by_two_core, 2, 2, 2, *args, *_zeros(args[0], 2), final_state=final_state)
    assert_all_close(got, ref)


def test_lifted_args_follow_the_inputs() -> None:
    torch.manual_seed(1)
    x, w, b = torch.randn(4, 3), torch.randn(3), torch.randn(3)
    got = flex_sn_scan(lifted_core, 1, 1, 1, x, w, b, zero_init_states=True)
    assert_all_close(got, flex_sn_scan(lifted_core, 1, 1, 1, x, torch.zeros(3), w, b))


def test_zero_states_take_dtype_and_device_of_input_0() -> None:
    x = torch.rand(3, 4, dtype=torch.float64)
    _, v = flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, final_state=True)
    assert v.dtype == torch.float64 and v.shape == (4,)


def test_t0() -> None:
    x = torch.rand(0, 4)
    specs = (((4,), torch.float32),)
    y, vs = flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, output_template_specs=specs)
    assert y.shape == (0, 4) and vs.shape == (0, 4)
    y, v = flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, final_state=True, output_template_specs=specs)
    assert y.shape == (0, 4) and torch.equal(v, torch.zeros(4))


def test_errors() -> None:
    x = torch.rand(3, 4)
    with pytest.raises(TypeError, match="zero_init_states must be a bool"):
        flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=1)  # type: ignore[arg-type]
    # an explicit state on top counts as a lifted tensor: the core cannot take it
    with pytest.raises(ValueError, match="core_fn"):
        flex_sn_scan(lif_core, 1, 1, 1, x, torch.zeros(4), zero_init_states=True)


def test_gradcheck() -> None:
    torch.manual_seed(2)
    args = (
        torch.randn(4, 2, dtype=torch.float64, requires_grad=True),
        torch.randn(4, 2, dtype=torch.float64, requires_grad=True),
    )

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return flex_sn_scan(two_by_two_core, 2, 2, 2, a, b, zero_init_states=True, final_state=True)

    assert torch.autograd.gradcheck(fn, args)


def test_hook_sees_the_flag_and_no_states() -> None:
    seen: list[FusedScanCall] = []

    def hook(call: FusedScanCall) -> None:
        seen.append(call)

    x = torch.rand(3, 4)
    with use_fused_impl(hook):
        flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True)
    (call,) = seen
    assert call.zero_init_states and call.init_states == () and call.flat_args == (x,)


def test_hook_results_are_checked_against_the_step_shape() -> None:
    x = torch.rand(3, 4)

    def bad(call: FusedScanCall) -> tuple[torch.Tensor, ...]:
        return (torch.zeros(3, 4), torch.zeros(3, 5))

    with use_fused_impl(bad), pytest.raises(RuntimeError, match="state sequence 0"):
        flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True)


# ---- Dynamo -------------------------------------------------------------------


@needs_dynamo
def test_capture_is_one_node_with_the_kwarg() -> None:
    torch._dynamo.reset()
    rec = Recorder()
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0)) + 1.5
    run = lambda x: flex_sn_scan(lif_core, 1, 1, 1, x, zero_init_states=True, final_state=True)  # noqa: E731
    out = torch.compile(run, backend=rec, fullgraph=True)(x)
    expected = flex_sn_scan(lif_core, 1, 1, 1, x, torch.zeros(3), final_state=True)
    assert expected[0].any() and not expected[0].all(), "the neurons must fire, and not always"
    assert_all_close(out, expected)
    (gm,) = rec.graphs
    nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
    (node,) = [n for n in nodes if n.target is flex_sn_scan]
    assert all(n.target in (flex_sn_scan, operator.getitem) for n in nodes), gm.code
    assert node.kwargs["zero_init_states"] is True
    assert [tuple(t.shape) for t in node.meta["example_value"]] == [(5, 3), (3,)]


# ---- the fused kernels --------------------------------------------------------


def _spike_lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = torch.sigmoid(4.0 * (h - 1.0))
    return s, h * (1.0 - s)


@needs_kernels
@pytest.mark.parametrize("final_state", [False, True])
def test_fused_graph_has_no_zero_fill(final_state: bool) -> None:
    flexsn_hop.enable_fused_kernels(True)
    try:
        graphs: list[torch.fx.GraphModule] = []

        def keep(gm, _inputs):  # type: ignore[no-untyped-def]
            graphs.append(gm)
            return make_boxed_func(gm.forward)

        fn = lambda a: flex_sn_scan(_spike_lif, 1, 1, 1, a, zero_init_states=True, final_state=final_state)  # noqa: E731
        x = (torch.randn(4, 5, 7, device=DEVICE) * 2).requires_grad_()
        out = aot_function(fn, fw_compiler=keep, bw_compiler=keep)(x)
        sum(o.sum() for o in out).backward()
        (op,) = [n for n in graphs[0].graph.nodes if str(n.target) == "flexsn.training.default"]
        assert (len(op.args) > 2 and op.args[2]) is final_state, op.format_node()
        fills = [
            n for n in graphs[0].graph.nodes
            if n.op == "call_function" and str(n.target).split(".")[-2 if "." in str(n.target) else -1] in ZERO_FILLS
        ]
        assert not fills, graphs[0].code
        assert len(op.args[1]) == 1, op.format_node()  # only the input sequence

        xr = x.detach().clone().requires_grad_()
        ref = flex_sn_scan(_spike_lif, 1, 1, 1, xr, torch.zeros(5, 7, device=DEVICE), final_state=final_state)
        sum(o.sum() for o in ref).backward()
        assert_all_close(out, ref)
        torch.testing.assert_close(x.grad, xr.grad, rtol=1e-5, atol=1e-5)
    finally:
        flexsn_hop.enable_fused_kernels(False)
