"""Learnable decays on the carrier kernels (``flexsn_trace.carrier``): the backward reads one stored
sequence, restates the membrane before each step and recovers the input, reading the input back
only where the decay is below the guard. Checked against a Python loop with autograd."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import flexsn_nn as fn
from flexsn_nn import FlexSN
from flexsn_nn.explain import explain
from nn_reference import plif_core, python_loop

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C, H = 7, 2, 4, 5


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


def test_a_learnable_decay_moves_as_many_bytes_as_a_constant_one() -> None:
    """PLIF trains in six passes over the sequences, like LIF: one float32 carrier instead of two reads."""
    example = [torch.randn(8), torch.randn(8)]
    plif_core = fn.ParametricLIFNode().core
    lif_core = fn.LIFNode().core
    moved = explain(plif_core, 1, 1, 1, example_inputs=[*example, torch.tensor(0.0)], num_static=1)
    assert moved.saved_per_step[:2] == ["return 2", "init_state 0"]
    assert moved.bytes_per_element_step["training"] == explain(lif_core, 1, 1, 1, example_inputs=example).bytes_per_element_step["training"]
