"""Surrogate-gradient spike functions for use inside a FlexSN core.

A spiking neuron fires with the Heaviside step ``S = Θ(x)`` (``x`` the
membrane potential minus the threshold), whose derivative is zero almost
everywhere. Surrogate-gradient training keeps the step in the forward pass and
replaces its derivative in the backward pass by the derivative of a smooth
"primitive" function ``g`` (Neftci, Mostafa and Zenke, "Surrogate Gradient
Learning in Spiking Neural Networks", IEEE Signal Processing Magazine 36(6),
2019; the two functions below follow SpikingJelly's
``spikingjelly.activation_based.surrogate.Sigmoid`` / ``ATan``).

The functions are written so that the runtime can trace them into the graphs
it compiles to Triton (``make_fx`` for inference, ``aot_function`` for the
forward/backward pair; SpikingJelly's ``spikingjelly.activation_based.triton_kernel.flexsn`` kernel builders):

* each is a ``torch.autograd.Function`` in the new style (``forward``
  without ``ctx`` plus a separate ``setup_context``), which functorch
  transforms and AOTAutograd understand;
* ``alpha`` is a Python ``float`` baked into the traced graph as a constant,
  never a tensor, so the generated kernel needs no extra argument;
* forward and backward use only elementwise ops the Triton lowering table
  knows (``ge``, dtype conversion, ``sigmoid``, ``mul``, ``add``, ``div``).

Use them by calling an instance on a tensor inside the core::

    sg = Sigmoid(alpha=4.0)

    def lif(x, v):
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

__all__ = [
    "ATan",
    "Sigmoid",
    "SurrogateFunction",
    "atan_surrogate_grad",
    "heaviside",
    "sigmoid_surrogate_grad",
]


def heaviside(x: torch.Tensor) -> torch.Tensor:
    """The spike nonlinearity ``Θ(x) = 1 if x >= 0 else 0``, in ``x``'s dtype.

    Args:
        x: any-shape floating-point tensor (membrane potential minus threshold).

    Returns:
        A tensor of ``x``'s shape, dtype and device holding 0.0 / 1.0.
        Note ``Θ(0) = 1`` (SpikingJelly's convention).
    """
    return (x >= 0).to(x.dtype)


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
    u = x * (math.pi / 2.0 * alpha)
    return (alpha / 2.0) / (u * u + 1.0)


class _HeavisideSpike(torch.autograd.Function):
    """Θ(x) forward; subclasses give the surrogate gradient (new-style Function, one class per surrogate).

    Each surrogate keeps its own class: tracing records the class it applies.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor, alpha: float) -> torch.Tensor:
        return heaviside(x)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        x, alpha = inputs
        ctx.save_for_backward(x)
        ctx.alpha = alpha


class _SigmoidSpike(_HeavisideSpike):
    """Θ(x) forward, :func:`sigmoid_surrogate_grad` backward."""

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        return grad_output * sigmoid_surrogate_grad(x, ctx.alpha), None


class _ATanSpike(_HeavisideSpike):
    """Θ(x) forward, :func:`atan_surrogate_grad` backward."""

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        return grad_output * atan_surrogate_grad(x, ctx.alpha), None


