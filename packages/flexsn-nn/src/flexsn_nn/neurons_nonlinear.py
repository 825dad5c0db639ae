"""Nonlinear integrate-and-fire neurons on :class:`~flexsn_nn.module.FlexSN`, with SpikingJelly's names and defaults.

* :class:`QIFNode`: quadratic integrate-and-fire, ``H = V + (X + a0 (V - V_rest)(V - V_c)) / tau``;
* :class:`EIFNode`: exponential integrate-and-fire (Fourcaud-Trocmé et al.,
  J. Neurosci. 23(37), 2003), ``H = V + (X - (V - V_rest) + delta_T exp((V - theta_rh) / delta_T)) / tau``;
* :class:`IzhikevichNode`: the quadratic neuron with a recovery variable
  ``w`` (Izhikevich, IEEE Trans. Neural Networks 14(6), 2003), in
  SpikingJelly's ``neuron.IzhikevichNode`` form:
  ``H = V + (X + a0 (V - V_rest)(V - V_c) - W) / tau``, then
  ``W ← W + (a (H - V_rest) - W) / tau_w`` and, after a spike, ``W ← W + b``.

Fire and reset as :class:`~flexsn_nn.neurons.IFNode`; the initial
potential is ``v_reset`` (hard reset) or 0. Potentials are in the
dimensionless units of SpikingJelly's models (threshold 1). Sources:
SpikingJelly ``neuron.QIFNode``, ``neuron.EIFNode``, ``neuron.IzhikevichNode``.
"""

from __future__ import annotations

import torch

from .backends import check_bool
from .neurons import _DEFAULT_SURROGATE, NEURON_STEP_MODE, IFCore, IFNode, _check_float, _check_surrogate, _required, _tau
from .surrogate import SurrogateFunction

__all__ = ["EIFNode", "IzhikevichNode", "QIFNode"]


def _potentials(
    tau: object, v_threshold: object, v_rest: object, v_reset: object, rest_above_reset: bool = True
) -> tuple[float, float, float, float | None]:
    """The checked ``(tau, v_threshold, v_rest, v_reset)``: floats, ``tau > 1``; with a hard reset
    ``v_threshold > v_reset`` and (``rest_above_reset``) ``v_rest >= v_reset``, SpikingJelly's constraints."""
    t, th, rest, rs = _tau(tau), _required("v_threshold", v_threshold), _required("v_rest", v_rest), _check_float("v_reset", v_reset, True)
    if rs is not None and not (th > rs and (rest >= rs or not rest_above_reset)):
        raise ValueError(f"expected v_threshold > v_reset and v_rest >= v_reset, got {th}, {rs}, {rest}")
    return t, th, rest, rs


