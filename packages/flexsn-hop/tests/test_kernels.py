"""flex_sn_scan on the runtime's fused kernels (flexsn_hop.kernels).

References are explicit Python loops; graphs are captured with aot_function
so the tests can assert the scan became one custom-op node per direction,
whatever T is.
"""

from __future__ import annotations

import os
import warnings

import pytest
import torch
from functorch.compile import aot_function, make_boxed_func

import flexsn_hop
from flexsn_hop import flex_sn_scan

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture(autouse=True)
def _fused_kernels():  # type: ignore[no-untyped-def]
    # conftest clears the hook around every test; these tests are about it
    flexsn_hop.enable_fused_kernels(True)
    yield
    flexsn_hop.enable_fused_kernels(False)


class _Spike(torch.autograd.Function):
    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return (x >= 0).to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(4.0 * x)
        return g * 4.0 * s * (1.0 - s)


def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = _Spike.apply(h - 1.0)
    return s, h * (1.0 - s)


def loop(core, x, v):  # type: ignore[no-untyped-def]
    ys, vs = [], []
    for t in range(x.shape[0]):
        y, v = core(x[t], v)
        ys.append(y)
        vs.append(v)
    return torch.stack(ys), torch.stack(vs)


def _capture(fn, *args):  # type: ignore[no-untyped-def]
    graphs: list[torch.fx.GraphModule] = []

    def keep(gm, _inputs):  # type: ignore[no-untyped-def]
        graphs.append(gm)
        return make_boxed_func(gm.forward)

    out = aot_function(fn, fw_compiler=keep, bw_compiler=keep)(*args)
    return out, graphs


def _targets(gm: torch.fx.GraphModule) -> list[str]:
    """Call targets; a flexsn op's final-state variant as ``<target>:final_state``."""
    return [_target(n) for n in gm.graph.nodes if n.op == "call_function"]


def _target(n: torch.fx.Node) -> str:
    final = n.args[2] if len(n.args) > 2 else n.kwargs.get("final_state", False)
    suffix = ":final_state" if str(n.target) in ("flexsn.training.default", "flexsn.inference.default") and final else ""
    return str(n.target) + suffix


def test_enable_and_disable() -> None:
    assert flexsn_hop.fused_kernels_enabled()
    flexsn_hop.enable_fused_kernels(False)
    assert not flexsn_hop.fused_kernels_enabled() and flexsn_hop.get_fused_impl() is None
    flexsn_hop.enable_fused_kernels(True)
    assert flexsn_hop.get_fused_impl() is not None


@pytest.mark.parametrize("T", [3, 11])
def test_traced_scan_is_one_custom_op_per_direction(T: int) -> None:
    x = (torch.randn(T, 5, 7, device=DEVICE) * 2).requires_grad_()
    v0 = torch.randn(5, 7, device=DEVICE)
    out, graphs = _capture(lambda a, b: flex_sn_scan(lif, 1, 1, 1, a, b), x, v0)
    gy, gv = torch.randn_like(out[0]), torch.randn_like(out[1])
    torch.autograd.backward(out, [gy, gv])
    fwd, bwd = _targets(graphs[0]), _targets(graphs[1])
    assert fwd.count("flexsn.training.default") == 1 and len(fwd) < 8, fwd
    assert bwd.count("flexsn.backward.default") == 1 and len(bwd) < 10, bwd

    xr = x.detach().clone().requires_grad_()
    ref = loop(lif, xr, v0)
    torch.autograd.backward(ref, [gy, gv])
    torch.testing.assert_close(out[0], ref[0])
    torch.testing.assert_close(out[1], ref[1], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-5, atol=1e-5)


def test_compiled_scan_matches_eager_forward_and_backward() -> None:
    lin = torch.nn.Linear(6, 6).to(DEVICE)

    def net(x: torch.Tensor) -> torch.Tensor:
        s, v = flex_sn_scan(lif, 1, 1, 1, lin(x), torch.zeros(x.shape[1:], device=x.device))
        return (s * 2).sum() + v.square().sum()

    x = torch.randn(5, 3, 6, device=DEVICE)
    torch._dynamo.reset()
    out = torch.compile(net, fullgraph=True, backend="aot_eager")(x)
    out.backward()
    g = lin.weight.grad.clone()
    lin.weight.grad = None
    y = lin(x)
    s, v = loop(lif, y, torch.zeros(3, 6, device=DEVICE))
    ref = (s * 2).sum() + v.square().sum()
    ref.backward()
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(g, lin.weight.grad, rtol=1e-5, atol=1e-5)


