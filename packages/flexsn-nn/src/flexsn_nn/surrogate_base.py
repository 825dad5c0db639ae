"""The base of every surrogate spike function: ``Θ(x)`` forward, a smooth derivative backward.

A surrogate is a :class:`SurrogateFunction` subclass naming its Python-float
parameters (``param_names``, ``defaults``), a ``torch.autograd.Function``
(one per surrogate: tracing records the class it applies) and its gradient
formula ``g'(x, *params)``. The concrete functions live in
:mod:`flexsn_nn.surrogate`.
"""

from __future__ import annotations

import math
import zlib
from typing import Any, Callable

import torch

from flexsn_runtime import dual_level_active

_dynamo_compiling = torch.compiler.is_dynamo_compiling

__all__ = ["HeavisideSpike", "SurrogateFunction", "heaviside", "make_spike"]


def heaviside(x: torch.Tensor) -> torch.Tensor:
    """The spike nonlinearity ``Θ(x) = 1 if x >= 0 else 0``, in ``x``'s dtype.

    Args:
        x: any-shape floating-point tensor (membrane potential minus threshold).

    Returns:
        A tensor of ``x``'s shape, dtype and device holding 0.0 / 1.0.
        Note ``Θ(0) = 1`` (SpikingJelly's convention).
    """
    return (x >= 0).to(x.dtype)


class HeavisideSpike(torch.autograd.Function):
    """Θ(x) forward; subclasses give the surrogate gradient (new-style Function: functorch and AOTAutograd trace it).

    ``apply(x, *params)``: the parameters are Python floats, baked into a
    traced graph as constants. :func:`make_spike` makes the subclass of a
    surrogate from its ``g'(x, *params)``.
    """

    generate_vmap_rule = True
    formula: Callable[..., torch.Tensor]
    #: the subclass with a ``jvp`` for forward-mode AD (:func:`make_spike`)
    forward_mode: type[HeavisideSpike]

    @staticmethod
    def forward(x: torch.Tensor, *params: float) -> torch.Tensor:
        return heaviside(x)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        x, *params = inputs
        ctx.save_for_backward(x)
        ctx.params = tuple(params)



def make_spike(name: str, formula: Callable[..., torch.Tensor]) -> type[HeavisideSpike]:
    """A :class:`HeavisideSpike` subclass whose backward multiplies by ``formula(x, *params)``.

    One class per surrogate (tracing records the class it applies); the
    backward is a plain ``staticmethod``, which Dynamo inlines. Its
    ``forward_mode`` attribute is a subclass that also has a ``jvp`` for
    forward-mode AD (``torch.autograd.forward_ad``, ``torch.func.jvp``): the
    output's tangent is ``formula(x) * dx``, the transpose of the backward, so
    a JVP and a VJP agree (``<J t, g> = <t, J^T g>``). It is a class of its own
    because Dynamo cannot trace an ``autograd.Function`` that defines ``jvp``;
    :meth:`SurrogateFunction.__call__` applies it only inside a ``dual_level``.
    """

    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        (x,) = ctx.saved_tensors
        return (grad_output * formula(x, *ctx.params), *(None for _ in ctx.params))

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        HeavisideSpike.setup_context(ctx, inputs, output)
        ctx.save_for_forward(inputs[0])

    def jvp(ctx: Any, x_tangent: torch.Tensor, *param_tangents: None) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return x_tangent * formula(x, *ctx.params)

    attrs = {"formula": staticmethod(formula), "backward": staticmethod(backward), "__doc__": f"Θ(x) forward, {name} backward."}
    spike: type[HeavisideSpike] = type(name, (HeavisideSpike,), attrs)
    dual = {"setup_context": staticmethod(setup_context), "jvp": staticmethod(jvp), "__doc__": f"{name} with forward-mode AD."}
    spike.forward_mode = type(f"{name}ForwardMode", (spike,), dual)
    return spike


