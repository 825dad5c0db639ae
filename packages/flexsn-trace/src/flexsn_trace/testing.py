"""Reference neuron cores for tests and for checking an installation.

Small, fixed step functions that exercise what FlexSN must handle: a
surrogate-gradient spike written as an *old-style* ``torch.autograd.Function``
(no ``setup_context``, the form many SNN codebases use), a LIF neuron, and
a core with two inputs, two states and two outputs, cores that read and write through boolean masks
(:func:`masked_gradient_core`, :func:`masked_step_core`), and the unrolled Python
time loop the tests check kernels against (:func:`unrolled_loop`, over
:func:`flexsn_trace.reference_scan`), :func:`count_calls` for tests that
count how often a step (a check, a trace) runs, and
:func:`assert_trained_alike` for tests that compare a network with a reference copy. FlexSN's own test suites
share them (every layer may import this lowest layer), so a reference is
written once. Shapes: any per-step shape, all arguments alike; dtypes:
floating point; the results have the inputs' shape and dtype.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from .contract import ScanContract
from .reference import reference_scan

__all__ = [
    "MaskedGradientSpike", "Spike", "SpikeWithAlpha", "assert_trained_alike", "count_calls", "lif_core", "masked_step_core",
    "masked_gradient_core", "two_by_two_core", "unrolled_loop",
]


class Spike(torch.autograd.Function):
    """Heaviside spike ``(x >= 0)`` with a sigmoid surrogate gradient (alpha = 4).

    Forward: ``x -> (x >= 0).to(x.dtype)``. Backward:
    ``g -> g * 4 * sigmoid(4x) * (1 - sigmoid(4x))``, the surrogate of
    Neftci et al. (2019), "Surrogate Gradient Learning in SNNs". Call as
    ``Spike.apply(x)``.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(4.0 * x)
        return g * 4.0 * s * (1.0 - s)


class MaskedGradientSpike(Spike):
    """Heaviside spike whose surrogate gradient is assigned through boolean masks, as SpikingJelly's
    ``LogTailedReLU`` writes it: 1 on ``(0, 1]``, ``1 / x`` above 1, 0.1 at and below 0 (a log-tailed ReLU's slope).

    Forward: :class:`Spike`'s; backward: ``g -> g * grad_x`` with ``grad_x[x > 1] = 1 / x[x > 1]``
    and ``grad_x[x <= 0] = 0.1`` (``flexsn_trace.masked`` makes them selects). Call as ``MaskedGradientSpike.apply(x)``.
    """

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        grad_x = torch.ones_like(x)
        grad_x[x > 1.0] = 1.0 / x[x > 1.0]
        grad_x[x <= 0.0] = 0.1
        return g * grad_x


