"""The register_fused_impl seam: consulted on every path, None falls back."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import torch
from hop_reference import assert_all_close, lif_by_hand, lif_core, lifted_core

from flexsn_hop import (
    FusedScanCall,
    eager_scan,
    flex_sn_scan,
    get_fused_impl,
    register_fused_impl,
    use_fused_impl,
)


class RecordingHook:
    """Records every call; answers with ``answer(call)``."""

    def __init__(self, answer=lambda call: None) -> None:  # type: ignore[no-untyped-def]
        self.calls: list[FusedScanCall] = []
        self.answer = answer

    def __call__(self, call: FusedScanCall) -> Sequence[torch.Tensor] | None:
        self.calls.append(call)
        return self.answer(call)


def sevens(call: FusedScanCall) -> tuple[torch.Tensor, ...]:
    """A recognisable 'fused' result of the right shapes."""
    x = call.input_seqs[0]
    outs = tuple(torch.full_like(x, 7.0) for _ in range(call.num_outputs))
    states = tuple(torch.full((call.T, *s.shape), 7.0) for s in call.init_states)
    return (*outs, *states)


def eager_with_autograd(call: FusedScanCall) -> tuple[torch.Tensor, ...]:
    return eager_scan(
        call.core_fn,
        call.num_inputs,
        call.num_states,
        call.num_outputs,
        *call.flat_args,
        output_template_specs=call.output_template_specs,
    )


def test_register_get_and_context_manager() -> None:
    hook = RecordingHook()
    assert get_fused_impl() is None
    assert register_fused_impl(hook) is None
    assert get_fused_impl() is hook
    other = RecordingHook()
    with use_fused_impl(other):
        assert get_fused_impl() is other
    assert get_fused_impl() is hook
    assert register_fused_impl(None) is hook
    with pytest.raises(TypeError, match="callable or None"):
        register_fused_impl(42)  # type: ignore[arg-type]


def test_declining_hook_falls_back_and_sees_split_args() -> None:
    hook = RecordingHook()
    x, v0, w, bias = (torch.randn(*s) for s in [(5, 3), (3,), (3,), (3,)])
    with use_fused_impl(hook):
        out = flex_sn_scan(lifted_core, 1, 1, 1, x, v0, w, bias)
    assert_all_close(out, eager_scan(lifted_core, 1, 1, 1, x, v0, w, bias))
    (call,) = hook.calls
    assert call.core_fn is lifted_core
    assert (call.num_inputs, call.num_states, call.num_outputs, call.T) == (1, 1, 1, 5)
    assert call.input_seqs[0] is x and call.init_states[0] is v0
    assert call.lifted_args == (w, bias)
    assert call.flat_args == (x, v0, w, bias)
    assert call.dispatch == "autograd" and not call.tracing and not call.requires_grad


def test_hook_result_replaces_the_loop() -> None:
    x, v0 = torch.randn(4, 3), torch.zeros(3)
    with use_fused_impl(RecordingHook(sevens)):
        y, v = flex_sn_scan(lif_core, 1, 1, 1, x, v0)
    assert torch.all(y == 7.0) and torch.all(v == 7.0)
    assert v.shape == (4, 3)


def test_hook_must_return_the_right_count() -> None:
    with use_fused_impl(lambda call: (call.input_seqs[0],)):
        with pytest.raises(RuntimeError, match="returned 1 values, expected num_outputs \\+ num_states = 2"):
            flex_sn_scan(lif_core, 1, 1, 1, torch.randn(4, 3), torch.zeros(3))


def test_validation_runs_before_the_hook() -> None:
    hook = RecordingHook(sevens)
    with use_fused_impl(hook), pytest.raises(ValueError, match="expected T=5"):
        flex_sn_scan(lambda x, y, v: (x, v), 2, 1, 1, torch.zeros(5, 3), torch.zeros(4, 3), torch.zeros(3))
    assert hook.calls == []


def test_hook_owns_autograd_on_the_autograd_path() -> None:
    hook = RecordingHook(eager_with_autograd)
    leaves = [torch.randn(*s, requires_grad=True) for s in [(4, 3), (3,), (3,), (3,)]]
    with use_fused_impl(hook):
        out = flex_sn_scan(lifted_core, 1, 1, 1, *leaves)
    grads = torch.autograd.grad(out[0].sum() + out[1].sum(), leaves)
    ref = eager_scan(lifted_core, 1, 1, 1, *leaves)
    assert_all_close(grads, torch.autograd.grad(ref[0].sum() + ref[1].sum(), leaves))
    (call,) = hook.calls
    assert call.requires_grad


def test_hook_is_consulted_while_aot_tracing() -> None:
    hook = RecordingHook(sevens)
    compiled = torch.compile(
        lambda x, v: flex_sn_scan(lif_core, 1, 1, 1, x, v), backend="aot_eager", fullgraph=True
    )
    with use_fused_impl(hook):
        y, v = compiled(torch.randn(4, 3), torch.zeros(3))
    assert torch.all(y == 7.0) and torch.all(v == 7.0)
    assert hook.calls and all(c.tracing for c in hook.calls[1:])
    assert hook.calls[-1].tracing
    # Dynamo hands the hook its traced body and the output templates.
    assert isinstance(hook.calls[-1].core_fn, torch.fx.GraphModule)
    assert hook.calls[-1].output_template_specs == (((3,), torch.float32),)


def test_hook_on_proxy_and_fake_paths_under_inference_mode() -> None:
    from torch.fx.experimental.proxy_tensor import make_fx

    hook = RecordingHook()
    x = torch.rand(3, 2) * 3
    with use_fused_impl(hook), torch.inference_mode():
        gm = make_fx(lambda x, v: flex_sn_scan(lif_core, 1, 1, 1, x, v), tracing_mode="fake")(x, torch.zeros(2))
    assert {c.dispatch for c in hook.calls} <= {"proxy", "fake", "functionalize"}
    assert hook.calls and all(c.tracing for c in hook.calls)
    assert_all_close(gm(x, torch.zeros(2)), lif_by_hand(x, torch.zeros(2)))
