"""Learnable decays on the carrier kernels (``flexsn_trace.carrier``): the backward reads one stored
sequence, restates the membrane before each step and recovers the input, reading the input back
only where the decay is below the guard. Checked against a Python loop with autograd."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from torch import nn

import flexsn_nn as fn
from flexsn_nn import FlexSN
from flexsn_nn.explain import explain
from flexsn_runtime import FlexSNKernel, lookup_flexsn_kernel_handle
from flexsn_runtime import kernel_build
from flexsn_runtime.op_autograd import EagerTraining
from flexsn_runtime.training_plan import TrainingCall, plan_for
from nn_reference import plif_core, python_loop

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C, H = 7, 2, 4, 5

@pytest.fixture(autouse=True)
def _saved_value_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The carrier is a saved-value pair: with recomputation on (the default) a PLIF step recomputes instead
    (:mod:`flexsn_trace.recompute`), so these tests trace with it off."""
    monkeypatch.setenv("FLEXSN_RECOMPUTE", "0")



@pytest.mark.parametrize("store", [False, True], ids=["final-state", "state-seqs"])
def test_decays_on_both_sides_of_the_guard_match_the_loop(store: bool) -> None:
    # sigmoid(-6) = 0.0025 and sigmoid(-2.8) = 0.057 are read back (below 1/16); the others recovered
    w = nn.Parameter(torch.tensor([-6.0, -2.8, -2.6, 1.5], device=DEVICE).view(C, 1))
    m = FlexSN(plif_core, 1, 1, 1, store_state_seqs=store, static_inputs=[w])
    g = torch.Generator().manual_seed(7)
    x = (torch.randn(T, B, C, H, generator=g) * 2.0).to(DEVICE).requires_grad_()
    v0 = (torch.rand(B, C, H, generator=g) * 0.5).to(DEVICE)
    weights = torch.rand(T, B, C, H, generator=g).to(DEVICE)
    m.states = [v0.clone()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the eager loop
        y = m(x)
    final = m.states[0]
    assert final is not None
    extra = m.state_seqs[0].sum() * 0.3 if store else final.sum() * 0.3  # type: ignore[index]
    ((y * weights).sum() + extra).backward()
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    (yr,), (vs,), (vr,) = python_loop(lambda xt, v: plif_core(xt, v, wr), 1, [xr], [v0])
    ((yr * weights).sum() + (vs.sum() if store else vr.sum()) * 0.3).backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(final, vr)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    assert w.grad is not None and bool((w.grad != 0).all())
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-5)


def test_a_block_with_one_decay_below_the_guard_reads_the_input_back() -> None:
    """The guard is answered per program: one channel per program here (16384 neurons, interpreter blocks
    of 8192 on CPU). With v near 0.9 and sigmoid(-16) = 1.1e-7, h - v = (x - v) * m is about one ulp of h:
    recovered from the carrier, x - v (and dL/dw) would be mostly rounding."""
    w = nn.Parameter(torch.tensor([0.5, -16.0], device=DEVICE).view(2, 1))
    m = FlexSN(plif_core, 1, 1, 1, static_inputs=[w])
    g = torch.Generator().manual_seed(11)
    x = (torch.randn(3, 2, 8192, generator=g) * 2.0).to(DEVICE).requires_grad_()
    v0 = (0.85 + 0.1 * torch.rand(2, 8192, generator=g)).to(DEVICE)
    weights = torch.rand(3, 2, 8192, generator=g).to(DEVICE)
    m.states = [v0.clone()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the eager loop
        y = m(x)
    (y * weights).sum().backward()
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    (yr,), _, _ = python_loop(lambda xt, v: plif_core(xt, v, wr), 1, [xr], [v0])
    (yr * weights).sum().backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    assert wr.grad is not None and float(wr.grad[1].abs()) > 1e-4
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-7)


def test_a_learnable_decay_moves_as_many_bytes_as_a_constant_one() -> None:
    """PLIF trains in six passes over the sequences, like LIF: one float32 carrier instead of two reads."""
    example = [torch.randn(8), torch.randn(8)]
    plif_core = fn.ParametricLIFNode(step_mode="m").core
    lif_core = fn.LIFNode(step_mode="m").core
    moved = explain(plif_core, 1, 1, 1, example_inputs=[*example, torch.tensor(0.0)], num_static=1)
    assert moved.saved_per_step[:2] == ["return 2", "init_state 0"]
    assert moved.bytes_per_element_step["training"] == explain(lif_core, 1, 1, 1, example_inputs=example).bytes_per_element_step["training"]


