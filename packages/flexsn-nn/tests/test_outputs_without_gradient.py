"""A result of the core that carries no gradient (a spike from a hard threshold): no ``requires_grad``, as in the loop.

``(h >= 1).to(x.dtype)`` has no derivative in PyTorch, so the eager loop's spikes do not require grad and
``spikes.sum().backward()`` raises PyTorch's "does not require grad". Before, the fused training kernels marked
every output as differentiable: the same call returned a zero gradient, silently, where PyTorch says the
spikes have none (a user who forgot the surrogate saw a network that would not learn, without an error).
The training trace's tangent mask now marks those results non-differentiable (``FlexSNInfo.differentiable``).
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN, hop_available
from flexsn_nn.surrogate import Sigmoid

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["torch", "triton", "inductor", *(["hop"] if hop_available() else [])]


def hard_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = (h >= 1.0).to(x.dtype)  # no surrogate: no gradient
    return s, h * (1.0 - s)


_SG = Sigmoid()


def surrogate_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = _SG(h - 1.0)
    return s, h * (1.0 - s)


def _x() -> torch.Tensor:
    g = torch.Generator().manual_seed(8)
    return (torch.rand(6, 3, 5, generator=g) * 3).to(DEVICE).requires_grad_()


def _run(backend: str, compiled: bool, store: bool, core: object) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Spikes, final ``v`` and dL/dx for L = sum(v * w) of one call."""
    m = FlexSN(core, 1, 1, 1, backend=backend, store_state_seqs=store)
    call = torch.compile(m, backend="aot_eager", fullgraph=True) if compiled else m
    x = _x()
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = call(x)
    finally:
        torch._dynamo.reset()
    (v,) = m.states
    assert isinstance(s, torch.Tensor) and isinstance(v, torch.Tensor)
    (v * torch.linspace(-1.0, 1.0, v.numel(), device=DEVICE).view_as(v)).sum().backward()
    assert x.grad is not None
    return s, v, x.grad


