"""Random elementwise cores for the property tests (``test_properties.py``, ``test_properties_static.py``).

Each op keeps values bounded and in its domain, so any composition of them is a well-defined step whose
kernels and eager loop can be compared at a fixed tolerance.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

from hypothesis import HealthCheck, settings  # noqa: E402

from flexsn_codegen import interpreter_enabled  # noqa: E402
from flexsn_trace.testing import Spike  # noqa: E402

__all__ = ["BINARY", "Program", "SETTINGS", "STATE_UPDATES", "UNARY", "device"]

def _masked_log(a: torch.Tensor) -> torch.Tensor:
    """``y[mask] = f(x[mask])`` on a fresh tensor (the trace rewrites it to a select; ``flexsn_trace.masked``)."""
    out = a * 0.5
    pos = a > 0
    out[pos] = torch.log1p(a[pos])
    return out


def _masked_floor(a: torch.Tensor) -> torch.Tensor:
    """``y[mask] = number``."""
    out = a.clone()
    out[a < -1.0] = -1.0
    return out


def _masked_mix(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Reads of two tensors under one mask, combined, written back through it."""
    a, b = a + 0.0 * b, b + 0.0 * a  # one shape (a static input broadcasts), elementwise
    out = a * 1.0
    m = a > b
    out[m] = b[m] * 0.5 + torch.tanh(a[m])
    return out


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
    # in place on a fresh tensor, as autograd formulas and SpikingJelly's surrogates write (the trace's rewrite)
    "pow_in_place": lambda a: (a.abs() + 0.1).pow_(0.75),
    "exp_in_place": lambda a: (-a.abs()).exp_(),
    "affine": lambda a: 0.7 * a + 0.3,
    "round_mix": lambda a: a + 0.1 * torch.round(a),
    "sign_mix": lambda a: a * 0.5 + 0.1 * torch.sign(a),
    "fmod": lambda a: torch.fmod(a, 1.3),
    "where_pos": lambda a: torch.where(a > 0, a, 0.5 * a),
    "sigmoid_bwd": lambda a: torch.sigmoid(a) * (1 - torch.sigmoid(a)),
    "masked_log": _masked_log,
    "masked_floor": _masked_floor,
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
    "masked_mix": _masked_mix,
}
STATE_UPDATES = ("tanh", "clamp", "leaky")


@dataclass(frozen=True)
class Program:
    """A random step over ``[*inputs, *states, *statics]`` (``ni``, ``ns``, then ``nw`` static inputs): ``nodes``
    append values, 1-2 outputs pick values (optionally through a surrogate spike), each new state is a bounded
    function of a value (tanh, clamp, or a leaky mix with the old state)."""

    ni: int
    ns: int
    nodes: tuple[tuple[str, tuple[int, ...]], ...]  # (op, operand indices into the value list)
    outputs: tuple[tuple[int, bool], ...]  # (value index, through a spike)
    states: tuple[tuple[int, str], ...]  # (value index, update kind)
    nw: int = 0

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


