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

import os
import warnings
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from flexsn_codegen import interpreter_enabled  # noqa: E402
from flexsn_runtime import FlexSNKernel  # noqa: E402
from flexsn_trace.testing import Spike, unrolled_loop  # noqa: E402


# Each op keeps |result| at most linear in |operands| and stays in its domain.
UNARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "sin": torch.sin,
    "cos": torch.cos,
    "atan": torch.atan,
    "abs": torch.abs,
    "neg": torch.neg,
    "relu": torch.relu,
    "softplus": F.softplus,
    "exp_neg_abs": lambda a: torch.exp(-a.abs()),
    "log1p_abs": lambda a: torch.log1p(a.abs()),
    "sqrt": lambda a: torch.sqrt(a * a + 0.25),
    "rsqrt": lambda a: torch.rsqrt(a * a + 1.0),
    "erf": torch.erf,
    "gelu": F.gelu,
    "silu": F.silu,
    "elu": F.elu,
    "hardtanh": F.hardtanh,
    "leaky_relu": lambda a: F.leaky_relu(a, 0.1),
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "mish": F.mish,
    "logsigmoid": F.logsigmoid,
    "asinh": torch.asinh,
    "expm1": lambda a: torch.expm1(torch.clamp(a, -6.0, 2.0)),
    "self_gate": lambda a: a * torch.tanh(a),
    "pow": lambda a: (a.abs() + 0.1) ** 0.75,
    "affine": lambda a: 0.7 * a + 0.3,
    "round_mix": lambda a: a + 0.1 * torch.round(a),
    "sign_mix": lambda a: a * 0.5 + 0.1 * torch.sign(a),
    "fmod": lambda a: torch.fmod(a, 1.3),
    "where_pos": lambda a: torch.where(a > 0, a, 0.5 * a),
    "sigmoid_bwd": lambda a: torch.sigmoid(a) * (1 - torch.sigmoid(a)),
}
BINARY: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": torch.add,
    "sub": torch.sub,
    "mul_tanh": lambda a, b: torch.tanh(a) * b,
    "gate": lambda a, b: a * torch.sigmoid(b),
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "where": lambda a, b: torch.where(a > b, a, 0.5 * b),
    "lerp": lambda a, b: torch.lerp(a, b, 0.3),
    "atan2": lambda a, b: torch.atan2(a, b.abs() + 0.5),
    "clamp_t": lambda a, b: torch.clamp(a, min=b - 0.5, max=b + 0.5),
    "div": lambda a, b: a / (b.abs() + 1.0),
    "logaddexp": torch.logaddexp,
}
STATE_UPDATES = ("tanh", "clamp", "leaky")


@dataclass(frozen=True)
class Program:
    ni: int
    ns: int
    nodes: tuple[tuple[str, tuple[int, ...]], ...]  # (op, operand indices into the value list)
    outputs: tuple[tuple[int, bool], ...]  # (value index, through a spike)
    states: tuple[tuple[int, str], ...]  # (value index, update kind)

    def core(self) -> Callable[..., tuple[torch.Tensor, ...]]:
        def core(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
            values = list(args)
            for op, operands in self.nodes:
                fn: Callable[..., torch.Tensor] = UNARY[op] if op in UNARY else BINARY[op]
                values.append(fn(*(values[i] for i in operands)))
            outs = [Spike.apply(values[i] - 0.5) if spike else values[i] for i, spike in self.outputs]
            new_states = []
            for j, (i, kind) in enumerate(self.states):
                old = args[self.ni + j]
                if kind == "tanh":
                    new_states.append(torch.tanh(values[i]))
                elif kind == "clamp":
                    new_states.append(torch.clamp(values[i], -3.0, 3.0))
                else:
                    new_states.append(0.8 * old + 0.2 * torch.tanh(values[i]))
            return (*outs, *new_states)

        core.__name__ = "random_core"
        return core


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


def device() -> torch.device:
    if torch.cuda.is_available() and not interpreter_enabled():
        return torch.device("cuda")
    if not interpreter_enabled():
        pytest.skip("no CUDA device and TRITON_INTERPRET is not set")
    return torch.device("cpu")


SETTINGS = settings(
    max_examples=int(os.environ.get("FLEXSN_HYPOTHESIS_EXAMPLES", "30")),
    deadline=None,
    derandomize=os.environ.get("FLEXSN_HYPOTHESIS_RANDOM", "0") != "1",
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


@SETTINGS
@given(program=programs(), T=st.integers(1, 6), ncl=st.integers(1, 40), seed=st.integers(0, 2**16))
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
    kpairs = [(o, gr) for o, gr in zip(out, grads) if o.requires_grad]
    if kpairs:
        torch.autograd.backward([o for o, _ in kpairs], [gr for _, gr in kpairs])
    for i, (leaf, w) in enumerate(zip(kleaves, want_grads)):
        w = torch.zeros_like(leaf) if w is None else w
        got_grad = torch.zeros_like(leaf) if leaf.grad is None else leaf.grad
        torch.testing.assert_close(got_grad, w, rtol=1e-3, atol=1e-4, msg=lambda m: f"gradient {i}: {m}")
