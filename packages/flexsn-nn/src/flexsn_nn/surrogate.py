"""Surrogate-gradient spike functions for use inside a FlexSN core.

A spiking neuron fires with the Heaviside step ``S = Θ(x)`` (``x`` the
membrane potential minus the threshold), whose derivative is zero almost
everywhere. Surrogate-gradient training keeps the step in the forward pass and
replaces its derivative in the backward pass by the derivative of a smooth
"primitive" function ``g`` (Neftci, Mostafa and Zenke, "Surrogate Gradient
Learning in Spiking Neural Networks", IEEE Signal Processing Magazine 36(6),
2019; the functions below follow SpikingJelly's
``spikingjelly.activation_based.surrogate`` classes of the same names,
parameters and defaults).

The functions are written so that the runtime can trace them into the graphs
it compiles to Triton (aten graphs recorded by ``flexsn_trace``, as ``make_fx`` and
``aot_function`` record them for SpikingJelly's ``spikingjelly.activation_based.triton_kernel.flexsn`` kernel builders):

* each is a ``torch.autograd.Function`` in the new style (``forward``
  without ``ctx`` plus a separate ``setup_context``), which functorch
  transforms and AOTAutograd understand;
* the parameters (``alpha``, ...) are Python floats baked into the traced
  graph as constants, never tensors, so the generated kernel needs no extra
  argument;
* forward and backward use only elementwise ops the Triton lowering table
  knows (comparisons, ``where``, ``abs``, ``exp``, ``sigmoid``, arithmetic).

The base class is :class:`flexsn_nn.surrogate_base.SurrogateFunction`.

Use them by calling an instance on a tensor inside the core::

    sg = Sigmoid(alpha=4.0)

    def lif(x, v):
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)
"""

from __future__ import annotations

import math
import torch

from .surrogate_base import SurrogateFunction, heaviside, make_spike

__all__ = [
    "ATan",
    "Erf",
    "PiecewiseLeakyReLU",
    "PiecewiseQuadratic",
    "Rect",
    "Sigmoid",
    "SoftSign",
    "SuperSpike",
    "SurrogateFunction",
    "atan_surrogate_grad",
    "heaviside",
    "sigmoid_surrogate_grad",
]


def sigmoid_surrogate_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    """Surrogate derivative of the sigmoid family: ``alpha * σ(alpha x) * (1 - σ(alpha x))``.

    It is the derivative of the primitive ``g(x) = σ(alpha x)``.

    Args:
        x: any-shape floating-point tensor.
        alpha: steepness (Python float, > 0); larger is closer to Θ.

    Returns:
        A tensor of ``x``'s shape and dtype. Source: SpikingJelly
        ``surrogate.Sigmoid`` (backward ``sigmoid_backward``).
    """
    sg = torch.sigmoid(x * alpha)
    return (1.0 - sg) * sg * alpha


def atan_surrogate_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    """Surrogate derivative of the arctan family: ``alpha / 2 / (1 + (π/2 · alpha · x)^2)``.

    It is the derivative of the primitive ``g(x) = arctan(π/2 · alpha · x) / π + 1/2``.
    The square is written as a product so the lowering needs no ``pow``.

    Args:
        x: any-shape floating-point tensor.
        alpha: steepness (Python float, > 0).

    Returns:
        A tensor of ``x``'s shape and dtype. Source: SpikingJelly
        ``surrogate.ATan`` (backward ``atan_backward``).
    """
    # π/2 as a literal (== math.pi / 2.0): torch.compile(dynamic=True) lifts a module's float (math.pi) read in a
    # backward as a symbolic value, which Dynamo (torch 2.13) cannot hand to a second call's backward in one graph
    u = x * (1.5707963267948966 * alpha)
    return (alpha / 2.0) / (u * u + 1.0)


def _piecewise_quadratic_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    a = x.abs()
    return torch.where(a > 1.0 / alpha, torch.zeros_like(x), alpha - alpha * alpha * a)


def _soft_sign_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    d = (x * alpha).abs() + 1.0
    return (alpha / 2.0) / (d * d)


def _erf_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    u = x * alpha
    return torch.exp(-(u * u)) * (alpha / 1.7724538509055159)  # √π as a literal (== math.sqrt(math.pi)): see atan_surrogate_grad


def _super_spike_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    d = x.abs() + 1.0
    return alpha / (d * d)


def _piecewise_leaky_relu_grad(x: torch.Tensor, w: float, c: float) -> torch.Tensor:
    # arithmetic, not full_like: under torch.compile(dynamic=True) the hop backend traces w and c as 0-d tensors,
    # which full_like's fill value refuses (its training trace then failed and the backward ran the eager loop)
    inside = (x.abs() < w).to(x.dtype)
    return inside * (1.0 / (2.0 * w)) + (1.0 - inside) * c