def test_unsupported_body_warns_and_runs_the_loop() -> None:
    def weird(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v * 0.5 + torch.cumsum(x, 0)
        return v * 2, v

    x = torch.randn(4, 5, device=DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y, v = flex_sn_scan(weird, 1, 1, 1, x, torch.zeros(5, device=DEVICE))
    assert any("cumsum" in str(w.message) for w in caught)
    ry, rv = loop(weird, x, torch.zeros(5, device=DEVICE))
    torch.testing.assert_close(y, ry)
    torch.testing.assert_close(v, rv)


def test_lifted_tensors_and_float64_decline_to_the_loop() -> None:
    w = torch.randn(5, device=DEVICE)

    def with_weight(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v * 0.5 + x * w
        return v, v

    x = torch.randn(4, 5, device=DEVICE)
    y, _ = flex_sn_scan(with_weight, 1, 1, 1, x, torch.zeros(5, device=DEVICE), w)
    ref = loop(lambda a, b: with_weight(a, b, w), x, torch.zeros(5, device=DEVICE))
    torch.testing.assert_close(y, ref[0])

    x64 = torch.randn(4, 5, dtype=torch.float64, device=DEVICE, requires_grad=True)
    v64 = torch.zeros(5, dtype=torch.float64, device=DEVICE)
    assert torch.autograd.gradcheck(lambda a: flex_sn_scan(lambda p, q: (torch.tanh(p + q), p + 0.5 * q), 1, 1, 1, a, v64), (x64,))


# ---- final_state=True: the final-state kernels ------------------------------------

#: how a state-sequence gradient gets built from the final state's one:
#: select's backward (aot_eager) or a zero fill + scatter (decomposed)
_SEQ_GRAD_FILLS = (
    "aten.zeros", "aten.zeros_like", "aten.new_zeros", "aten.full", "aten.full_like", "aten.new_full",
    "aten.fill", "aten.fill_", "aten.zero_", "aten.select_backward", "aten.select_scatter",
)


def _seq_grad_fills(gm: torch.fx.GraphModule, T: int) -> list[torch.fx.Node]:
    """Zero fills / select backwards in ``gm`` producing a ``[T, ...]`` tensor."""
    found = []
    for n in gm.graph.nodes:
        if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        if f"{n.target.namespace}.{n.target._opname}" not in _SEQ_GRAD_FILLS:
            continue
        val = n.meta.get("val")
        if isinstance(val, torch.Tensor) and val.dim() > 0 and val.shape[0] == T:
            found.append(n)
    return found


def _last(core, x, v):  # type: ignore[no-untyped-def]
    ys, vs = loop(core, x, v)
    return ys, vs[-1]


@pytest.mark.parametrize("T", [3, 11])
def test_traced_final_state_scan_uses_the_final_state_ops(T: int) -> None:
    x = (torch.randn(T, 5, 7, device=DEVICE) * 2).requires_grad_()
    v0 = torch.randn(5, 7, device=DEVICE)
    out, graphs = _capture(lambda a, b: flex_sn_scan(lif, 1, 1, 1, a, b, final_state=True), x, v0)
    assert out[1].shape == (5, 7)
    gy, gv = torch.randn_like(out[0]), torch.randn_like(out[1])
    torch.autograd.backward(out, [gy, gv])
    fwd, bwd = _targets(graphs[0]), _targets(graphs[1])
    assert fwd.count("flexsn.training.default:final_state") == 1 and "flexsn.training.default" not in fwd, fwd
    assert bwd.count("flexsn.backward.default") == 1, bwd
    (op,) = [n for n in graphs[1].graph.nodes if str(n.target) == "flexsn.backward.default"]
    assert op.args[-1] is True or op.kwargs.get("final_state") is True, op.format_node()
    assert not _seq_grad_fills(graphs[1], T), graphs[1].code

    xr = x.detach().clone().requires_grad_()
    ref = _last(lif, xr, v0)
    torch.autograd.backward(ref, [gy, gv])
    torch.testing.assert_close(out[0], ref[0])
    torch.testing.assert_close(out[1], ref[1], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-5, atol=1e-5)


def test_sliced_state_sequence_is_what_final_state_avoids() -> None:
    """The detector above sees the zero-filled [T, ...] gradient of ``state_seq[-1]``."""
    T = 4
    x = (torch.randn(T, 5, device=DEVICE) * 2).requires_grad_()
    v0 = torch.randn(5, device=DEVICE)

    def sliced(a, b):  # type: ignore[no-untyped-def]
        y, vs = flex_sn_scan(lif, 1, 1, 1, a, b)
        return y, vs[-1]

    out, graphs = _capture(sliced, x, v0)
    torch.autograd.backward(out, [torch.ones_like(out[0]), torch.ones_like(out[1])])
    assert _seq_grad_fills(graphs[1], T), graphs[1].code


def test_traced_final_state_inference_uses_the_final_state_op() -> None:
    from torch.fx.experimental.proxy_tensor import make_fx

    x, v0 = torch.randn(6, 4, device=DEVICE) * 2, torch.randn(4, device=DEVICE)
    with torch.no_grad():
        gm = make_fx(lambda a, b: flex_sn_scan(lif, 1, 1, 1, a, b, final_state=True), tracing_mode="fake")(x, v0)
    targets = _targets(gm)
    assert targets.count("flexsn.inference.default:final_state") == 1, targets
    assert "flexsn.inference.default" not in targets, targets
    got = gm(x, v0)
    assert got[1].shape == (4,)
    ref = _last(lif, x, v0)
    torch.testing.assert_close(got[0], ref[0])
    torch.testing.assert_close(got[1], ref[1], rtol=1e-5, atol=1e-5)


def test_eager_final_state_on_the_kernels_matches_the_loop() -> None:
    torch.manual_seed(3)
    x = (torch.randn(7, 3, 4, device=DEVICE) * 2).requires_grad_()
    v0 = torch.randn(3, 4, device=DEVICE).requires_grad_()
    y, v = flex_sn_scan(lif, 1, 1, 1, x, v0, final_state=True)
    assert v.shape == (3, 4)
    gy, gv = torch.randn_like(y), torch.randn_like(v)
    gx, gv0 = torch.autograd.grad((y, v), (x, v0), (gy, gv))
    xr, vr = x.detach().clone().requires_grad_(), v0.detach().clone().requires_grad_()
    ry, rv = _last(lif, xr, vr)
    rgx, rgv0 = torch.autograd.grad((ry, rv), (xr, vr), (gy, gv))
    torch.testing.assert_close(y, ry)
    torch.testing.assert_close(v, rv, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gx, rgx, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gv0, rgv0, rtol=1e-5, atol=1e-5)
    # only the output's gradient: the final state's is None (no zero fill needed)
    y2, _ = flex_sn_scan(lif, 1, 1, 1, x, v0, final_state=True)
    (gx_only,) = torch.autograd.grad(y2, x, gy)
    (rgx_only,) = torch.autograd.grad(_last(lif, xr, vr)[0], xr, gy)
    torch.testing.assert_close(gx_only, rgx_only, rtol=1e-5, atol=1e-5)
    assert flexsn_hop.fused_kernel_for(lif, 1, 1, 1) is not None  # the kernels ran, not the loop
    with torch.no_grad():
        ny, nv = flex_sn_scan(lif, 1, 1, 1, x, v0, final_state=True)
    torch.testing.assert_close(ny, ry)
    torch.testing.assert_close(nv, rv, rtol=1e-5, atol=1e-5)


def test_t0_final_state_declines_to_the_seed_rule() -> None:
    v0 = torch.randn(5, device=DEVICE)
    y, v = flex_sn_scan(lif, 1, 1, 1, torch.empty(0, 5, device=DEVICE), v0,
                        output_template_specs=(((5,), torch.float32),), final_state=True)
    assert y.shape == (0, 5) and v.shape == (5,) and v is not v0
    torch.testing.assert_close(v, v0)


def test_compiled_final_state_scan_is_one_node_and_fused() -> None:
    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd

    lin = torch.nn.Linear(6, 6).to(DEVICE)
    dynamo_graphs: list[torch.fx.GraphModule] = []
    aot: dict[str, list[torch.fx.GraphModule]] = {"fw": [], "bw": []}

    def keep(kind):  # type: ignore[no-untyped-def]
        def compiler(gm, _inputs):  # type: ignore[no-untyped-def]
            aot[kind].append(gm)
            return make_boxed_func(gm.forward)

        return compiler

    def backend(gm, example_inputs):  # type: ignore[no-untyped-def]
        dynamo_graphs.append(gm)
        return aot_autograd(fw_compiler=keep("fw"), bw_compiler=keep("bw"),
                            partition_fn=min_cut_rematerialization_partition)(gm, example_inputs)

    def net(x: torch.Tensor) -> torch.Tensor:
        s, v = flex_sn_scan(lif, 1, 1, 1, lin(x), torch.zeros(x.shape[1:], device=x.device), final_state=True)
        return (s * 2).sum() + v.square().sum()

    T = 5
    x = torch.randn(T, 3, 6, device=DEVICE)
    torch._dynamo.reset()
    out = torch.compile(net, fullgraph=True, backend=backend)(x)
    out.backward()
    g = lin.weight.grad.clone()
    lin.weight.grad = None
    s, v = _last(lif, lin(x), torch.zeros(3, 6, device=DEVICE))
    ref = (s * 2).sum() + v.square().sum()
    ref.backward()
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(g, lin.weight.grad, rtol=1e-5, atol=1e-5)

    (gm,) = dynamo_graphs
    scans = [n for n in gm.graph.nodes if n.target is flex_sn_scan]
    assert len(scans) == 1 and scans[0].kwargs["final_state"] is True
    (fw,), (bw,) = aot["fw"], aot["bw"]
    assert _targets(fw).count("flexsn.training.default:final_state") == 1, fw.code
    assert "flexsn.training.default" not in _targets(fw), fw.code
    assert _targets(bw).count("flexsn.backward.default") == 1, bw.code
    assert not _seq_grad_fills(bw, T), bw.code


@pytest.mark.parametrize("final", [False, True], ids=["sequences", "final_state"])
@pytest.mark.parametrize("shape", [(4,), (3, 1), ()])
def test_an_initial_state_that_broadcasts_runs_fused_and_grows_as_in_the_loop(shape: tuple[int, ...], final: bool) -> None:
    """An initial state ``[4]`` (or ``[3, 1]``, a scalar) with inputs ``[T, 3, 4]``: the loop's first step grows it to
    ``[3, 4]``, and so do the fused kernels (the runtime fits the call to one shape). Before, the operator's
    result check expected ``[T, 4]`` state sequences and raised ``RuntimeError`` on the kernels' right answer."""
    torch.manual_seed(5)
    x = (torch.randn(6, 3, 4, device=DEVICE) * 2).requires_grad_()
    v0 = torch.rand(shape, device=DEVICE).requires_grad_()
    y, v = flex_sn_scan(lif, 1, 1, 1, x, v0, final_state=final)
    assert flexsn_hop.fused_kernel_for(lif, 1, 1, 1) is not None  # the kernels ran, not the loop
    xr, vr = x.detach().clone().requires_grad_(), v0.detach().clone().requires_grad_()
    ry, rv = _last(lif, xr, vr) if final else loop(lif, xr, vr)
    assert v.shape == rv.shape == ((3, 4) if final else (6, 3, 4))
    gy, gv = torch.randn_like(y), torch.randn_like(v)
    got = torch.autograd.grad((y, v), (x, v0), (gy, gv))
    want = torch.autograd.grad((ry, rv), (xr, vr), (gy, gv))
    for g, w in zip((y, v, *got), (ry, rv, *want)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    compiled = torch.compile(lambda a, b: flex_sn_scan(lif, 1, 1, 1, a, b, final_state=final), fullgraph=True)
    try:
        for g, w in zip(compiled(x.detach(), v0.detach()), (ry, rv)):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    finally:
        torch._dynamo.reset()
