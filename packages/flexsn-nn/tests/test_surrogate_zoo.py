"""The surrogate functions users pick most: each one's backward against an independent formula
(SpikingJelly's definitions), against the derivative of its primitive, and on the fused path
against autograd through the eager loop (never a silent zero gradient)."""

from __future__ import annotations

import math
import warnings
from typing import Callable

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_nn.surrogate import (
    ATan,
    Erf,
    PiecewiseLeakyReLU,
    PiecewiseQuadratic,
    Rect,
    Sigmoid,
    SoftSign,
    SuperSpike,
    SurrogateFunction,
)

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

#: surrogate, g'(x) written independently of the package
FORMULAS: list[tuple[SurrogateFunction, Callable[[torch.Tensor], torch.Tensor]]] = [
    (Sigmoid(), lambda x: 4.0 * torch.sigmoid(4.0 * x) * (1 - torch.sigmoid(4.0 * x))),
    (ATan(), lambda x: 2.0 / 2 / (1 + (math.pi / 2 * 2.0 * x) ** 2)),
    (PiecewiseQuadratic(), lambda x: torch.clamp(1.0 - x.abs(), min=0.0)),
    (PiecewiseQuadratic(2.0), lambda x: torch.clamp(2.0 - 4.0 * x.abs(), min=0.0)),
    (SoftSign(), lambda x: 2.0 / (2 * (1 + (2.0 * x).abs()) ** 2)),
    (Erf(), lambda x: 2.0 / math.sqrt(math.pi) * torch.exp(-((2.0 * x) ** 2))),
    (SuperSpike(), lambda x: 1.0 / (x.abs() + 1) ** 2),
    (SuperSpike(3.0), lambda x: 3.0 / (x.abs() + 1) ** 2),
    (PiecewiseLeakyReLU(), lambda x: torch.where(x.abs() < 1.0, torch.full_like(x, 0.5), torch.full_like(x, 0.01))),
    (PiecewiseLeakyReLU(w=0.5, c=0.0), lambda x: torch.where(x.abs() < 0.5, torch.ones_like(x), torch.zeros_like(x))),
    (Rect(), lambda x: (x.abs() < 0.5).double()),
    (Rect(2.0), lambda x: 2.0 * (x.abs() < 0.25).double()),
]
IDS = [repr(sg) for sg, _ in FORMULAS]


@pytest.mark.parametrize(("sg", "formula"), FORMULAS, ids=IDS)
def test_forward_is_heaviside_and_backward_the_formula(sg: SurrogateFunction, formula: Callable[[torch.Tensor], torch.Tensor]) -> None:
    x = torch.linspace(-2.0, 2.0, 81, dtype=torch.float64).requires_grad_()  # includes the window edges
    y = sg(x)
    assert y.tolist() == (x.detach() >= 0).double().tolist()
    g = torch.rand(81, dtype=torch.float64)
    y.backward(g)
    torch.testing.assert_close(x.grad, g * formula(x.detach()))
    torch.testing.assert_close(sg.surrogate_grad(x.detach()), formula(x.detach()))


@pytest.mark.parametrize(("sg", "formula"), FORMULAS, ids=IDS)
def test_the_gradient_is_the_primitive_derivative(sg: SurrogateFunction, formula: Callable[[torch.Tensor], torch.Tensor]) -> None:
    x = torch.linspace(-1.9, 1.9, 77, dtype=torch.float64)
    x = x[(x.abs() - 0.25).abs() > 1e-3]  # away from the kinks of the piecewise primitives
    x = x[((x.abs() - 0.5).abs() > 1e-3) & ((x.abs() - 1.0).abs() > 1e-3)].requires_grad_()
    (auto,) = torch.autograd.grad(sg.primitive(x).sum(), x)
    torch.testing.assert_close(auto, formula(x.detach()), rtol=1e-6, atol=1e-9)


def _lif(sg: SurrogateFunction) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    return core