def _rect_grad(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return (x.abs() < 0.5 / alpha).to(x.dtype) * alpha


class Sigmoid(SurrogateFunction):
    """Heaviside spike with the sigmoid surrogate gradient (SpikingJelly ``surrogate.Sigmoid``).

    Forward ``Θ(x) = (x >= 0)`` in ``x``'s dtype; backward
    ``alpha · σ(alpha x) · (1 − σ(alpha x))``, the derivative of the primitive
    ``σ(alpha x)``.

    Args:
        alpha: steepness, Python float > 0 (default 4.0, as SpikingJelly).

    Raises:
        TypeError / ValueError: see :class:`SurrogateFunction`.
    """

    _function = make_spike("SigmoidSpike", sigmoid_surrogate_grad)
    defaults = (4.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``σ(alpha x)``."""
        return torch.sigmoid(x * self.alpha)


class ATan(SurrogateFunction):
    """Heaviside spike with the arctan surrogate gradient (SpikingJelly ``surrogate.ATan``).

    Forward ``Θ(x)``; backward ``alpha / 2 / (1 + (π/2 · alpha · x)^2)``, the
    derivative of the primitive ``arctan(π/2 · alpha · x) / π + 1/2``.

    Args:
        alpha: steepness, Python float > 0 (default 2.0, as SpikingJelly).

    Raises:
        TypeError / ValueError: see :class:`SurrogateFunction`.
    """

    _function = make_spike("ATanSpike", atan_surrogate_grad)
    defaults = (2.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``arctan(π/2 · alpha · x) / π + 1/2``."""
        return torch.atan(x * (math.pi / 2.0 * self.alpha)) / math.pi + 0.5


class PiecewiseQuadratic(SurrogateFunction):
    """Heaviside spike with the triangular (piecewise quadratic primitive) surrogate (SpikingJelly ``surrogate.PiecewiseQuadratic``).

    Backward ``alpha − alpha² |x|`` for ``|x| <= 1/alpha``, else 0 (Esser et
    al. 2016; Bellec et al. 2018, "LSNN").

    Args:
        alpha: Python float > 0 (default 1.0).
    """

    _function = make_spike("PiecewiseQuadraticSpike", _piecewise_quadratic_grad)
    defaults = (1.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """0 below ``-1/alpha``, ``-alpha² |x| x / 2 + alpha x + 1/2`` inside, 1 above."""
        a = self.alpha
        inner = -0.5 * a * a * x.abs() * x + a * x + 0.5
        return torch.where(x > 1.0 / a, torch.ones_like(x), torch.where(x < -1.0 / a, torch.zeros_like(x), inner))


class SoftSign(SurrogateFunction):
    """Heaviside spike with the soft-sign surrogate (SpikingJelly ``surrogate.SoftSign``).

    Backward ``alpha / (2 (1 + |alpha x|)²)``, the derivative of
    ``(softsign(alpha x) + 1) / 2``.

    Args:
        alpha: Python float > 0 (default 2.0).
    """

    _function = make_spike("SoftSignSpike", _soft_sign_grad)
    defaults = (2.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``(alpha x / (1 + |alpha x|) + 1) / 2``."""
        u = x * self.alpha
        return (u / (u.abs() + 1.0) + 1.0) / 2.0


class Erf(SurrogateFunction):
    """Heaviside spike with the Gaussian-error surrogate (SpikingJelly ``surrogate.Erf``).

    Backward ``alpha / √π · exp(−(alpha x)²)``, the derivative of
    ``erfc(−alpha x) / 2``.

    Args:
        alpha: Python float > 0 (default 2.0).
    """

    _function = make_spike("ErfSpike", _erf_grad)
    defaults = (2.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``erfc(−alpha x) / 2``."""
        return torch.erfc(-self.alpha * x) / 2.0


class SuperSpike(SurrogateFunction):
    """Heaviside spike with the SuperSpike surrogate (Zenke and Ganguli 2018; SpikingJelly ``surrogate.SuperSpike``).

    Backward ``alpha / (1 + |x|)²``, the derivative of ``alpha x / (1 + |x|) + 1/2``.

    Args:
        alpha: Python float > 0 (default 1.0).
    """

    _function = make_spike("SuperSpikeSpike", _super_spike_grad)
    defaults = (1.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``alpha x / (1 + |x|) + 1/2``."""
        return self.alpha * x / (x.abs() + 1.0) + 0.5


class PiecewiseLeakyReLU(SurrogateFunction):
    """Heaviside spike with the piecewise leaky-ReLU surrogate (SpikingJelly ``surrogate.PiecewiseLeakyReLU``).

    Backward ``1 / (2w)`` for ``|x| < w``, else ``c``.

    Args:
        w: half width of the window, Python float > 0 (default 1.0).
        c: slope outside it, Python float >= 0 (default 0.01).
    """

    _function = make_spike("PiecewiseLeakyReLUSpike", _piecewise_leaky_relu_grad)
    param_names = ("w", "c")
    defaults = (1.0, 0.01)
    nonnegative = ("c",)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``c x + c w`` below ``−w``, ``x / (2w) + 1/2`` inside, ``c x − c w + 1`` above."""
        w, c = self._params
        inside = x / (2.0 * w) + 0.5
        return torch.where(x < -w, c * x + c * w, torch.where(x > w, c * x - c * w + 1.0, inside))


class Rect(SurrogateFunction):
    """Heaviside spike with the rectangular surrogate (SpikingJelly ``surrogate.Rect``).

    Backward ``alpha`` for ``|x| < 1 / (2 alpha)``, else 0, the derivative of
    ``clamp(alpha x + 1/2, 0, 1)``.

    Args:
        alpha: Python float > 0 (default 1.0).
    """

    _function = make_spike("RectSpike", _rect_grad)
    defaults = (1.0,)
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``clamp(alpha x + 1/2, 0, 1)``."""
        return torch.clamp(self.alpha * x + 0.5, 0.0, 1.0)
