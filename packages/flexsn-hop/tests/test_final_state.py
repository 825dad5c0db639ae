"""``flex_sn_scan(..., final_state=True)``: eager, autograd, hook and Dynamo.

The final-state form returns ``(*output_seqs, *final_states)``, the semantics
of ``eager_scan_final_state``. These tests run with no fused hook (conftest
clears it); ``test_kernels.py`` covers the runtime's fused kernels.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

import pytest
import torch
import torch._dynamo
import torch._dynamo.utils
from hop_reference import (
    Recorder,
    assert_all_close,
    lif_by_hand,
    lif_core,
    lifted_core,
    python_loop,
    scan_nodes,
    smooth_lif_core,
    two_by_two_by_hand,
    two_by_two_core,
)
from flexsn_hop import (
    FusedScanCall,
    dynamo_hop_available,
    eager_scan,
    eager_scan_final_state,
    flex_sn_scan,
    use_fused_impl,
)

needs_dynamo = pytest.mark.skipif(not dynamo_hop_available(), reason="Dynamo registration failed")


def final(*args: torch.Tensor | object, **kwargs: object) -> tuple[torch.Tensor, ...]:
    return flex_sn_scan(*args, final_state=True, **kwargs)  # type: ignore[arg-type]


# ---- eager semantics ----------------------------------------------------------


def test_lif_final_state_is_last_step() -> None:
    torch.manual_seed(0)
    x, v0 = torch.rand(7, 2, 3) * 3.0, torch.rand(2, 3)
    y, v = final(lif_core, 1, 1, 1, x, v0)
    ys, vs = lif_by_hand(x, v0)
    assert v.shape == (2, 3)
    assert_all_close((y, v), (ys, vs[-1]))
    assert_all_close((y, v), eager_scan_final_state(lif_core, 1, 1, 1, x, v0))


def test_two_by_two_and_lifted_match_eager_scan_final_state() -> None:
    torch.manual_seed(1)
    args = (torch.randn(5, 2), torch.randn(5, 2), torch.randn(2), torch.randn(2))
    out = final(two_by_two_core, 2, 2, 2, *args)
    by_hand = two_by_two_by_hand(*args)
    assert_all_close(out, (*by_hand[:2], by_hand[2][-1], by_hand[3][-1]))
    lifted = (torch.randn(4, 3), torch.randn(3), torch.randn(3), torch.randn(3))
    assert_all_close(final(lifted_core, 1, 1, 1, *lifted), eager_scan_final_state(lifted_core, 1, 1, 1, *lifted))


def test_false_keeps_the_state_sequences() -> None:
    x, v0 = torch.rand(4, 3) * 3, torch.zeros(3)
    assert_all_close(flex_sn_scan(lif_core, 1, 1, 1, x, v0, final_state=False), lif_by_hand(x, v0))


def test_t0_outputs_from_templates_and_clones_of_initial_states() -> None:
    calls = []

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        calls.append(1)
        return x, v

    v0 = torch.randn(2, 3)
    y, v = final(core, 1, 1, 1, torch.empty(0, 2, 3), v0, output_template_specs=(((2, 3), torch.float16),))
    assert calls == []
    assert y.shape == (0, 2, 3) and y.dtype == torch.float16
    assert v.shape == (2, 3) and v is not v0 and v.data_ptr() != v0.data_ptr()
    torch.testing.assert_close(v, v0)
    (y,) = final(lambda x, v: (x, v), 1, 1, 1, torch.empty(0, 3), torch.zeros(3))[:1]  # no templates: one fake step
    assert y.shape == (0, 3)
    with pytest.raises(ValueError, match=r"T == 0 requires output_template_specs .*calls\.append"):
        final(core, 1, 1, 1, torch.empty(0, 3), torch.zeros(3))  # a core changing outside state: no fake step
    assert calls == []

    def branching(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x, v) if bool((x > 0).any()) else (-x, v)

    with pytest.raises(ValueError, match="T == 0 requires output_template_specs"):
        final(branching, 1, 1, 1, torch.empty(0, 3), torch.zeros(3))


@pytest.mark.parametrize("bad", [1, 0, "yes", None, torch.tensor(True)])
def test_non_bool_final_state_raises(bad: object) -> None:
    with pytest.raises(TypeError, match="final_state must be a bool"):
        flex_sn_scan(lif_core, 1, 1, 1, torch.rand(3, 2), torch.zeros(2), final_state=bad)  # type: ignore[arg-type]


def test_validation_still_applies() -> None:
    with pytest.raises(ValueError, match="expected T=5"):
        final(lambda x, y, v: (x, v), 2, 1, 1, torch.zeros(5, 3), torch.zeros(4, 3), torch.zeros(3))


def test_inference_mode_and_fake_tensor_mode_shapes() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    x, v0 = torch.rand(5, 2) * 3, torch.zeros(2)
    with torch.inference_mode():
        y, v = final(lif_core, 1, 1, 1, x, v0)
    assert_all_close((y, v), (lif_by_hand(x, v0)[0], lif_by_hand(x, v0)[1][-1]))
    with FakeTensorMode():
        out = final(two_by_two_core, 2, 2, 2, torch.empty(5, 2), torch.empty(5, 2), torch.empty(2), torch.empty(2))
    assert [tuple(o.shape) for o in out] == [(5, 2), (5, 2), (2,), (2,)]


def test_make_fx_stacks_outputs_only() -> None:
    from torch.fx.experimental.proxy_tensor import make_fx

    x, v0 = torch.rand(3, 2) * 3, torch.zeros(2)
    gm = make_fx(lambda x, v: final(lif_core, 1, 1, 1, x, v), tracing_mode="fake")(x, v0)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert flex_sn_scan not in targets
    assert targets.count(torch.ops.aten.stack.default) == 1  # the spikes; no state sequence
    ys, vs = lif_by_hand(x, v0)
    assert_all_close(gm(x, v0), (ys, vs[-1]))


# ---- autograd -----------------------------------------------------------------


def test_gradcheck_final_state_float64() -> None:
    torch.manual_seed(4)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    v0 = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *a: final(lifted_core, 1, 1, 1, *a), (x, v0, w, bias))
    assert torch.autograd.gradcheck(lambda x, v0: final(smooth_lif_core, 1, 1, 1, x, v0), (x, v0))
    args = tuple(torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in [(3, 2), (3, 2), (2,), (2,)])
    assert torch.autograd.gradcheck(lambda *a: final(two_by_two_core, 2, 2, 2, *a), args)
    assert torch.autograd.gradgradcheck(lambda x, v0: final(smooth_lif_core, 1, 1, 1, x, v0), (x, v0))


def test_grads_match_the_sliced_sequences() -> None:
    torch.manual_seed(6)
    leaves = [torch.randn(*s, requires_grad=True) for s in [(6, 3), (3,), (3,), (3,)]]
    y, v = final(lifted_core, 1, 1, 1, *leaves)
    grads = torch.autograd.grad((y * torch.arange(6.0)[:, None]).sum() + v.pow(2).sum(), leaves)
    (ry, rvs), _ = python_loop(lifted_core, 1, leaves[:1], leaves[1:2], leaves[2:])
    ref = torch.autograd.grad((ry * torch.arange(6.0)[:, None]).sum() + rvs[-1].pow(2).sum(), leaves)
    assert_all_close(grads, ref)


def test_torch_func_grad_and_vmap() -> None:
    torch.manual_seed(11)
    x, v0 = torch.randn(4, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)

    def loss(x: torch.Tensor) -> torch.Tensor:
        y, v = final(smooth_lif_core, 1, 1, 1, x, v0)
        return y.sum() + v.pow(2).sum()

    def ref_loss(x: torch.Tensor) -> torch.Tensor:
        (y, _), (v,) = python_loop(smooth_lif_core, 1, [x], [v0])
        return y.sum() + v.pow(2).sum()

    torch.testing.assert_close(torch.func.grad(loss)(x), torch.func.grad(ref_loss)(x))
    batch = torch.rand(2, 4, 3) * 3
    ys, vs = torch.vmap(lambda xb: final(lif_core, 1, 1, 1, xb, torch.zeros(3)))(batch)
    assert vs.shape == (2, 3)
    for b in range(2):
        ry, rv = lif_by_hand(batch[b], torch.zeros(3))
        assert_all_close((ys[b], vs[b]), (ry, rv[-1]))


# ---- the fused hook -------------------------------------------------------------


class RecordingHook:
    """Records every call; answers with ``answer(call)`` (``None``: decline)."""

    def __init__(self, answer: Callable[[FusedScanCall], Sequence[torch.Tensor] | None] = lambda call: None) -> None:
        self.calls: list[FusedScanCall] = []
        self.answer = answer

    def __call__(self, call: FusedScanCall) -> Sequence[torch.Tensor] | None:
        self.calls.append(call)
        return self.answer(call)


def _final_sevens(call: FusedScanCall) -> tuple[torch.Tensor, ...]:
    x = call.input_seqs[0]
    outs = tuple(torch.full_like(x, 7.0) for _ in range(call.num_outputs))
    if call.final_state:
        return (*outs, *(torch.full_like(s, 7.0) for s in call.init_states))
    return (*outs, *(torch.full((call.T, *s.shape), 7.0) for s in call.init_states))


def test_hook_sees_the_flag_and_its_result_is_used() -> None:
    hook = RecordingHook(_final_sevens)
    x, v0 = torch.randn(4, 3), torch.zeros(3)
    with use_fused_impl(hook):
        y, v = final(lif_core, 1, 1, 1, x, v0)
        _, vs = flex_sn_scan(lif_core, 1, 1, 1, x, v0)
    assert v.shape == (3,) and torch.all(v == 7.0) and torch.all(y == 7.0)
    assert vs.shape == (4, 3)
    assert [c.final_state for c in hook.calls] == [True, False]


def test_hook_shapes_are_checked() -> None:
    x, v0 = torch.randn(4, 3), torch.zeros(3)

    def ignores_flag(call: FusedScanCall) -> tuple[torch.Tensor, ...]:
        return (torch.zeros_like(x), torch.zeros(call.T, 3))

    with use_fused_impl(ignores_flag):
        with pytest.raises(RuntimeError, match=r"final state 0 of shape \(4, 3\), expected \(3,\)"):
            final(lif_core, 1, 1, 1, x, v0)
    with use_fused_impl(lambda call: (torch.zeros_like(x), torch.zeros(3))):
        with pytest.raises(RuntimeError, match=r"state sequence 0 of shape \(3,\), expected \(4, 3\)"):
            flex_sn_scan(lif_core, 1, 1, 1, x, v0)
    with use_fused_impl(lambda call: (torch.zeros(3), torch.zeros(3))):
        with pytest.raises(RuntimeError, match=r"output 0 of shape \(3,\), expected a sequence \[T=4"):
            final(lif_core, 1, 1, 1, x, v0)


def test_declining_hook_runs_the_final_state_loop() -> None:
    hook = RecordingHook()
    x, v0 = torch.rand(5, 3) * 3, torch.zeros(3)
    with use_fused_impl(hook):
        y, v = final(lif_core, 1, 1, 1, x, v0)
    ys, vs = lif_by_hand(x, v0)
    assert_all_close((y, v), (ys, vs[-1]))
    (call,) = hook.calls
    assert call.final_state and call.dispatch == "autograd"


# ---- Dynamo -------------------------------------------------------------------


@needs_dynamo
def test_capture_is_one_node_with_final_state_kwarg() -> None:
    torch.manual_seed(2)
    w = torch.randn(3)

    def run(x: torch.Tensor, v0: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = v + (x * w - v) / 2.0
            spike = torch.sigmoid(4.0 * (h - 1.0))
            return spike, h * (1.0 - spike)

        return final(core, 1, 1, 1, x, v0)

    torch._dynamo.utils.counters.clear()
    rec = Recorder()
    x, v0 = torch.randn(5, 3), torch.zeros(3)
    out = torch.compile(run, backend=rec, fullgraph=True)(x, v0)
    assert_all_close(out, run(x, v0))
    assert out[1].shape == (3,)
    (gm,) = rec.graphs
    (node,) = scan_nodes(gm)
    others = [n for n in gm.graph.nodes if n.op == "call_function" and n.target not in (flex_sn_scan, operator.getitem)]
    assert others == []
    assert node.kwargs["final_state"] is True
    assert node.kwargs["output_template_specs"] == (((3,), torch.float32),)
    example = node.meta["example_value"]
    assert [tuple(t.shape) for t in example] == [(5, 3), (3,)]
    assert dict(torch._dynamo.utils.counters["graph_break"]) == {}


@needs_dynamo
def test_default_call_records_no_final_state_kwarg() -> None:
    rec = Recorder()
    torch.compile(lambda x, v: flex_sn_scan(lif_core, 1, 1, 1, x, v, final_state=False), backend=rec, fullgraph=True)(
        torch.rand(3, 2), torch.zeros(2)
    )
    (node,) = scan_nodes(rec.graphs[0])
    assert "final_state" not in node.kwargs


@needs_dynamo
def test_non_constant_final_state_does_not_compile_fullgraph() -> None:
    def run(x: torch.Tensor, v: torch.Tensor, flag: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return flex_sn_scan(lif_core, 1, 1, 1, x, v, final_state=flag)  # type: ignore[arg-type]

    with pytest.raises(Exception, match="final_state must be a constant bool"):
        torch.compile(run, backend="eager", fullgraph=True)(torch.rand(3, 2), torch.zeros(2), torch.tensor(True))


@needs_dynamo
def test_aot_eager_forward_and_backward_and_t0() -> None:
    torch.manual_seed(9)
    compiled = torch.compile(
        lambda x, v: final(smooth_lif_core, 1, 1, 1, x, v, output_template_specs=(((3,), torch.float32),)),
        backend="aot_eager",
        fullgraph=True,
    )
    for T in (3, 5):
        x = torch.randn(T, 3, requires_grad=True)
        v0 = torch.randn(3, requires_grad=True)
        out = compiled(x, v0)
        ref = eager_scan_final_state(smooth_lif_core, 1, 1, 1, x, v0)
        assert_all_close(out, ref)
        grads = torch.autograd.grad(out[0].sum() + out[1].pow(2).sum(), (x, v0))
        ref_grads = torch.autograd.grad(ref[0].sum() + ref[1].pow(2).sum(), (x, v0))
        assert_all_close(grads, ref_grads)
    v0 = torch.randn(3)
    y, v = compiled(torch.empty(0, 3), v0)
    assert y.shape == (0, 3) and v.shape == (3,)
    torch.testing.assert_close(v, v0)


@needs_dynamo
def test_inductor_matches_eager() -> None:
    torch.manual_seed(10)
    x = torch.randn(4, 3, requires_grad=True)
    v0 = torch.randn(3)
    compiled = torch.compile(lambda x, v: final(smooth_lif_core, 1, 1, 1, x, v), fullgraph=True)
    out = compiled(x, v0)
    ref = eager_scan(smooth_lif_core, 1, 1, 1, x, v0)
    assert_all_close(out, (ref[0], ref[1][-1]))
    (g,) = torch.autograd.grad(out[0].sum() + out[1].sum(), (x,))
    (rg,) = torch.autograd.grad(ref[0].sum() + ref[1][-1].sum(), (x,))
    torch.testing.assert_close(g, rg)