@pytest.mark.parametrize(("sg", "formula"), FORMULAS, ids=IDS)
def test_fused_training_matches_autograd_through_the_loop(sg: SurrogateFunction, formula: Callable[[torch.Tensor], torch.Tensor]) -> None:
    del formula
    core = _lif(sg)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every surrogate lowers: no fallback
        fused = FlexSN(core, 1, 1, 1)
    loop = FlexSN(core, 1, 1, 1, backend="torch")
    g = torch.Generator().manual_seed(2)
    x = (torch.rand(7, 4, 9, generator=g) * 2.4).to(DEVICE)
    grads = []
    for m in (fused, loop):
        xi = x.clone().requires_grad_()
        out = m(xi)
        (out * torch.linspace(0.5, 1.5, out.numel(), device=DEVICE).view(out.shape)).sum().backward()
        grads.append(xi.grad)
    assert fused.uses_kernels(x)
    assert grads[0] is not None and grads[0].abs().sum() > 0  # never a silent zero gradient
    torch.testing.assert_close(grads[0], grads[1], rtol=1e-4, atol=1e-5)


def test_parameters_are_checked_and_named() -> None:
    assert repr(PiecewiseLeakyReLU()) == "PiecewiseLeakyReLU(w=1.0, c=0.01)"
    assert PiecewiseLeakyReLU(c=0.0).params == {"w": 1.0, "c": 0.0}
    with pytest.raises(ValueError, match="c must be finite and >= 0"):
        PiecewiseLeakyReLU(c=-0.1)
    with pytest.raises(ValueError, match="w must be finite and > 0"):
        PiecewiseLeakyReLU(w=0.0)
    with pytest.raises(TypeError, match="unexpected or repeated parameter 'alpha'"):
        PiecewiseLeakyReLU(alpha=1.0)
    with pytest.raises(AttributeError, match="has no alpha"):
        _ = PiecewiseLeakyReLU().alpha
    assert Erf() == Erf(2.0) != SoftSign(2.0)


#: the surrogate the core below reads as a module global (torch.compile(dynamic=True) lifts its parameters)
CURRENT: SurrogateFunction = Sigmoid()


def global_lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = CURRENT(h - 1.0)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("backend", ["torch", "hop"])
@pytest.mark.parametrize(("sg", "formula"), FORMULAS, ids=IDS)
def test_a_global_surrogate_under_compile_with_dynamic_shapes(
    sg: SurrogateFunction, formula: Callable[[torch.Tensor], torch.Tensor], backend: str
) -> None:
    """``torch.compile(dynamic=True)`` lifts a global surrogate's floats as ``SymFloat`` s, and Dynamo (torch 2.13)
    failed once a graph held two calls of it, as the time loop of the ``torch`` backend does ("lift_tracked_freevar
    _to_input should not be called on root SubgraphTracer"). With symbolic parameters the surrogate is written as
    arithmetic; spikes and gradients equal the uncompiled loop's."""
    del formula
    global CURRENT
    CURRENT = sg
    m = FlexSN(global_lif, 1, 1, 1, backend=backend)

    def step(x: torch.Tensor) -> torch.Tensor:
        m.reset()
        return m(x)

    torch._dynamo.reset()
    try:
        compiled = torch.compile(step, dynamic=True, backend="aot_eager")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _compare_compiled(compiled, step)
        # no fallback either: PiecewiseLeakyReLU's gradient once failed the hop's training trace (full_like of a
        # lifted parameter), and its backward ran the loop with a warning
        assert not [w for w in caught if "eager PyTorch loop" in str(w.message)]
    finally:
        torch._dynamo.reset()
        CURRENT = Sigmoid()


def _compare_compiled(compiled: Callable[[torch.Tensor], torch.Tensor], step: Callable[[torch.Tensor], torch.Tensor]) -> None:
    """Spikes and input gradients of ``compiled`` equal ``step`` 's, at two shapes."""
    for shape in ((5, 3, 4), (7, 2, 6)):
        x = (torch.rand(*shape, generator=torch.Generator().manual_seed(shape[0])) * 2.4 - 0.2).to(DEVICE)
        got, want = x.clone().requires_grad_(), x.clone().requires_grad_()
        y = compiled(got)
        g = torch.linspace(0.5, 1.5, y.numel(), device=DEVICE).view(y.shape)
        (y * g).sum().backward()
        (step(want) * g).sum().backward()
        torch.testing.assert_close(y, step(want).detach())
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-5, atol=1e-6)
