"""SpikingJelly 2.0's constructor form, ``FlexSN(core, num_states=k, static_inputs=(...))``: ``num_inputs`` from
the core's signature and ``num_outputs`` from one call on unit tensors (``flexsn_nn.arity``). The module it
builds must compute what the explicit form and a Python loop over the core compute; forms it cannot read are
refused by name."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_nn.surrogate import Sigmoid

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C = 6, 2, 5
spike = Sigmoid(alpha=4.0)


def adaptive(x: torch.Tensor, v: torch.Tensor, a: torch.Tensor, th: torch.Tensor, beta: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """One input, two states, two static inputs, one output."""
    h = 0.5 * v + x
    s = spike(h - th - beta * a)
    return s, h - s * th, 0.8 * a + s


def two_outputs(x: torch.Tensor, y: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Two inputs, one state, two outputs (a spike and the membrane it fired from)."""
    h = 0.5 * v + x * torch.sigmoid(y)
    s = spike(h - 1.0)
    return s, h, h * (1.0 - s)


def _loop(core: Callable[..., Any], seqs: list[torch.Tensor], ns: int, no: int, statics: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    states = [torch.zeros_like(seqs[0][0]) for _ in range(ns)]
    outs: list[list[torch.Tensor]] = [[] for _ in range(no)]
    for t in range(seqs[0].shape[0]):
        r = core(*(s[t] for s in seqs), *states, *statics)
        for i in range(no):
            outs[i].append(r[i])
        states = list(r[no:])
    return [torch.stack(o) for o in outs] + states


def _run(m: FlexSN, seqs: list[torch.Tensor]) -> list[torch.Tensor]:
    leaves = [s.clone().requires_grad_() for s in seqs]
    outs = m(*leaves)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    weights = torch.linspace(0.3, 1.7, outs[0].numel(), device=DEVICE).view(outs[0].shape)
    (sum((o * weights).sum() for o in outs) + sum((s * s).sum() for s in m.states)).backward()  # type: ignore[union-attr]
    grads = [lf.grad for lf in leaves] + [p.grad for p in m.parameters()]
    assert all(g is not None for g in grads)
    return [o.detach() for o in outs] + [s.detach() for s in m.states] + grads  # type: ignore[misc, union-attr]


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_the_keyword_form_finds_the_counts_and_computes_what_the_explicit_form_computes(backend: str) -> None:
    g = torch.Generator().manual_seed(7)
    x = (torch.rand(T, B, C, generator=g) * 2.0).to(DEVICE)
    th = torch.nn.Parameter(torch.linspace(0.6, 1.2, C, device=DEVICE))
    beta = torch.nn.Parameter(torch.tensor(0.3, device=DEVICE))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # runs fused, no fallback
        found = FlexSN(adaptive, num_states=2, static_inputs=(th, beta), backend=backend)
    assert (found.num_inputs, found.num_states, found.num_outputs) == (1, 2, 1)
    explicit = FlexSN(adaptive, 1, 2, 1, backend=backend, static_inputs=(th, beta))
    got = _run(found, [x])
    assert got[0].any() and not got[0].all(), "the neurons must fire, and not always"
    th.grad = beta.grad = None
    want = _run(explicit, [x])
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b)
    # and the loop over the core itself, with autograd through it
    ref = _loop(adaptive, [x], 2, 1, (th.detach(), beta.detach()))
    torch.testing.assert_close(got[0], ref[0])
    torch.testing.assert_close(got[1], ref[1], rtol=1e-5, atol=1e-5)


def test_two_inputs_and_two_outputs_are_found() -> None:
    m = FlexSN(two_outputs, num_states=1)
    assert (m.num_inputs, m.num_states, m.num_outputs) == (2, 1, 2)
    g = torch.Generator().manual_seed(8)
    x, y = (torch.rand(T, B, C, generator=g) * 2.5).to(DEVICE), torch.randn(T, B, C, generator=g).to(DEVICE)
    s, h = m(x, y)
    want = _loop(two_outputs, [x, y], 1, 2, ())
    torch.testing.assert_close(s, want[0])
    torch.testing.assert_close(h, want[1], rtol=1e-5, atol=1e-5)


def test_the_outputs_are_counted_on_the_example_inputs_when_given() -> None:
    """A core that needs its step's shape (here ``[B, C]``) fails on ``[1]`` zeros; its ``example_inputs`` count."""

    def per_row(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = 0.5 * v + x.view(B, C)
        s = spike(h - 1.0)
        return s, h * (1.0 - s)

    with pytest.raises(TypeError, match="pass num_outputs"):
        FlexSN(per_row, num_states=1)
    m = FlexSN(per_row, num_states=1, example_inputs=[torch.zeros(B, C), torch.zeros(B, C)], backend="torch")
    assert (m.num_inputs, m.num_outputs) == (1, 1)


def test_a_default_bound_tensor_is_not_counted_as_an_input() -> None:
    w = torch.tensor(0.4)

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor = w) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * w
        s = spike(h - 1.0)
        return s, h * (1.0 - s)

    m = FlexSN(core, num_states=1)
    assert (m.num_inputs, m.num_outputs) == (1, 1)


def _failing(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: FlexSN(adaptive, 1), TypeError, r"num_states is missing: FlexSN takes FlexSN\(core, num_inputs, num_states"),
        (lambda: FlexSN(adaptive, 2, (torch.ones(C), torch.ones(()))), TypeError, r"num_states is a tuple: .*static_inputs by keyword"),
        (lambda: FlexSN(lambda *a: a, num_states=1), TypeError, r"core that takes \*args: pass num_inputs"),
        (lambda: FlexSN(_failing, num_states=1), TypeError, r"num_outputs could not be found .*RuntimeError: boom.*pass num_outputs"),
        (lambda: FlexSN(lambda x, v: 3.0, num_states=1), ValueError, r"returned a float on unit tensors"),
        (lambda: FlexSN(two_outputs, num_states=3), ValueError, r"leaves 0 inputs besides 3 states"),
        (lambda: FlexSN(two_outputs, num_states=True), TypeError, r"num_states must be an int"),
        (lambda: FlexSN(two_outputs, num_states=-1), ValueError, r"num_states must be >= 0"),
    ],
    ids=["positional-num-states", "positional-static-inputs", "varargs", "failing-core", "not-a-tuple", "no-inputs-left",
         "bool-count", "negative-count"],
)
def test_a_form_that_cannot_be_read_is_refused_by_name(make: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        make()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="a core capturing a CUDA tensor needs a GPU")
def test_a_core_capturing_a_cuda_tensor_is_counted_on_cuda() -> None:
    """``[1]`` zeros on the CPU fail beside a captured CUDA tensor; the count is then taken on CUDA."""
    th = torch.full((1,), 0.8, device="cuda")

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = 0.5 * v + x
        s = spike(h - th)
        return s, h * (1.0 - s)

    m = FlexSN(core, num_states=1)
    assert (m.num_inputs, m.num_outputs) == (1, 1)
    x = torch.rand(T, B, C, device="cuda") * 2
    torch.testing.assert_close(m(x), _loop(core, [x], 1, 1, ())[0])
