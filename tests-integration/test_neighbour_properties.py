"""Property tests of the neighbour pass: random pointwise neighbours around a neuron, compiled against the eager loop.

Under ``torch.compile`` (Inductor) :func:`flexsn_hop.fuse_neighbours` moves a neuron's pointwise producers
(BatchNorm's normalisation, scaling, biases, residual adds, activations) and consumers into its scan's step, so the
kernels read and write around them. Hypothesis draws a small network around one neuron (``LIFNode`` or
``ParametricLIFNode``, whose captured decay joins the scan's statics): an optional BatchNorm, up to three
allow-listed ops in front (scalars, per-channel buffers and parameters, full tensors, last-dim vectors, either
operand order), an optional residual add of the block's input, up to two ops behind, an optional max pool; trained,
evaluated after ``eval()`` or run under ``no_grad``; contiguous or channels-last. The compiled network must match a
copy of it run eagerly with the neuron on ``backend="torch"`` (the eager loop): output, the input's gradient, every
parameter's gradient, BatchNorm's running statistics; and where it has a neighbour to absorb, the pass must have
fused the scan (``counters["flexsn"]``), so the examples test the rewrite, not the unfused op.

Derandomized in CI as ``test_properties.py``; ``FLEXSN_HYPOTHESIS_RANDOM=1`` explores new examples,
``FLEXSN_HYPOTHESIS_EXAMPLES=N`` runs N of them (default here 12: each compiles a network).
"""

from __future__ import annotations

import copy
import operator
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch._dynamo
import torch.nn.functional as F
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn
from torch._dynamo.utils import counters

from flexsn_nn.neurons import LIFNode
from flexsn_nn.neurons_learnable import ParametricLIFNode
from flexsn_nn.surrogate import Sigmoid
from flexsn_trace.testing import assert_trained_alike
from random_cores import SETTINGS, device

T, B, C, H, W = 3, 2, 4, 3, 5
#: two-operand ops, as functions and as Tensor methods (the pass's allow-lists hold both forms)
BINARY: dict[str, Callable[[Any, Any], torch.Tensor]] = {
    "operator.add": operator.add, "operator.sub": operator.sub, "operator.mul": operator.mul,
    "operator.truediv": operator.truediv, "torch.add": torch.add, "torch.mul": torch.mul, "torch.sub": torch.sub,
    "torch.div": torch.div, ".add": lambda x, w: x.add(w), ".sub": lambda x, w: x.sub(w),
    ".mul": lambda x, w: x.mul(w), ".div": lambda x, w: x.div(w),
}
UNARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "operator.neg": operator.neg, "torch.relu": torch.relu, "torch.sigmoid": torch.sigmoid, "torch.tanh": torch.tanh,
    "torch.exp": torch.exp, "torch.abs": torch.abs, "F.relu": F.relu, "F.silu": F.silu,
    "torch.clamp": lambda x: torch.clamp(x, min=-1.0, max=2.0), ".neg": lambda x: x.neg(),
    ".sigmoid": lambda x: x.sigmoid(), ".tanh": lambda x: x.tanh(), ".abs": lambda x: x.abs(),
    ".clamp": lambda x: x.clamp(min=-1.5, max=1.5),
}
#: what the second operand of a two-operand op is (shapes for the ``[T * B, C, H, W]`` side; behind the neuron,
#: ``[T, B, C, H, W]``, the same with a leading 1 where it has the full rank)
OPERANDS = ("scalar", "channel", "channel_param", "scalar_param", "full", "last_dim", "channel_full_rank")


@dataclass(frozen=True)
class Op:
    """One neighbour: ``name`` in :data:`BINARY` or :data:`UNARY`; ``operand`` and ``swap`` (the operand first) for two."""

    name: str
    operand: str = ""
    swap: bool = False


@dataclass(frozen=True)
class Spec:
    """A drawn network (see the module docstring)."""

    kind: str
    bn: bool
    front: tuple[Op, ...]
    residual: bool
    behind: tuple[Op, ...]
    pool: bool
    mode: str
    channels_last: bool
    seed: int

    def absorbs(self) -> bool:
        """Whether the pass has a neighbour to take (max pooling is not one)."""
        return self.bn or self.residual or bool(self.front) or bool(self.behind)


def _operand(kind: str, full: tuple[int, ...], g: torch.Generator) -> torch.Tensor | float:
    """A second operand of ``kind`` for a tensor of shape ``full`` (values away from 0: some ops divide by it)."""
    if kind == "scalar":
        return 1.7
    if kind == "channel_param":
        return nn.Parameter(torch.rand(C, 1, 1, generator=g) + 0.5)
    if kind == "scalar_param":
        return nn.Parameter(torch.tensor(1.3))
    shape = {"full": full, "last_dim": full[-1:], "channel": (C, 1, 1)}.get(kind, (*[1] * (len(full) - 3), C, 1, 1))
    return torch.rand(shape, generator=g) + 0.5