def masked_gradient_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A LIF step (decay 0.5, threshold 1) spiking through :class:`MaskedGradientSpike`: ``(x, v) -> (s, v')``."""
    h = v * 0.5 + x
    s: torch.Tensor = MaskedGradientSpike.apply(h - 1.0)  # type: ignore[no-untyped-call]
    return s, h * (1 - s)


def masked_step_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A step whose new state is written through masks: ``log1p`` of the positive part times 2, -1 at or below -1,
    0 elsewhere (``log1p`` is ``nan`` below -1, where nothing is selected). ``(x, v) -> (sigmoid spike, v')``."""
    h = v * 0.5 + x
    s = torch.sigmoid(4.0 * (h - 1.0))
    r = h * (1 - s)
    out = torch.zeros_like(r)
    pos = r > 0
    out[pos] = torch.log1p(r[pos]) * 2.0
    out[r <= -1.0] = -1.0
    return s, out


class SpikeWithAlpha(torch.autograd.Function):
    """:class:`Spike` with its surrogate's steepness as a second, non-tensor argument.

    Applied as SpikingJelly applies its own (``surrogate.sigmoid.apply(x, alpha)``,
    SpikingJelly's public API): ``SpikeWithAlpha.apply(x, alpha)``. Forward:
    ``x -> (x >= 0).to(x.dtype)``; backward: ``g -> g * alpha * sigmoid(alpha x) * (1 - sigmoid(alpha x))``
    for ``x``, ``None`` for ``alpha``. Saves ``x`` only when it requires grad.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, alpha: float) -> torch.Tensor:
        if x.requires_grad:
            ctx.save_for_backward(x)
            ctx.alpha = alpha
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        s = torch.sigmoid(ctx.alpha * ctx.saved_tensors[0])
        return g * (1.0 - s) * s * ctx.alpha, None


def lif_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One LIF step (tau = 2, threshold 1, hard reset to 0): ``(x, v) -> (spike, v_next)``.

    ``h = v + (x - v) / tau``; ``spike = Θ(h - 1)``; ``v_next = h (1 - spike)``.
    """
    h = v + (x - v) / 2.0
    s: torch.Tensor = Spike.apply(h - 1.0)  # type: ignore[no-untyped-call]
    return s, h * (1.0 - s)


def two_by_two_core(
    x1: torch.Tensor, x2: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two inputs, two states, two outputs: ``(x1, x2, a, b) -> (spike, y, a_next, b_next)``.

    Exercises sigmoid, tanh, exp and abs inside one step, a spike from the
    difference of the states, and an output that is not a state.
    """
    a2 = 0.9 * a + x1 * torch.sigmoid(x2)
    b2 = b * 0.8 + torch.tanh(x2) - 0.1 * a2
    s: torch.Tensor = Spike.apply(a2 - b2)  # type: ignore[no-untyped-call]
    return s, torch.exp(-b2.abs()) * x1, a2 * (1.0 - s), b2


def unrolled_loop(
    core: Callable[..., Any],
    num_outputs: int,
    input_seqs: Sequence[torch.Tensor],
    init_states: Sequence[torch.Tensor],
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Reference semantics of a scan: ``core`` applied step by step in Python (differentiable).

    Args:
        core: ``(*step_inputs, *states) -> (*step_outputs, *new_states)``.
        num_outputs: how many of its results are outputs (the rest are states).
        input_seqs: one tensor ``[T, *shape]`` per step input, ``T >= 1``.
        init_states: one tensor ``[*shape]`` per state.

    Returns:
        ``(output_seqs, state_seqs)``: lists of ``[T, *shape]`` tensors,
        stacked over time (state ``t`` is the state after step ``t``).
        Autograd through them is BPTT on the unrolled loop.
    """
    contract = ScanContract(len(input_seqs), len(init_states), num_outputs, tuple(input_seqs), tuple(init_states))
    res = reference_scan(core, contract)
    return list(res[:num_outputs]), list(res[num_outputs:])


def count_calls(monkeypatch: Any, owner: object, name: str) -> list[int]:
    """Wrap ``owner.<name>`` so every call appends ``1`` to the returned list, then calls the original.

    ``monkeypatch``: pytest's fixture (anything with its ``setattr``), which
    puts the original back after the test. Returns the (growing) list.
    """
    calls: list[int] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def assert_trained_alike(net: torch.nn.Module, ref: torch.nn.Module, rtol: float = 1e-5, buffer_tol: float = 1e-6) -> None:
    """Assert ``net``'s gradients and buffers match those of ``ref`` (a copy of it run another way).

    Gradients: ``rtol`` relative, and absolute ``rtol`` times the largest
    magnitude of the reference gradient (fused kernels sum over time and
    channels in another order than autograd); a parameter without a reference
    gradient must have none. Buffers (e.g. BatchNorm's running statistics):
    ``buffer_tol`` relative, ``buffer_tol / 10`` absolute.

    Raises:
        AssertionError: naming the parameter or buffer that differs.
    """
    for (name, p), p_ref in zip(net.named_parameters(), ref.parameters()):
        if p_ref.grad is None:
            assert p.grad is None, f"{name}: a gradient where the reference has none"
            continue
        scale = float(p_ref.grad.abs().max())
        torch.testing.assert_close(p.grad, p_ref.grad, rtol=rtol, atol=rtol * scale, msg=_naming(name))
    for (name, b), b_ref in zip(net.named_buffers(), ref.buffers()):
        torch.testing.assert_close(b, b_ref, rtol=buffer_tol, atol=buffer_tol / 10, msg=_naming(name))


def _naming(name: str) -> Callable[[str], str]:
    """An ``assert_close`` message that starts with the tensor's name."""
    return lambda message: f"{name}: {message}"
