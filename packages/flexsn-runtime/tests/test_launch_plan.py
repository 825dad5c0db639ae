"""Launch plans (#14, ``flexsn_runtime.launch_plan``): repeated calls of one signature launch from a plan,
and give what the loop and autograd through it give; calls the plan does not fit take the derived path."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_runtime import FlexSNKernel
from flexsn_runtime.launch_plan import BackwardPlan, LaunchPlan


def plan_runs(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """Per plan kind, whether each of its runs launched (``False``: it declined and the derived path ran)."""
    runs: dict[str, list[bool]] = {"forward": [], "backward": []}
    for cls, kind in ((LaunchPlan, "forward"), (BackwardPlan, "backward")):
        real = cls.run

        def run(self: Any, *args: Any, real: Any = real, kind: str = kind) -> Any:
            out = real(self, *args)
            runs[kind].append(out is not None)
            return out

        monkeypatch.setattr(cls, "run", run)
    return runs


def decay(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PLIF-like: a learnable decay ``w`` (scalar) and a per-channel threshold ``th``."""
    from flexsn_trace.testing import Spike

    h = v + (x - v) * torch.sigmoid(w)
    s: torch.Tensor = Spike.apply(h - th)  # type: ignore[no-untyped-call]
    return s, h * (1.0 - s)


def _check_call(k: FlexSNKernel, ref: Any, core: Any, xs: list[torch.Tensor], s0: list[torch.Tensor] | None,
                final_state: bool, train: bool, statics: tuple[torch.Tensor, ...] = ()) -> None:
    # inference takes the tensors as they are (their memory is what a plan checks); training needs leaves
    leaves = [x.detach().clone().requires_grad_() for x in xs] if train else list(xs)
    states = [s.detach().clone().requires_grad_(train) for s in s0] if s0 is not None else []
    stat = [w.detach().clone().requires_grad_(train) for w in statics]
    run = k.final_state if final_state else k
    out = run(*leaves, *states, *stat)
    zero = [torch.zeros_like(xs[0][0]) for _ in range(core.ns)]
    r_leaves = [x.detach().clone().requires_grad_(train) for x in xs]
    r_states = [s.detach().clone().requires_grad_(train) for s in s0] if s0 is not None else zero
    r_stat = [w.detach().clone().requires_grad_(train) for w in statics]
    fn = (lambda *a: core.fn(*a, *r_stat)) if statics else core.fn
    outs, seqs = ref.loop(ref.Core(fn, core.ni, core.ns, core.no), r_leaves, r_states)
    expect = [*outs, *(s[-1] for s in seqs)] if final_state else [*outs, *seqs]
    assert len(out) == len(expect)
    for got, want in zip(out, expect):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    if not train:
        return
    g = torch.Generator().manual_seed(1)
    grads = [torch.randn(t.shape, generator=g).to(t) for t in expect]
    grads[-1] = None if final_state else grads[-1]  # a missing final-state gradient: the shared-zeros pattern
    pairs = [(o, gr) for o, gr in zip(out, grads) if gr is not None]
    torch.autograd.backward([o for o, _ in pairs], [gr for _, gr in pairs])
    r_pairs = [(o, gr) for o, gr in zip(expect, grads) if gr is not None]
    torch.autograd.backward([o for o, _ in r_pairs], [gr for _, gr in r_pairs])
    mine = [*leaves, *(states if s0 is not None else []), *stat]
    theirs = [*r_leaves, *(r_states if s0 is not None else []), *r_stat]
    for a, b in zip(mine, theirs):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["lif", "two"])
