"""Launch plans for the ``flexsn::*`` ops (``flexsn_runtime.op_plans``), the calls a compiled graph makes:
repeated op calls of one signature launch from plans and give what the loop and autograd through it give,
forward and backward, with static inputs and missing gradients; their results share no storage; calls a
plan does not fit take the derived path."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_runtime import FlexSNKernel, flexsn_inference_op, flexsn_training_op
from flexsn_runtime.launch_plan import BackwardPlan
from test_launch_plan import decay, plan_runs

STEP = (2, 3, 4)


def _statics(seed: int, device: torch.device) -> list[torch.Tensor]:
    """A scalar decay and a per-channel threshold, in the ops' layout form (``[1, C, 1]`` beside ``[B, C, L]``)."""
    return [torch.tensor(0.3 * seed - 0.2, device=device), torch.linspace(0.8, 1.2, 3, device=device).view(1, 3, 1) + 0.05 * seed]


def _op_step(k: FlexSNKernel, ref: Any, core: Any, x: torch.Tensor, statics: list[torch.Tensor], final_state: bool,
             explicit: bool, drop_state_grad: bool) -> None:
    """One training call through ``flexsn::training`` (and its backward op), checked against the loop."""
    v0 = torch.rand(x.shape[1:], device=x.device) if explicit else torch.zeros(x.shape[1:], device=x.device)
    leaf_x, leaf_v = x.detach().clone().requires_grad_(), v0.clone().requires_grad_()
    leaf_w = [w.detach().clone().requires_grad_() for w in statics]
    flat = [leaf_x, *([leaf_v] if explicit else []), *leaf_w]
    out = flexsn_training_op(k.handle, flat, final_state)[: core.no + core.ns]
    r_x, r_v = x.detach().clone().requires_grad_(), v0.clone().requires_grad_()
    r_w = [w.detach().clone().requires_grad_() for w in statics]
    fn = (lambda *a: core.fn(*a, *r_w)) if statics else core.fn
    outs, seqs = ref.loop(ref.Core(fn, core.ni, core.ns, core.no), [r_x], [r_v])
    want = [*outs, *(s[-1] for s in seqs)] if final_state else [*outs, *seqs]
    for got, w in zip(out, want):
        torch.testing.assert_close(got, w, rtol=1e-5, atol=1e-5)
    g = torch.Generator().manual_seed(3)
    grads: list[torch.Tensor | None] = [torch.randn(t.shape, generator=g).to(t) for t in want]
    if drop_state_grad:
        grads[-1] = None  # a missing incoming gradient: the backward plan of that pattern
    torch.autograd.backward([o for o, gr in zip(out, grads) if gr is not None], [gr for gr in grads if gr is not None])
    torch.autograd.backward([o for o, gr in zip(want, grads) if gr is not None], [gr for gr in grads if gr is not None])
    mine, theirs = [leaf_x, *([leaf_v] if explicit else []), *leaf_w], [r_x, *([r_v] if explicit else []), *r_w]
    for a, b in zip(mine, theirs):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("with_statics", [False, True], ids=["lif", "statics"])
