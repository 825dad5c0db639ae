"""Every op the neighbour pass may absorb runs on the fused kernels, so a rewritten scan never falls back.

``flexsn_hop.neighbours`` absorbs only ops of its allow-lists (``POINTWISE_FUNCTIONS``,
``POINTWISE_METHODS``) into a scan's step. A step those ops make must build the fused kernels
wherever the neuron alone does: a rewrite is not checked when it is made, and a step the kernels
could not take would run the eager loop (with a warning) where the unfused scan ran fused. Here
each op, in front of a neuron and reading a per-channel static where it takes two operands, runs
through ``flex_sn_scan`` with gradients: the training kernels must run (no fallback), and the
results and gradients must equal autograd through the eager loop.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Callable

import pytest
import torch
import torch.nn.functional as F

import flexsn_hop
from flexsn_hop.neighbours import POINTWISE_FUNCTIONS, POINTWISE_METHODS

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
STEP = (2, 3, 4)
BINARY = {operator.add, operator.sub, operator.mul, operator.truediv, torch.add, torch.sub, torch.mul, torch.div}
UNARY = {operator.neg, torch.neg, torch.relu, torch.sigmoid, torch.tanh, torch.exp, torch.abs, F.relu, F.silu, F.sigmoid, F.tanh}
CLAMP = {torch.clamp}


#: ``Tensor`` methods as the pass calls them (written out: a core reading ``getattr(x, name)`` is not followed)
METHODS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": lambda x, w: x.add(w), "sub": lambda x, w: x.sub(w), "mul": lambda x, w: x.mul(w),
    "div": lambda x, w: x.div(w), "neg": lambda x, w: x.neg(), "relu": lambda x, w: x.relu(),
    "sigmoid": lambda x, w: x.sigmoid(), "tanh": lambda x, w: x.tanh(), "exp": lambda x, w: x.exp(),
    "abs": lambda x, w: x.abs(), "clamp": lambda x, w: x.clamp(min=-1.5, max=1.5),
}


def _prologue(op: Callable[..., Any] | str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """``x, w -> op(x[, w])`` as the pass would call ``op`` (a function, or a ``Tensor`` method by name)."""
    if isinstance(op, str):
        return METHODS[op]
    if op in CLAMP:
        return lambda x, w: op(x, min=-1.5, max=1.5)
    if op in BINARY:
        return lambda x, w: op(x, w)
    return lambda x, w: op(x)


def test_every_allow_listed_op_has_a_form_here() -> None:
    """A new entry in the allow-lists must be added to this test (its calling form), or it is not checked."""
    assert POINTWISE_FUNCTIONS == BINARY | UNARY | CLAMP
    assert POINTWISE_METHODS == set(METHODS)


OPS = sorted(POINTWISE_FUNCTIONS, key=lambda f: f"{getattr(f, '__module__', '')}.{f.__name__}") + sorted(POINTWISE_METHODS)


@pytest.mark.parametrize(
    "op", OPS, ids=[op if isinstance(op, str) else f"{getattr(op, '__module__', '')}.{op.__name__}" for op in OPS]
)
def test_an_absorbed_op_in_front_of_a_neuron_trains_on_the_fused_kernels(op: Any, fused_paths: list[str]) -> None:
    pre = _prologue(op)

    def step(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (pre(x, w) - v) * 0.5 * w  # w read by the neuron too: a gradient for every op
        s = torch.sigmoid(4.0 * (h - 1.0))  # smooth, so every input gets a gradient
        return s, h * (1.0 - s)

    g = torch.Generator().manual_seed(0)
    x0 = torch.randn(5, *STEP, generator=g).to(DEVICE)
    w0 = (torch.rand(3, 1, generator=g) + 0.5).to(DEVICE)  # per channel, away from 0 (a divisor)
    v0 = torch.zeros(STEP, device=DEVICE)
    x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback warns: fail on it
        y, vs = flexsn_hop.flex_sn_scan(step, 1, 1, 1, x, v0, w)
        (y.sum() + vs.pow(2).sum()).backward()
    assert fused_paths == ["training"]
    xr, wr = x0.clone().requires_grad_(), w0.clone().requires_grad_()
    yr, vr = flexsn_hop.eager_scan(step, 1, 1, 1, xr, v0, wr)
    (yr.sum() + vr.pow(2).sum()).backward()
    torch.testing.assert_close(y, yr, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(vs, vr, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-4)