class Block(nn.Module):
    """``x [T * B, C, H, W] -> (bn) -> front ops -> (+ x) -> neuron over [T, B, C, H, W] -> behind ops -> (pool)``."""

    def __init__(self, spec: Spec) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(spec.seed)
        self.bn = nn.BatchNorm2d(C) if spec.bn else None
        self.front = [self._bound(op, (T * B, C, H, W), g) for op in spec.front]
        self.behind = [self._bound(op, (T, B, C, H, W), g) for op in spec.behind]
        self.residual, self.pool = spec.residual, spec.pool
        sg = Sigmoid()
        self.sn = ParametricLIFNode(init_tau=2.0, surrogate_function=sg, step_mode="m") if spec.kind == "plif" else \
            LIFNode(tau=2.0, surrogate_function=sg, step_mode="m")

    def _bound(self, op: Op, full: tuple[int, ...], g: torch.Generator) -> tuple[Op, str | float | None]:
        """``op`` and where its second operand is: a number, a parameter's or buffer's name (read from the module
        at each call, so a deep copy reads its own), or ``None`` for a one-operand op."""
        if op.name in UNARY:
            return op, None
        w = _operand(op.operand, full, g)
        if isinstance(w, float):
            return op, w
        name = f"w{len(self._parameters) + len(self._buffers)}"
        if isinstance(w, nn.Parameter):
            self.register_parameter(name, w)
        else:
            self.register_buffer(name, w)
        return op, name

    def _neighbour(self, op: Op, where: str | float | None, y: torch.Tensor) -> torch.Tensor:
        if where is None:
            return UNARY[op.name](y)
        w = getattr(self, where) if isinstance(where, str) else where
        return BINARY[op.name](w, y) if op.swap else BINARY[op.name](y, w)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(x) if self.bn is not None else x
        for op, where in self.front:
            y = self._neighbour(op, where, y)
        if self.residual:
            y = y + x
        z: torch.Tensor = self.sn(y.view(T, B, C, H, W))
        for op, where in self.behind:
            z = self._neighbour(op, where, z)
        return F.max_pool2d(z.flatten(0, 1), 2) if self.pool else z


def _ops(draw: st.DrawFn, most: int) -> tuple[Op, ...]:
    ops = []
    for _ in range(draw(st.integers(0, most))):
        if draw(st.booleans()):
            ops.append(Op(draw(st.sampled_from(sorted(UNARY)))))
        else:
            name = draw(st.sampled_from(sorted(BINARY)))
            # operand first (w - y, w / y) only as a function, and never dividing by y: spikes and relus are 0
            swap = draw(st.booleans()) and not name.startswith(".") and "div" not in name
            ops.append(Op(name, draw(st.sampled_from(OPERANDS)), swap))
    return tuple(ops)


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    return Spec(
        kind=draw(st.sampled_from(["lif", "plif"])), bn=draw(st.booleans()), front=_ops(draw, 3),
        residual=draw(st.booleans()), behind=_ops(draw, 2), pool=draw(st.booleans()),
        mode=draw(st.sampled_from(["train", "eval", "no_grad"])), channels_last=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
    )


@settings(SETTINGS, max_examples=int(os.environ.get("FLEXSN_HYPOTHESIS_EXAMPLES", "12")))
@given(spec=specs())
def test_random_neighbours_compile_to_what_the_loop_computes(spec: Spec) -> None:
    dev = device()
    net = Block(spec).to(dev)
    ref = copy.deepcopy(net)
    ref.sn.backend = "torch"
    x = (torch.randn(T * B, C, H, W, generator=torch.Generator().manual_seed(spec.seed)) * 2).to(dev)
    if spec.channels_last:  # the block's input and its 4-d buffers (Module.to refuses 5-d ones)
        x = x.contiguous(memory_format=torch.channels_last)
        for m in (net, ref):
            for name, b in list(m.named_buffers(recurse=False)):
                if b.dim() == 4:
                    setattr(m, name, b.contiguous(memory_format=torch.channels_last))
    if spec.mode == "eval":
        net.eval(), ref.eval()
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(net, backend="inductor", fullgraph=True)
    xs = [x.clone().requires_grad_(spec.mode != "no_grad") for _ in range(2)]
    outs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BatchNorm's and Inductor's own notices
        for run, xx in ((compiled, xs[0]), (ref, xs[1])):
            with torch.set_grad_enabled(spec.mode != "no_grad"):
                y = run(xx)
            if spec.mode != "no_grad":
                y.square().sum().backward()
            outs.append(y.detach())
    # the property holds where the loop's numbers are finite (exp(exp(x)) overflows in both)
    finite = [outs[1], *(t for t in (xs[1].grad, *(p.grad for p in ref.parameters())) if t is not None)]
    assume(all(bool(torch.isfinite(t).all()) for t in finite))
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-5, atol=1e-5)
    if spec.mode != "no_grad":
        assert xs[0].grad is not None and xs[1].grad is not None
        scale = float(xs[1].grad.abs().max())
        torch.testing.assert_close(xs[0].grad, xs[1].grad, rtol=1e-5, atol=1e-5 * scale)
    assert_trained_alike(net, ref)
    assert counters["flexsn"]["scans_fused"] == (1 if spec.absorbs() else 0), (spec, dict(counters["flexsn"]))