@pytest.mark.parametrize("final_state", [True, False])
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("explicit", [False, True])
def test_repeated_calls_launch_from_plans_and_match_the_loop(
    name: str, final_state: bool, train: bool, explicit: bool, device: torch.device, ref: Any, kernels: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core, k = ref.CORES[name], kernels[name]
    runs = plan_runs(monkeypatch)
    for seed in range(4):
        xs, s0 = ref.make_data(core, 5, (2, 3), device, seed=seed)
        _check_call(k, ref, core, xs, s0 if explicit else None, final_state, train)
    # the first call records the signature, the second builds the plan: every later call runs it
    assert runs["forward"][-2:] == [True, True]
    if train:
        assert runs["backward"][-2:] == [True, True]


@pytest.mark.parametrize("train", [False, True])
def test_static_inputs_and_their_gradients_through_plans(train: bool, device: torch.device, ref: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    core = ref.Core(decay, 1, 1, 1)
    runs = plan_runs(monkeypatch)
    for seed in range(4):
        xs, _ = ref.make_data(ref.CORES["lif"], 6, (2, 3, 4), device, seed=seed)
        w = torch.tensor(0.3 * seed - 0.2, device=device)
        th = torch.linspace(0.8, 1.2, 3, device=device).view(3, 1)
        _check_call(k, ref, core, xs, None, True, train, (w, th))
    assert runs["forward"][-2:] == [True, True]
    if train:
        assert runs["backward"][-2:] == [True, True]


@pytest.mark.parametrize("expand", [False, True])
def test_static_inputs_passed_as_they_are_or_brought_to_layout_form(expand: bool, device: torch.device, ref: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A call signature decides once which statics the kernels read as they are; a non-contiguous static
    of the same signature is still brought to layout form (its gradient mapped back), as is one to expand."""
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    core = ref.Core(decay, 1, 1, 1)
    runs = plan_runs(monkeypatch)
    for seed in range(5):
        xs, _ = ref.make_data(ref.CORES["lif"], 6, (2, 3, 4), device, seed=seed)
        # a scalar (read as it is), or [2, 1, 4] (expanded to [2, 3, 4] on every call)
        w = torch.linspace(-1.0, 1.0, 8, device=device).view(2, 1, 4) if expand else torch.tensor(0.5, device=device)
        th = torch.linspace(0.8, 1.2, 12, device=device) + 0.01 * seed
        # [1, 3, 4] as it is, then (seed 3) a transposed view of the same shape, dtype and device
        th = th.view(1, 4, 3).transpose(1, 2) if seed == 3 else th.view(1, 3, 4)
        assert th.is_contiguous() == (seed != 3)
        _check_call(k, ref, core, xs, None, True, True, (w + 0.1 * seed, th))
    assert runs["forward"][-3:] == [True, True, True] and runs["backward"][-3:] == [True, True, True]


def test_calls_the_plan_does_not_fit_take_the_derived_path(device: torch.device, ref: Any, kernels: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    core, k = ref.CORES["lif"], kernels["lif"]
    runs = plan_runs(monkeypatch)
    for seed in range(3):
        xs, s0 = ref.make_data(core, 4, (3, 2), device, seed=seed)
        _check_call(k, ref, core, xs, s0, True, True)
    assert runs["forward"][-1] and runs["backward"][-1]
    xs, s0 = ref.make_data(core, 4, (2, 3), device, seed=9)
    strided = [x.transpose(1, 2) for x in xs]  # [4, 3, 2], same signature, not contiguous
    assert not strided[0].is_contiguous()
    _check_call(k, ref, core, strided, [s.t().contiguous() for s in s0], True, True)
    assert runs["forward"][-1] is False  # declined: the derived path copied and launched
    _check_call(k, ref, core, [x.contiguous() for x in strided], [s.t().contiguous() for s in s0], True, True)
    assert runs["forward"][-1] is True  # the same signature contiguous again: the plan


@pytest.mark.skipif(not torch.cuda.is_available(), reason="16-byte alignment and cached launchers are CUDA's")
def test_unaligned_tensors_and_dropped_launchers_take_the_derived_path(ref: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    device = torch.device("cuda")
    core = ref.CORES["lif"]
    k = FlexSNKernel(core.fn, 1, 1, 1)
    runs = plan_runs(monkeypatch)
    xs, _ = ref.make_data(core, 4, (8, 16), device)
    for _ in range(3):
        _check_call(k, ref, core, xs, None, True, False)
    assert runs["forward"][-1] is True
    flat = torch.empty(xs[0].numel() + 1, device=device)[1:]  # 4 bytes past an aligned address
    unaligned = flat.view_as(xs[0]).copy_(xs[0])
    assert unaligned.data_ptr() % 16 != 0
    _check_call(k, ref, core, [unaligned], None, True, False)
    assert runs["forward"][-1] is False
    from flexsn_runtime.op_impls import inference_kernel
    from flexsn_runtime.registry import lookup_flexsn_kernel_handle

    assert k.handle is not None
    f, _ = inference_kernel(lookup_flexsn_kernel_handle(k.handle), True)
    f._clear_direct()  # what persist_config does when a launch configuration changes
    _check_call(k, ref, core, xs, None, True, False)
    assert runs["forward"][-1] is False


@pytest.mark.parametrize("shared", [True, False], ids=["sums", "rows-as-they-are"])
def test_static_gradients_from_reused_partials_are_each_backward_s_own(
    shared: bool, device: torch.device, ref: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan's backward takes its statics' partial sums from the step buffers (``StepBuffers.partials``) when
    every static's gradient is a sum of them: after the first backward nothing is allocated for them before the
    launch. Each backward's gradients are new tensors: an earlier backward's stay as they were, and all match
    autograd through the loop. Statics whose partial row is their gradient as it is (a per-neuron static)
    get fresh partials every time."""
    from flexsn_runtime.statics import PartialsLayout

    allocs: list[bool] = []
    real = PartialsLayout.allocate

    def allocate(self: PartialsLayout, dev: torch.device) -> Any:
        allocs.append(self.reduced)
        return real(self, dev)

    monkeypatch.setattr(PartialsLayout, "allocate", allocate)
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    runs = plan_runs(monkeypatch)
    kept: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]] = []
    for seed in range(4):
        xs, _ = ref.make_data(ref.CORES["lif"], 6, (2, 3, 4), device, seed=seed)
        x = xs[0].detach().clone().requires_grad_()
        # per sample [2, 1, 1] and per channel [3, 1]: sums; per neuron [2, 3, 4]: the partial row is the gradient
        w0 = (torch.linspace(-0.5, 0.5, 2, device=device).view(2, 1, 1) if shared
              else torch.linspace(-0.5, 0.5, 24, device=device).view(2, 3, 4)) + 0.1 * seed
        th0 = torch.linspace(0.8, 1.2, 3, device=device).view(3, 1) - 0.05 * seed
        w, th = w0.clone().requires_grad_(), th0.clone().requires_grad_()
        g = torch.randn(6, 2, 3, 4, generator=torch.Generator().manual_seed(seed)).to(device)
        out = k.final_state(x, w, th)[0]
        before = len(allocs)
        out.backward(g)
        made = allocs[before:]  # the partials allocated for this backward (each entry: its layout's .reduced)
        rw, rth = w0.clone().requires_grad_(), th0.clone().requires_grad_()
        expect = ref.loop(ref.Core(lambda a, v: decay(a, v, rw, rth), 1, 1, 1), [xs[0]], [torch.zeros_like(xs[0][0])])[0][0]
        expect.backward(g)
        assert w.grad is not None and th.grad is not None and rw.grad is not None and rth.grad is not None
        kept.append((w.grad, th.grad, rw.grad, rth.grad))
        if seed >= 2:
            assert runs["backward"][-1] is True  # through the plan
            assert made == ([] if shared else [False])  # reused for sums; fresh for rows as they are
    for gw, gth, rw_grad, rth_grad in kept:  # every backward's gradients still its own, after the later ones
        torch.testing.assert_close(gw, rw_grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(gth, rth_grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ncl", [1, 3, 6])
def test_statics_sharing_a_partials_buffer_of_any_row_length_launch_from_the_plan(
    ncl: int, device: torch.device, ref: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two per-neuron statics share one partials buffer ``[2, NCL]``; each row starts on a 16-byte boundary
    whatever ``NCL`` (rows padded to 4 floats), so a step of 1, 3 or 6 neurons trains from the plan, as a
    step of 8 does, with gradients equal to autograd through the loop."""
    k = FlexSNKernel(decay, 1, 1, 1, num_static=2)
    core = ref.Core(decay, 1, 1, 1)
    runs = plan_runs(monkeypatch)
    for seed in range(3):
        xs, _ = ref.make_data(ref.CORES["lif"], 5, (ncl,), device, seed=seed)
        w = torch.linspace(-0.5, 0.5, ncl, device=device) + 0.1 * seed
        th = torch.linspace(0.8, 1.2, ncl, device=device) - 0.05 * seed
        _check_call(k, ref, core, xs, None, True, True, (w, th))
    assert runs["backward"][-2:] == [True, True]