def _positive(name: str, value: object) -> float:
    v = _required(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return v


class QIFCore(IFCore):
    """One QIF step ``(x, v) -> (spike, v_next)``."""

    __name__ = "qif_core"

    def __init__(self, tau: float, v_c: float, a0: float, v_rest: float, v_threshold: float, v_reset: float | None,
                 surrogate_function: SurrogateFunction, detach_reset: bool) -> None:
        super().__init__(v_threshold, v_reset, surrogate_function, detach_reset)
        self.tau, self.v_c, self.a0, self.v_rest = tau, v_c, a0, v_rest

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``H = V + (X + a0 (V - V_rest)(V - V_c)) / tau``."""
        return v + (x + self.a0 * (v - self.v_rest) * (v - self.v_c)) / self.tau


class EIFCore(IFCore):
    """One EIF step ``(x, v) -> (spike, v_next)``."""

    __name__ = "eif_core"

    def __init__(self, tau: float, delta_T: float, theta_rh: float, v_rest: float, v_threshold: float,
                 v_reset: float | None, surrogate_function: SurrogateFunction, detach_reset: bool) -> None:
        super().__init__(v_threshold, v_reset, surrogate_function, detach_reset)
        self.tau, self.delta_T, self.theta_rh, self.v_rest = tau, delta_T, theta_rh, v_rest

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``H = V + (X - (V - V_rest) + delta_T exp((V - theta_rh) / delta_T)) / tau``."""
        return v + (x + self.v_rest - v + self.delta_T * torch.exp((v - self.theta_rh) / self.delta_T)) / self.tau


class IzhikevichCore(QIFCore):
    """One Izhikevich step ``(x, v, w) -> (spike, v_next, w_next)``."""

    __name__ = "izhikevich_core"

    def __init__(self, tau: float, v_c: float, a0: float, v_rest: float, tau_w: float, a: float, b: float,
                 v_threshold: float, v_reset: float | None, surrogate_function: SurrogateFunction, detach_reset: bool) -> None:
        super().__init__(tau, v_c, a0, v_rest, v_threshold, v_reset, surrogate_function, detach_reset)
        self.tau_w, self.a, self.b = tau_w, a, b

    def __call__(self, x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """Charge (with ``- W``), fire, adapt ``W`` with the charged potential, reset ``V`` and add ``b`` to ``W`` on a spike."""
        h = v + (x + self.a0 * (v - self.v_rest) * (v - self.v_c) - w) / self.tau
        spike, v_next = self.fire_and_reset(h)
        s = spike.detach() if self.detach_reset else spike
        w_next = w + (self.a * (h - self.v_rest) - w) / self.tau_w + self.b * s
        return spike, v_next, w_next


class QIFNode(IFNode):
    """Quadratic integrate-and-fire neuron (SpikingJelly ``neuron.QIFNode``; see the module docstring).

    Shapes as :class:`~flexsn_nn.neurons.IFNode`: input currents ``[T, *shape]`` (``step_mode="m"``) or ``[*shape]``
    (``"s"``) give spikes (0.0 / 1.0) of that shape and the input's dtype; potentials are dimensionless.

    Args:
        tau: membrane time constant (> 1, default 2.0).
        v_c: critical potential (default 0.8).
        a0: quadratic coefficient (> 0, default 1.0).
        v_threshold: threshold (default 1.0).
        v_rest: resting potential (default 0.0).
        v_reset: reset potential (default -0.1), or ``None`` for a soft reset.
        surrogate_function, detach_reset, step_mode, backend, store_v_seq: as :class:`~flexsn_nn.neurons.IFNode`.

    Raises:
        TypeError / ValueError: non-float or non-finite constants, and SpikingJelly's constraints
        (``tau > 1``, ``a0 > 0``, ``v_threshold > v_reset``, ``v_rest >= v_reset``).
    """

    def __init__(
        self, tau: float = 2.0, v_c: float = 0.8, a0: float = 1.0, v_threshold: float = 1.0, v_rest: float = 0.0,
        v_reset: float | None = -0.1, surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE,
        detach_reset: bool = False, step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        t, th, rest, rs = _potentials(tau, v_threshold, v_rest, v_reset)
        core = QIFCore(t, _required("v_c", v_c), _positive("a0", a0), rest, th, rs, _check_surrogate(surrogate_function),
                       check_bool("detach_reset", detach_reset))
        self._init_neuron(core, backend, step_mode, store_v_seq)


class EIFNode(IFNode):
    """Exponential integrate-and-fire neuron (SpikingJelly ``neuron.EIFNode``; see the module docstring).

    Shapes as :class:`~flexsn_nn.neurons.IFNode`: input currents ``[T, *shape]`` (``step_mode="m"``) or ``[*shape]``
    (``"s"``) give spikes (0.0 / 1.0) of that shape and the input's dtype; potentials are dimensionless.

    Args:
        tau: membrane time constant (> 1, default 2.0).
        delta_T: sharpness (> 0, default 1.0).
        theta_rh: rheobase potential (default 0.8).
        v_threshold, v_rest, v_reset (default -0.1), surrogate_function,
            detach_reset, step_mode, backend, store_v_seq: as :class:`QIFNode`.

    Raises:
        TypeError / ValueError: as :class:`QIFNode`; ``delta_T <= 0``.
    """

    def __init__(
        self, tau: float = 2.0, delta_T: float = 1.0, theta_rh: float = 0.8, v_threshold: float = 1.0,
        v_rest: float = 0.0, v_reset: float | None = -0.1, surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE,
        detach_reset: bool = False, step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        t, th, rest, rs = _potentials(tau, v_threshold, v_rest, v_reset)
        core = EIFCore(t, _positive("delta_T", delta_T), _required("theta_rh", theta_rh), rest, th, rs,
                       _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        self._init_neuron(core, backend, step_mode, store_v_seq)


class IzhikevichNode(IFNode):
    """Izhikevich neuron (SpikingJelly ``neuron.IzhikevichNode``; see the module docstring). States ``v`` and ``w``.

    Shapes as :class:`~flexsn_nn.neurons.IFNode`: input currents ``[T, *shape]`` (``step_mode="m"``) or ``[*shape]``
    (``"s"``) give spikes (0.0 / 1.0) of that shape and the input's dtype; potentials are dimensionless.

    Args:
        tau, v_c, a0, v_threshold, v_rest (default -0.1), surrogate_function,
            detach_reset, step_mode, backend, store_v_seq: as :class:`QIFNode`.
        v_reset: reset potential (default 0.0), or ``None``.
        w_rest: initial recovery variable (default 0.0).
        tau_w: its time constant (default 2.0).
        a: subthreshold coupling (default 0.0). b: spike-triggered jump (default 0.0).

    Raises:
        TypeError / ValueError: as :class:`QIFNode` (``v_rest`` may lie below ``v_reset``, as in SpikingJelly's defaults).
    """

    def __init__(
        self, tau: float = 2.0, v_c: float = 0.8, a0: float = 1.0, v_threshold: float = 1.0, v_reset: float | None = 0.0,
        v_rest: float = -0.1, w_rest: float = 0.0, tau_w: float = 2.0, a: float = 0.0, b: float = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        t, th, rest, rs = _potentials(tau, v_threshold, v_rest, v_reset, rest_above_reset=False)
        core = IzhikevichCore(t, _required("v_c", v_c), _positive("a0", a0), rest, _required("tau_w", tau_w), _required("a", a), _required("b", b), th, rs,
                              _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        w0 = _required("w_rest", w_rest)
        self._init_neuron(core, backend, step_mode, store_v_seq, num_states=2)
        self.w_rest = w0

    def state_starts(self) -> tuple[float, ...]:
        """``v`` at ``v_reset`` (hard reset) or 0, ``w`` at ``w_rest``."""
        return (*super().state_starts(), self.w_rest)

    @property
    def w(self) -> torch.Tensor | float | None:
        """The recovery variable after the last call (``w_rest`` before the first / after reset, as SpikingJelly's
        memory ``w`` reads); settable as :attr:`v` is (a tensor, a Python float or ``None``)."""
        return self._state_value(1)

    @w.setter
    def w(self, value: torch.Tensor | float | None) -> None:
        self._set_state(1, "w", value)