class SurrogateFunction:
    """Base class: a spike function ``sg(x) -> Θ(x)`` with a smooth surrogate derivative.

    Instances are immutable, hashable and compare equal when their class and
    ``alpha`` are equal. Call ``sg(x)`` on a floating-point tensor of any
    shape; the result has ``x``'s shape, dtype and device, values 0.0 / 1.0.
    Subclasses set ``_function`` (a ``torch.autograd.Function``) and
    ``_grad_formula`` (``(x, alpha) -> g'(x)``, the formula its backward
    uses), and implement :meth:`primitive`.

    Args:
        alpha: steepness, a finite Python number > 0 (stored as ``float``).

    Raises:
        TypeError: ``alpha`` is not a real Python number (a tensor, a bool...);
            calling on a non-tensor or a non-floating tensor.
        ValueError: ``alpha`` is not finite or not > 0.
    """

    _function: type[torch.autograd.Function]
    _grad_formula: Callable[[torch.Tensor, float], torch.Tensor]
    _alpha: float
    default_alpha: float = 1.0
    __slots__ = ("_alpha",)

    def __init__(self, alpha: float | None = None) -> None:
        value = self.default_alpha if alpha is None else alpha
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(
                f"{type(self).__name__}: alpha must be a Python float (it is baked into the "
                f"traced kernel), got {type(value).__name__}"
            )
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"{type(self).__name__}: alpha must be finite and > 0, got {value}")
        object.__setattr__(self, "_alpha", float(value))

    @property
    def alpha(self) -> float:
        """The steepness (Python float)."""
        return self._alpha

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; create a new one instead")

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Spike: ``Θ(x)`` forward, the surrogate derivative backward.

        Args:
            x: floating-point tensor, any shape (membrane potential minus threshold).

        Returns:
            Tensor of ``x``'s shape/dtype/device with values 0.0 / 1.0.

        Raises:
            TypeError: ``x`` is not a floating-point tensor.
        """
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{type(self).__name__} expects a torch.Tensor, got {type(x).__name__}")
        if not x.is_floating_point():
            raise TypeError(f"{type(self).__name__} expects a floating-point tensor, got {x.dtype}")
        apply: Callable[[torch.Tensor, float], torch.Tensor] = self._function.apply
        return apply(x, self._alpha)

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """The smooth function ``g`` whose derivative is the surrogate gradient (same shape/dtype as ``x``)."""
        raise NotImplementedError

    def surrogate_grad(self, x: torch.Tensor) -> torch.Tensor:
        """``g'(x)``: what the backward pass multiplies the incoming gradient by (same shape/dtype as ``x``)."""
        return type(self)._grad_formula(x, self._alpha)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(alpha={self._alpha!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, SurrogateFunction) and other._alpha == self._alpha

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._alpha))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._alpha,))

    def __copy__(self) -> "SurrogateFunction":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "SurrogateFunction":
        return self


class Sigmoid(SurrogateFunction):
    """Heaviside spike with the sigmoid surrogate gradient (SpikingJelly ``surrogate.Sigmoid``).

    Forward ``Θ(x) = (x >= 0)`` in ``x``'s dtype; backward
    ``alpha · σ(alpha x) · (1 − σ(alpha x))``, the derivative of the primitive
    ``σ(alpha x)``.

    Args:
        alpha: steepness, Python float > 0 (default :attr:`default_alpha` = 4.0, as SpikingJelly).

    Raises:
        TypeError / ValueError: see :class:`SurrogateFunction`.
    """

    _function = _SigmoidSpike
    _grad_formula = staticmethod(sigmoid_surrogate_grad)  # alpha · σ(alpha x) · (1 − σ(alpha x))
    default_alpha = 4.0
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``σ(alpha x)``."""
        return torch.sigmoid(x * self._alpha)


class ATan(SurrogateFunction):
    """Heaviside spike with the arctan surrogate gradient (SpikingJelly ``surrogate.ATan``).

    Forward ``Θ(x) = (x >= 0)`` in ``x``'s dtype; backward
    ``alpha / 2 / (1 + (π/2 · alpha · x)^2)``, the derivative of the primitive
    ``arctan(π/2 · alpha · x) / π + 1/2``.

    Args:
        alpha: steepness, Python float > 0 (default :attr:`default_alpha` = 2.0, as SpikingJelly).

    Raises:
        TypeError / ValueError: see :class:`SurrogateFunction`.
    """

    _function = _ATanSpike
    _grad_formula = staticmethod(atan_surrogate_grad)  # alpha / 2 / (1 + (π/2 · alpha · x)^2)
    default_alpha = 2.0
    __slots__ = ()

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """``arctan(π/2 · alpha · x) / π + 1/2``."""
        return torch.atan(x * (math.pi / 2.0 * self._alpha)) / math.pi + 0.5