def _plif_kernel(w: torch.Tensor) -> FlexSNKernel:
    k = FlexSNKernel(plif_core, 1, 1, 1, [torch.zeros(4), torch.zeros(4), w.detach()], num_static=1)
    assert k.handle is not None and k.has_training_kernels
    return k


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_sequences_train_on_the_pair_without_the_carrier(dtype: torch.dtype) -> None:
    """A float32 carrier moves more bytes than the two 16-bit sequences it replaces: 16-bit calls take the other pair."""
    k = _plif_kernel(torch.zeros(C, 1))
    assert plan_for(k.handle, True, torch.float32).info.carrier >= 0  # type: ignore[arg-type]
    half = plan_for(k.handle, True, dtype)  # type: ignore[arg-type]
    assert half.info.carrier == -1 and {src.kind for src in half.info.saved_sources} <= {"input", "prev_state", "return", "static"}
    assert half.forward.output_dtypes[-1] is None  # nothing stored in float32 whatever the sequences' dtype
    # the pair's kernels on float32 tensors, against autograd through the loop (tight tolerances)
    w = torch.tensor([-2.0, -0.5, 0.3, 1.5], device=DEVICE).view(C, 1)
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(T, B, C, H, generator=g) * 2.0).to(DEVICE)
    v0 = (torch.rand(B, C, H, generator=g) * 0.5).to(DEVICE)
    weights = torch.rand(T, B, C, H, generator=g).to(DEVICE)
    leaves = [t.clone().requires_grad_() for t in (x, v0, w)]
    call = TrainingCall(plan_for(k.handle, True, dtype), leaves)  # type: ignore[arg-type]
    y, final = EagerTraining.apply_unwrapped(call, *leaves)[:2]
    ((y * weights).sum() + final.sum() * 0.3).backward()
    refs = [t.clone().requires_grad_() for t in (x, v0, w)]
    (yr,), _, (vr,) = python_loop(lambda xt, v: plif_core(xt, v, refs[2]), 1, [refs[0]], [refs[1]])
    ((yr * weights).sum() + vr.sum() * 0.3).backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(final, vr)
    for got, want in zip(leaves, refs):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_compiled_calls_take_the_pair_of_their_dtype(dtype: torch.dtype) -> None:
    """The training op's fake registration allocates what the implementation returns for this dtype."""
    w = nn.Parameter(torch.full((C, 1), -0.3, device=DEVICE))
    m = FlexSN(plif_core, 1, 1, 1, static_inputs=[w])

    def step(x: torch.Tensor) -> torch.Tensor:
        m.reset()
        return m(x)

    x = (torch.randn(T, B, C, H) * 2.0).to(DEVICE, dtype).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the eager loop
        compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
        y = compiled(x)
    y.float().sum().backward()
    got = (y.detach(), x.grad.clone(), w.grad.clone())  # type: ignore[union-attr]
    x.grad, w.grad = None, None
    ye = step(x)
    ye.float().sum().backward()
    torch.testing.assert_close(got[0], ye)
    torch.testing.assert_close(got[1], x.grad)
    torch.testing.assert_close(got[2], w.grad)


def test_the_half_pair_comes_back_from_the_trace_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    k_cold = _plif_kernel(torch.zeros(C, 1))  # kept: the handle goes with its kernel
    cold = lookup_flexsn_kernel_handle(k_cold.handle)
    assert cold.half_training is not None
    monkeypatch.setattr(kernel_build, "build_training_variants", lambda *a, **k: pytest.fail("a warm build must not trace"))
    k_warm = _plif_kernel(torch.zeros(C, 1))
    warm = lookup_flexsn_kernel_handle(k_warm.handle)
    assert warm.half_training is not None and warm.half_training.info == cold.half_training.info
    assert warm.half_training.backward.code == cold.half_training.backward.code


def test_explain_counts_the_pair_of_the_element_size() -> None:
    example = [torch.randn(8), torch.randn(8), torch.tensor(0.0)]
    core = fn.ParametricLIFNode(step_mode="m").core
    fp32 = explain(core, 1, 1, 1, example_inputs=example, num_static=1)
    half = explain(core, 1, 1, 1, example_inputs=example, num_static=1, element_size=2)
    assert "return 2" in fp32.saved_per_step and "return 2" not in half.saved_per_step
    # without the carrier: the input and the membrane before the step are read back (seven passes)
    assert half.bytes_per_element_step["training"] == 7 * 2
    assert fp32.bytes_per_element_step["training"] == 6 * 4