class SurrogateFunction:
    """Base class: a spike function ``sg(x) -> Θ(x)`` with a smooth surrogate derivative.

    Instances are immutable, hashable and compare equal when their class and
    parameters are equal. Call ``sg(x)`` on a floating-point tensor of any
    shape; the result has ``x``'s shape, dtype and device, values 0.0 / 1.0.
    Subclasses set ``param_names`` / ``defaults`` (SpikingJelly's names and
    defaults), ``_function`` (a :class:`HeavisideSpike` subclass) and
    implement :meth:`primitive`.

    Args:
        *args, **kwargs: the parameters by position or name (default
            :attr:`defaults`), finite Python numbers, > 0 (or >= 0 for
            those in ``nonnegative``), stored as ``float``.
        spiking: (keyword) SpikingJelly's ``spiking``: ``True`` (default) fires
            ``Θ(x)``; ``False`` returns the smooth :meth:`primitive` ``g(x)``
            itself, with autograd's gradient ``g'(x)`` (a non-spiking output).

    Raises:
        TypeError: a parameter that is not a real Python number (a tensor,
            a bool...), an unknown or repeated parameter name, ``spiking``
            not a bool; calling on a non-tensor or a non-floating tensor.
        ValueError: a parameter that is not finite or out of range.
    """

    _function: type[HeavisideSpike]
    param_names: tuple[str, ...] = ("alpha",)
    defaults: tuple[float, ...] = (1.0,)
    nonnegative: tuple[str, ...] = ()
    _params: tuple[float, ...]
    _spiking: bool
    #: a number naming the class (CRC-32 of its qualified name), watched beside the parameters: a surrogate of
    #: another kind with equal parameters (``Sigmoid(4.0)`` -> ``ATan(4.0)``) traces the kernels again
    family: int = 0
    __slots__ = ("_params", "_spiking")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.family = zlib.crc32(f"{cls.__module__}.{cls.__qualname__}".encode())
        # Each parameter a property: a read is one lookup, where __getattr__ runs only after a failed one (an
        # AttributeError raised and caught, ~0.5 us). The constants' watcher reads them on every call of a neuron.
        # An ancestor's parameter this class does not have reads through __getattr__ (which raises).
        for klass in cls.__mro__:
            for name in vars(klass).get("param_names", ()):
                here = cls.__dict__.get(name)
                if (here is None or isinstance(here, _Parameter)) and not _defined_above(cls, name):
                    setattr(cls, name, _Parameter(cls.param_names.index(name)) if name in cls.param_names else _Parameter(None))

    def __init__(self, *args: float | None, spiking: bool = True, **kwargs: float | None) -> None:
        name = type(self).__name__
        if not isinstance(spiking, bool):
            raise TypeError(f"{name}: spiking must be a Python bool, got {type(spiking).__name__}")
        object.__setattr__(self, "_spiking", spiking)
        if len(args) > len(self.param_names):
            raise TypeError(f"{name} takes {list(self.param_names)}, got {len(args)} positional values")
        given = dict(zip(self.param_names, args))
        for key, value in kwargs.items():
            if key not in self.param_names or key in given:
                raise TypeError(f"{name}: unexpected or repeated parameter {key!r} (parameters: {list(self.param_names)})")
            given[key] = value
        params = []
        for key, default in zip(self.param_names, self.defaults):
            value = given.get(key)
            value = default if value is None else value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(
                    f"{name}: {key} must be a Python float (it is baked into the traced kernel), got {type(value).__name__}"
                )
            low_ok = value >= 0 if key in self.nonnegative else value > 0
            if not math.isfinite(value) or not low_ok:
                bound = ">= 0" if key in self.nonnegative else "> 0"
                raise ValueError(f"{name}: {key} must be finite and {bound}, got {value}")
            params.append(float(value))
        object.__setattr__(self, "_params", tuple(params))

    @property
    def __flexsn_watched__(self) -> tuple[str, ...]:
        """:attr:`family` and the parameters' names: the numbers ``flexsn_trace.places`` watches below a surrogate a
        core reads (``self.sg = Sigmoid(alpha=1.0)`` after a call with ``alpha=4.0`` traces the kernels again)."""
        return ("family", "spiking", *self.param_names)

    @property
    def spiking(self) -> bool:
        """SpikingJelly's ``spiking``: whether a call fires ``Θ(x)`` (``True``) or returns :meth:`primitive`."""
        return self._spiking

    def __getattr__(self, name: str) -> float:
        """A parameter by name (``sg.alpha``, ``sg.w``), as SpikingJelly's surrogates expose them.

        Raises:
            AttributeError: not a parameter of this surrogate.
        """
        names = type(self).param_names
        if name in names:  # "_params" is never one: a surrogate still being built raises below, no recursion
            return self._params[names.index(name)]
        raise AttributeError(f"{type(self).__name__} has no {name}; its parameters are {list(names)}")

    @property
    def params(self) -> dict[str, float]:
        """The parameters by name."""
        return dict(zip(self.param_names, self._params))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; create a new one instead")

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Spike: ``Θ(x)`` forward, the surrogate derivative backward.

        Args:
            x: floating-point tensor, any shape (membrane potential minus threshold).

        Returns:
            Tensor of ``x``'s shape/dtype/device with values 0.0 / 1.0 (with
            ``spiking=False``: :meth:`primitive` of ``x``).

        Raises:
            TypeError: ``x`` is not a floating-point tensor.
        """
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{type(self).__name__} expects a torch.Tensor, got {type(x).__name__}")
        if not x.is_floating_point():
            raise TypeError(f"{type(self).__name__} expects a floating-point tensor, got {x.dtype}")
        if not self._spiking:
            return self.primitive(x)
        params = self._params
        if _dynamo_compiling() and any(isinstance(p, torch.SymFloat) for p in params):
            return self._spike_by_arithmetic(x, params)
        # inside a forward-mode AD dual level: the class with a jvp (Dynamo cannot trace it, so only there)
        function = self._function.forward_mode if dual_level_active() else self._function
        apply: Callable[..., torch.Tensor] = function.apply
        return apply(x, *params)

    def _spike_by_arithmetic(self, x: torch.Tensor, params: tuple[Any, ...]) -> torch.Tensor:
        """The spike and its surrogate gradient without an ``autograd.Function``: ``Θ(x)`` forward, ``grad · g'(x)`` back.

        For Dynamo with symbolic parameters only: ``torch.compile(dynamic=True)`` lifts a global
        surrogate's floats as ``SymFloat`` s, and Dynamo (torch 2.13) fails when a second
        ``autograd.Function`` call in one graph hands such a float from its forward to its backward
        ("lift_tracked_freevar_to_input should not be called on root SubgraphTracer"; PyTorch issue
        111031's kind), as a time loop or a core with two spikes does. ``x · g'(x)``, its factor
        detached, has the derivative ``g'(x)``, multiplied into the gradient as the Function's
        backward does; minus its own detached value it adds 0 to ``Θ(x)``.
        """
        slope = self._function.formula(x.detach(), *params)
        t = x * slope
        return heaviside(x) + (t - t.detach())

    def primitive(self, x: torch.Tensor) -> torch.Tensor:
        """The smooth function ``g`` whose derivative is the surrogate gradient (same shape/dtype as ``x``)."""
        raise NotImplementedError

    def surrogate_grad(self, x: torch.Tensor) -> torch.Tensor:
        """``g'(x)``: what the backward pass multiplies the incoming gradient by (same shape/dtype as ``x``)."""
        return self._function.formula(x, *self._params)

    def __repr__(self) -> str:
        args = [f"{k}={v!r}" for k, v in zip(self.param_names, self._params)] + ([] if self._spiking else ["spiking=False"])
        return f"{type(self).__name__}({', '.join(args)})"

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and isinstance(other, SurrogateFunction) and other._params == self._params
                and other._spiking == self._spiking)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._params, self._spiking))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._params, self._spiking))

    def __copy__(self) -> "SurrogateFunction":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "SurrogateFunction":
        return self


class _Parameter:
    """A surrogate's parameter ``index`` as a read-only attribute (``None``: not a parameter of the class, whose
    ``__getattr__`` then raises)."""

    __slots__ = ("index",)

    def __init__(self, index: int | None) -> None:
        self.index = index

    def __get__(self, obj: "SurrogateFunction | None", owner: type) -> Any:
        if obj is None:
            return self
        if self.index is None:
            raise AttributeError  # -> SurrogateFunction.__getattr__, which names the class's parameters
        return obj._params[self.index]


def _defined_above(cls: type, name: str) -> bool:
    """Whether ``name`` is a method or attribute of ``cls``'s ancestors other than a parameter (never shadowed)."""
    return any(name in vars(k) and not isinstance(vars(k)[name], _Parameter) for k in cls.__mro__[1:])


def _rebuild(cls: type[SurrogateFunction], params: tuple[float, ...], spiking: bool) -> SurrogateFunction:
    """Unpickle a surrogate (:meth:`SurrogateFunction.__reduce__`)."""
    return cls(*params, spiking=spiking)