@pytest.mark.parametrize("final_state", [True, False])
@pytest.mark.parametrize("explicit", [False, True], ids=["zero-states", "states"])
@pytest.mark.parametrize("drop_state_grad", [False, True], ids=["all-grads", "no-state-grad"])
def test_op_calls_run_from_plans_and_match_the_loop(
    with_statics: bool, final_state: bool, explicit: bool, drop_state_grad: bool, device: torch.device, ref: Any,
    kernels: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    if with_statics:
        k, core = FlexSNKernel(decay, 1, 1, 1, num_static=2), ref.Core(decay, 1, 1, 1)
    else:
        k, core = kernels["lif"], ref.CORES["lif"]
    runs = plan_runs(monkeypatch)
    for seed in range(4):
        xs, _ = ref.make_data(ref.CORES["lif"], 5, STEP, device, seed=seed)
        _op_step(k, ref, core, xs[0], _statics(seed, device) if with_statics else [], final_state, explicit, drop_state_grad)
    # from the second call of the signature on (the first on the CPU) the ops launch from plans
    assert runs["forward"][-2:] == [True, True] and runs["backward"][-2:] == [True, True]


def test_inference_op_calls_run_from_plans(device: torch.device, ref: Any, kernels: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    core, k = ref.CORES["two"], kernels["two"]
    runs = plan_runs(monkeypatch)
    for seed in range(3):
        xs, s0 = ref.make_data(core, 5, STEP, device, seed=seed)
        for final_state in (False, True):
            got = flexsn_inference_op(k.handle, [*xs, *s0], final_state)
            outs, seqs = ref.loop(core, xs, s0)
            want = [*outs, *(s[-1] for s in seqs)] if final_state else [*outs, *seqs]
            for a, b in zip(got, want):
                torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert runs["forward"][-2:] == [True, True]


def test_a_planned_op_backward_gives_each_static_its_own_storage(device: torch.device, ref: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A custom op's results must not share storage: two statics of one layout (which the eager path sums in one
    shared buffer) get separate gradients; later backwards leave earlier gradients as they were."""
    def summed_threshold(x: torch.Tensor, v: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return decay(x, v, torch.zeros((), device=x.device), a + b - 1.0)

    k = FlexSNKernel(summed_threshold, 1, 1, 1, num_static=2)
    results: list[list[torch.Tensor]] = []
    real = BackwardPlan.run

    def run(self: Any, *args: Any) -> Any:
        out = real(self, *args)
        if out is not None:
            results.append(out)
        return out

    monkeypatch.setattr(BackwardPlan, "run", run)
    kept = []
    for seed in range(3):
        xs, _ = ref.make_data(ref.CORES["lif"], 5, STEP, device, seed=seed)
        th = [torch.linspace(0.8, 1.2, 3, device=device).view(1, 3, 1) + 0.1 * j + 0.05 * seed for j in range(2)]
        leaves = [t.clone().requires_grad_() for t in (xs[0], th[0], th[1])]
        out = flexsn_training_op(k.handle, leaves, True)[:2]
        torch.autograd.backward(list(out), [torch.ones_like(o) for o in out])
        kept.append([leaves[1].grad.clone(), leaves[1].grad, leaves[2].grad])
    assert results, "no backward ran from a plan"
    for grads in results:
        statics = grads[-2:]
        assert statics[0].untyped_storage().data_ptr() != statics[1].untyped_storage().data_ptr()
    for copy, g_a, g_b in kept:
        torch.testing.assert_close(g_a, copy)  # untouched by the later backwards
        torch.testing.assert_close(g_a, g_b)  # the core reads a + b: both get the same gradient


def _channels_last(t: torch.Tensor) -> torch.Tensor:
    """``[T, B, C, H, W]`` in a channels-last convolution output's memory (the ``[T * B, C, H, W]`` view)."""
    T, B = t.shape[:2]
    return t.reshape(T * B, *t.shape[2:]).contiguous(memory_format=torch.channels_last).view(t.shape)


@pytest.mark.parametrize("through", ["op", "eager"])
def test_channels_last_calls_run_from_plans_and_match_contiguous_ones(
    through: str, device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sequences in channels-last memory (Inductor's layout for a convolution's output, or a channels-last
    network) launch from plans kept in that order, forward and backward, and give the contiguous call's
    results and gradients with their own strides. The ops keep a plan per memory order (two call sites of
    one signature); an eager kernel keeps one per call signature (a neuron's layout is its network's), so
    its contiguous reference is another kernel."""
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    k_ref = k if through == "op" else FlexSNKernel(decay, 1, 1, 1, num_static=2)
    runs = plan_runs(monkeypatch)
    shape = (5, 2, 3, 4, 2)  # [T, B, C, H, W]

    def step(k: FlexSNKernel, x: torch.Tensor, seed: int) -> list[torch.Tensor]:
        statics = [torch.tensor(0.1 * seed, device=device), torch.linspace(0.8, 1.2, 3, device=device).view(1, 3, 1, 1)]
        leaves = [x.detach().clone().requires_grad_(), *(w.clone().requires_grad_() for w in statics)]
        if through == "op":
            s, v = flexsn_training_op(k.handle, leaves, True)[:2]
        else:
            s, v = k.final_state(*leaves)
        g = torch.Generator().manual_seed(seed)
        gs = torch.randn(shape, generator=g).to(device)
        gv = torch.randn(shape[1:], generator=g).to(device)
        if not x.is_contiguous():  # a consumer that keeps the layout gives the gradient in it
            gs, gv = _channels_last(gs), _channels_last(gv.expand(shape))[0]
        assert s.stride() == x.stride()
        torch.autograd.backward([s, v], [gs, gv])
        assert leaves[0].grad is not None and leaves[0].grad.stride() == x.stride()
        return [s.detach(), v.detach(), *(t.grad for t in leaves)]  # type: ignore[misc]

    planned = []
    for seed in range(4):
        x = torch.randn(shape, generator=torch.Generator().manual_seed(10 + seed)).to(device)
        n_fwd, n_bwd = len(runs["forward"]), len(runs["backward"])
        got = step(k, _channels_last(x), seed)
        planned.append((runs["forward"][n_fwd:], runs["backward"][n_bwd:]))  # this call's plan runs, if any
        want = step(k_ref, x, seed)  # the same signature in contiguous memory
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    # from the second channels-last call on, it launched from a plan forward and backward
    assert planned[-2:] == [([True], [True])] * 2


@pytest.mark.parametrize("through", ["op", "eager"])
def test_mixed_memory_orders_in_a_backward_run_from_its_plan(
    through: str, device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A channels-last input whose spikes get a contiguous gradient back (a flatten, a loss): the backward plan
    copies the same tensors to its order at every call, as the derived path does, and gives its gradients."""
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    k_ref = k if through == "op" else FlexSNKernel(decay, 1, 1, 1, num_static=2)
    runs = plan_runs(monkeypatch)
    shape = (4, 2, 3, 2, 3)

    def step(k: FlexSNKernel, x: torch.Tensor, seed: int) -> list[torch.Tensor]:
        leaves = [x.detach().clone().requires_grad_(), torch.tensor(0.2 + 0.1 * seed, device=device, requires_grad=True),
                  torch.linspace(0.8, 1.2, 3, device=device).view(1, 3, 1, 1).requires_grad_()]
        s, v = flexsn_training_op(k.handle, leaves, True)[:2] if through == "op" else k.final_state(*leaves)
        g = torch.Generator().manual_seed(seed)
        gs, gv = torch.randn(shape, generator=g).to(device), torch.randn(shape[1:], generator=g).to(device)
        torch.autograd.backward([s, v], [gs, gv])  # contiguous gradients, whatever the input's order
        return [s.detach(), v.detach(), *(t.grad for t in leaves)]  # type: ignore[misc]

    planned = []
    for seed in range(4):
        x = torch.randn(shape, generator=torch.Generator().manual_seed(20 + seed)).to(device)
        n_bwd = len(runs["backward"])
        got = step(k, _channels_last(x), seed)
        planned.append(runs["backward"][n_bwd:])
        want = step(k_ref, x, seed)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert planned[-2:] == [[True], [True]]