@pytest.mark.parametrize("store", [False, True], ids=["final", "seqs"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_spike_without_surrogate_requires_no_grad_as_in_the_loop(backend: str, compiled: bool, store: bool) -> None:
    s, v, gx = _run(backend, compiled, store, hard_core)
    s_ref, v_ref, gx_ref = _run("torch", False, store, hard_core)
    assert not s_ref.requires_grad and v_ref.requires_grad  # PyTorch's rule, in the loop
    assert not s.requires_grad, f"{backend}: the spikes claim a gradient PyTorch says they do not have"
    assert v.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        s.sum().backward()
    torch.testing.assert_close(s, s_ref)
    torch.testing.assert_close(gx, gx_ref, rtol=1e-5, atol=1e-6)  # the membrane's gradient still flows
    assert gx_ref.abs().sum() > 0


@pytest.mark.parametrize("backend", ["triton", "inductor"])
def test_a_spike_through_a_surrogate_requires_grad(backend: str) -> None:
    s, _, _ = _run(backend, False, False, surrogate_core)
    assert s.requires_grad and s.grad_fn is not None


def test_explain_names_the_results_without_gradient() -> None:
    from flexsn_nn import explain

    hard = explain(hard_core, 1, 1, 1)
    assert hard.without_gradient == ("output 0",)
    assert "without gradient (a hard threshold without a surrogate?): output 0" in str(hard)
    assert explain(surrogate_core, 1, 1, 1).without_gradient == ()


# --- States and outputs that no argument requiring grad reaches *in this call* -----------------------------------
# The loop decides per call: a spike counter started from zeros, an output computed from an input that requires no
# grad, a state swapped with one that does. The fused op marks those results non-differentiable per call pattern
# (``TrainingPlan.non_differentiable`` over ``FlexSNInfo.reaches``); before, they required grad with zero gradients.


def counter_core(x: torch.Tensor, v: torch.Tensor, n: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = v * 0.5 + x
    s = (h >= 1.0).to(x.dtype)
    return _SG(h - 1.0), h * (1.0 - s), n + s  # n counts spikes: no gradient reaches it from zeros


def static_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = v * w + x  # w: a learnable decay
    return _SG(h - 1.0), k * 2.0 + torch.zeros_like(x), h * 0.9  # k: a buffer (requires no grad), output 1 reads it only


def y_only_core(x: torch.Tensor, y: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = v * 0.5 + x
    return _SG(h - 1.0), y * 2.0, h * 0.9  # output 1 reads y only


def swap_core(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return x * 2.0, b * 1.0, a * 1.0  # a and b trade places every step


CASES = {
    # name: (core, num_inputs, num_states, num_outputs, which inputs require grad, initial states (None: zeros))
    "counter": (counter_core, 1, 2, 1, (True,), None),
    "static-buffer": (static_core, 1, 1, 2, (True,), None),
    "y-only": (y_only_core, 2, 1, 2, (True, False), None),
    "swap-odd-T": (swap_core, 1, 2, 1, (True,), (True, False)),
}


def _call(backend: str, compiled: bool, store: bool, case: str, T: int) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The results (outputs, then final states or state sequences) and the gradients of the arguments that require grad."""
    core, ni, ns, no, grads, init = CASES[case]
    g = torch.Generator().manual_seed(11)
    xs = [(torch.rand(T, 3, 5, generator=g) * 3).to(DEVICE).requires_grad_(r) for r in grads]
    statics = None
    if case == "static-buffer":  # per-channel decay (a parameter) and a buffer
        statics = (nn.Parameter(torch.full((5,), 0.5, device=DEVICE)), torch.linspace(0.0, 1.0, 5, device=DEVICE))
    m = FlexSN(core, ni, ns, no, backend=backend, store_state_seqs=store, static_inputs=statics)
    leaves = [x for x in xs if x.requires_grad] + [p for p in m.parameters()]
    if init is not None:
        starts = [torch.rand(3, 5, generator=g).to(DEVICE).requires_grad_(r) for r in init]
        leaves += [s for s in starts if s.requires_grad]
        m.states = [s * 1.0 for s in starts]
    call = torch.compile(m, backend="aot_eager", fullgraph=True) if compiled else m
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            out = call(*xs)
    finally:
        torch._dynamo.reset()
    fell_back = [str(w.message) for w in told if str(w.message).startswith("FlexSN")]
    assert backend == "torch" or not fell_back, fell_back  # the fused path ran
    results = [*(out if isinstance(out, tuple) else (out,)), *(m.state_seqs if store else m.states)]
    weighted = [r * torch.linspace(-1.0, 1.0, r.numel(), device=DEVICE).view_as(r) for r in results if r.requires_grad]
    got = torch.autograd.grad(sum(w.sum() for w in weighted), leaves, allow_unused=True)  # type: ignore[arg-type]
    return results, [torch.zeros_like(x) if d is None else d for x, d in zip(leaves, got)]


@pytest.mark.parametrize("store", [False, True], ids=["final", "seqs"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("backend", BACKENDS[1:])
@pytest.mark.parametrize("case", sorted(CASES))
def test_results_require_grad_per_call_as_in_the_loop(case: str, backend: str, compiled: bool, store: bool) -> None:
    T = 3 if case.endswith("odd-T") else 4
    got, grads = _call(backend, compiled, store, case, T)
    want, want_grads = _call("torch", False, store, case, T)
    flags = [r.requires_grad for r in got]
    assert flags == [r.requires_grad for r in want], f"{backend}: results' requires_grad {flags}, the loop's differ"
    # the test's own premise (swapped state sequences each carry gradient at every other step)
    assert not all(flags) or (case == "swap-odd-T" and store), "the case must have a result without gradient"
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(grads, want_grads):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("T", [1, 2, 3, 4, 7])
def test_a_swapped_state_requires_grad_on_the_steps_it_should(T: int) -> None:
    (_, a, b), _ = _call("triton", False, False, "swap-odd-T", T)
    (_, a_ref, b_ref), _ = _call("torch", False, False, "swap-odd-T", T)
    assert (a.requires_grad, b.requires_grad) == (a_ref.requires_grad, b_ref.requires_grad) == (T % 2 == 0, T % 2 == 1)
