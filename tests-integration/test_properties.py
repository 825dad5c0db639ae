"""Property tests: random elementwise cores, kernels against the eager loop.

Hypothesis draws a small random expression DAG over 1-2 inputs and 1-2
states: each node applies an op (from the lowered set, wrapped so values
stay bounded and in the ops' domains) to earlier nodes; 1-2 outputs pick
nodes (optionally through a surrogate spike), and each new state is a
bounded function of a node (tanh, clamp, or a leaky mix with the old
state). ``FlexSNKernel`` must then match a Python loop over time for the
output and state sequences, the final states, and the gradients of the
input sequences and initial states (autograd on the unrolled loop).

Examples are derandomized so CI is reproducible; set
``FLEXSN_HYPOTHESIS_RANDOM=1`` to explore new ones and
``FLEXSN_HYPOTHESIS_EXAMPLES=N`` for more than 30.
"""

from __future__ import annotations

import warnings

import torch
from hypothesis import example, given
from hypothesis import strategies as st

from flexsn_runtime import FlexSNKernel
from flexsn_trace.testing import unrolled_loop
from random_cores import BINARY, SETTINGS, STATE_UPDATES, UNARY, Program, device


@st.composite
def programs(draw: st.DrawFn) -> Program:
    ni = draw(st.integers(1, 2))
    ns = draw(st.integers(1, 2))
    n_nodes = draw(st.integers(1, 6))
    nodes = []
    for n in range(n_nodes):
        available = ni + ns + n
        if draw(st.booleans()):
            op = draw(st.sampled_from(sorted(UNARY)))
            operands: tuple[int, ...] = (draw(st.integers(0, available - 1)),)
        else:
            op = draw(st.sampled_from(sorted(BINARY)))
            operands = (draw(st.integers(0, available - 1)), draw(st.integers(0, available - 1)))
        nodes.append((op, operands))
    total = ni + ns + n_nodes
    # later nodes are likelier to be used: pick among the last few values
    pick = st.integers(max(0, total - 3), total - 1)
    outputs = tuple((draw(pick), draw(st.booleans())) for _ in range(draw(st.integers(1, 2))))
    states = tuple((draw(pick), draw(st.sampled_from(STATE_UPDATES))) for _ in range(ns))
    return Program(ni, ns, tuple(nodes), outputs, states)


#: found by exploring (FLEXSN_HYPOTHESIS_RANDOM=1): masked constant writes whose tensor constant the carrier's
#: backward graph lost (flexsn_trace.saved.copy_node), so training ran the eager loop
CARRIED_CONSTANT = Program(
    1, 2, (("masked_floor", (1,)), ("masked_floor", (3,)), ("sqrt", (1,))), ((4, False), (4, False)), ((3, "tanh"), (5, "tanh"))
)


@SETTINGS
@given(program=programs(), T=st.integers(1, 6), ncl=st.integers(1, 40), seed=st.integers(0, 2**16))
@example(program=CARRIED_CONSTANT, T=4, ncl=9, seed=3)
def test_random_cores_match_the_loop(program: Program, T: int, ncl: int, seed: int) -> None:
    dev = device()
    core = program.core()
    ni, ns, no = program.ni, program.ns, len(program.outputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every op here is lowered: no fallback allowed
        k = FlexSNKernel(core, ni, ns, no)
    assert k.handle is not None
    g = torch.Generator().manual_seed(seed)
    xs = [(torch.randn(T, ncl, generator=g) * 2.0).to(dev) for _ in range(ni)]
    s0 = [torch.randn(ncl, generator=g).to(dev) for _ in range(ns)]
    grads = [torch.randn(T, ncl, generator=g).to(dev) for _ in range(no + ns)]

    leaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    outs, seqs = unrolled_loop(core, no, leaves[:ni], leaves[ni:])
    want = outs + seqs
    pairs = [(w, gr) for w, gr in zip(want, grads) if w.requires_grad]
    want_grads: list[torch.Tensor | None] = [None] * len(leaves)
    if pairs:
        want_grads = list(torch.autograd.grad([w for w, _ in pairs], leaves, [gr for _, gr in pairs],
                                              allow_unused=True))

    with torch.no_grad():
        got = k(*xs, *s0)
        final = k.final_state(*xs, *s0)
    for i, (a, w) in enumerate(zip(got, want)):
        torch.testing.assert_close(a, w.detach(), rtol=1e-4, atol=1e-5, msg=lambda m: f"result {i}: {m}")
    for j in range(ns):
        torch.testing.assert_close(final[no + j], want[no + j][-1].detach(), rtol=1e-4, atol=1e-5)

    kleaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    out = k(*kleaves)
    # the training kernels are traced at this first call that needs gradients: they ran, not the eager loop
    assert k.training_fallback_reason is None, k.training_fallback_reason
    kpairs = [(o, gr) for o, gr in zip(out, grads) if o.requires_grad]
    if kpairs:
        torch.autograd.backward([o for o, _ in kpairs], [gr for _, gr in kpairs])
    for i, (leaf, w) in enumerate(zip(kleaves, want_grads)):
        w = torch.zeros_like(leaf) if w is None else w
        got_grad = torch.zeros_like(leaf) if leaf.grad is None else leaf.grad
        torch.testing.assert_close(got_grad, w, rtol=1e-3, atol=1e-4, msg=lambda m: f"gradient {i}: {m}")
