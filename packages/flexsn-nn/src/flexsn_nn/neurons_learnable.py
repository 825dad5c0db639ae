"""Neurons with learnable parameters, on :class:`~flexsn_nn.module.FlexSN` with ``static_inputs``.

The parameters are ``nn.Parameter`` s of the neuron module, passed to the
step as static inputs: the fused kernels read them in place and return
their gradients summed over time and over the broadcast dimensions, so a
decay per layer or per channel, a threshold per channel or an adaptation
strength trains at the speed of the fixed-constant neuron.

* :class:`ParametricLIFNode`: SpikingJelly's ``neuron.ParametricLIFNode``
  (Fang et al., "Incorporating Learnable Membrane Time Constant to Enhance
  Learning of Spiking Neural Networks", ICCV 2021): ``tau = 1 / sigmoid(w)``.
* :class:`LearnableThresholdLIFNode`: LIF with a learnable threshold of any
  shape that broadcasts to the input (per channel ``[C, 1, 1]``).
* :class:`AdaptiveLIFNode`: LIF with threshold adaptation (Bellec et al.,
  "Long short-term memory and learning-to-learn in networks of spiking
  neurons", NeurIPS 2018) and a learnable adaptation strength ``beta``.
* :class:`CUBALIFNode`: current-based LIF (a synaptic current state
  filtering the input; Lava-DL's CUBA neuron, SpikingJelly's
  ``neuron.CUBALIFNode``) with optionally learnable decays.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn

from .backends import check_bool
from .neurons import (
    _DEFAULT_SURROGATE, NEURON_STEP_MODE, IFCore, IFNode, LIFCore, _check_float, _check_surrogate, _DecayInput, _Leaky, _required,
    _tau,
)
from .surrogate import Rect, SurrogateFunction

__all__ = ["AdaptiveLIFNode", "CUBALIFNode", "LearnableThresholdLIFNode", "ParametricLIFNode"]


class PLIFCore(IFCore):
    """One step of the parametric LIF neuron: ``(x, v, w) -> (spike, v_next)``, ``1 / tau = sigmoid(w)``."""

    __name__ = "plif_core"

    def __init__(
        self, decay_input: bool, v_threshold: float, v_reset: float | None, surrogate_function: SurrogateFunction,
        detach_reset: bool,
    ) -> None:
        super().__init__(v_threshold, v_reset, surrogate_function, detach_reset)
        self.decay_input = decay_input

    def __call__(self, x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """``H = V + (X - (V - V_reset)) · sigmoid(w)`` (or ``V - (V - V_reset) · sigmoid(w) + X``), then fire and reset."""
        k = torch.sigmoid(w)
        leak = v if self.v_reset is None or self.v_reset == 0.0 else v - self.v_reset
        h = v + (x - leak) * k if self.decay_input else v - leak * k + x
        return self.fire_and_reset(h)


class ParametricLIFNode(IFNode, _DecayInput):
    """Parametric LIF neuron (SpikingJelly ``neuron.ParametricLIFNode``) with a learnable membrane time constant.

    ``tau = 1 / sigmoid(w)`` with ``w`` a scalar ``nn.Parameter`` (named ``w``,
    as in SpikingJelly) initialised to ``-log(init_tau - 1)``. Charge as
    :class:`~flexsn_nn.neurons.LIFNode` with ``1 / tau`` replaced by
    ``sigmoid(w)``; fire and reset as :class:`~flexsn_nn.neurons.IFNode`.
    Shapes and dtypes as :class:`~flexsn_nn.neurons.IFNode`; ``w`` stays
    float32 beside half-precision inputs unless the module is cast.

    Args:
        init_tau: initial time constant in time steps, > 1 (default 2.0).
        decay_input, v_threshold, v_reset, surrogate_function, detach_reset,
            step_mode, backend, store_v_seq: as :class:`~flexsn_nn.neurons.LIFNode`.

    Raises:
        TypeError / ValueError: as :class:`~flexsn_nn.neurons.LIFNode`.
    """

    def __init__(
        self, init_tau: float = 2.0, decay_input: bool = True, v_threshold: float = 1.0, v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        tau = _tau(init_tau, "init_tau")
        core = PLIFCore(check_bool("decay_input", decay_input), _required("v_threshold", v_threshold), _check_float("v_reset", v_reset, True),
                        _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        w = nn.Parameter(torch.tensor(-math.log(tau - 1.0)))
        self._init_neuron(core, backend, step_mode, store_v_seq, static_inputs={"w": w})

    @property
    def tau(self) -> torch.Tensor:
        """The current time constant ``1 / sigmoid(w)`` (a tensor that follows ``w``)."""
        return 1.0 / torch.sigmoid(self.get_parameter("w").detach())

    def extra_repr(self) -> str:
        """``tau`` now and ``decay_input``, then :meth:`IFNode.extra_repr`."""
        return f"tau={float(self.tau):.4g}, decay_input={self.decay_input}, " + super().extra_repr()


class ThresholdLIFCore(LIFCore):
    """One LIF step with a learnable threshold: ``(x, v, v_th) -> (spike, v_next)``."""

    __name__ = "threshold_lif_core"

    def __call__(self, x: torch.Tensor, v: torch.Tensor, v_th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """LIF charge, then fire and reset with threshold ``v_th``."""
        return self.fire_and_reset(self.charge(x, v), v_th)


class LearnableThresholdLIFNode(IFNode, _Leaky):
    """LIF neuron whose threshold is a learnable ``nn.Parameter`` ``threshold`` of any broadcasting shape.

    Charge as :class:`~flexsn_nn.neurons.LIFNode`, fire ``S = Θ(H - V_th)``
    and reset with the learned ``V_th`` (hard to ``v_reset``, or soft:
    subtract ``V_th``). ``threshold_shape=(C, 1, 1)`` gives one threshold
    per channel of ``[T, B, C, H, W]`` inputs; ``()`` one per layer.

    Args:
        threshold_shape: shape of the threshold (broadcasting to the per-step shape).
        init_threshold: its initial value (default 1.0).
        tau, decay_input, v_reset, surrogate_function, detach_reset,
            step_mode, backend, store_v_seq: as :class:`~flexsn_nn.neurons.LIFNode`.

    Raises:
        TypeError / ValueError: as :class:`~flexsn_nn.neurons.LIFNode`; a
            ``threshold_shape`` that is not a sequence of ints >= 1.
    """

    def __init__(
        self, threshold_shape: Sequence[int] = (), init_threshold: float = 1.0, tau: float = 2.0,
        decay_input: bool = True, v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        shape = tuple(threshold_shape)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape):
            raise ValueError(f"threshold_shape must be a sequence of ints >= 1, got {threshold_shape!r}")
        th0 = _required("init_threshold", init_threshold)
        core = ThresholdLIFCore(_tau(tau), check_bool("decay_input", decay_input), th0, _check_float("v_reset", v_reset, True),
                                _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        self._init_neuron(core, backend, step_mode, store_v_seq, static_inputs={"threshold": nn.Parameter(torch.full(shape, th0))})

    @property  # type: ignore[override]
    def v_threshold(self) -> torch.Tensor:
        """The learned threshold (the parameter ``threshold``); setting a float fills it (no gradient recorded).

        Raises (setter):
            TypeError: not a Python float. ValueError: not finite.
        """
        return self.get_parameter("threshold")

    @v_threshold.setter
    def v_threshold(self, value: float) -> None:
        with torch.no_grad():
            self.get_parameter("threshold").fill_(_required("v_threshold", value))


class _SecondStateFromZero(IFNode):
    """A neuron with a second state (adaptation, synaptic current) that starts at 0; ``v`` starts as :class:`IFNode`'s."""

    def state_starts(self) -> tuple[float, ...]:
        """``v`` at ``v_reset`` (hard reset) or 0, the second state at 0."""
        return (*super().state_starts(), 0.0)


class AdaptiveLIFCore(LIFCore):
    """One adaptive-LIF step: ``(x, v, a, beta) -> (spike, v_next, a_next)``."""

    __name__ = "adaptive_lif_core"

    def __init__(self, tau: float, tau_a: float, decay_input: bool, v_threshold: float, v_reset: float | None,
                 surrogate_function: SurrogateFunction, detach_reset: bool) -> None:
        super().__init__(tau, decay_input, v_threshold, v_reset, surrogate_function, detach_reset)
        self.tau_a = tau_a
        self.rho = math.exp(-1.0 / tau_a)

    def __call__(  # type: ignore[override]
        self, x: torch.Tensor, v: torch.Tensor, a: torch.Tensor, beta: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Threshold ``V_th + beta · a``; ``a`` decays by ``rho = exp(-1 / tau_a)`` and grows by ``(1 - rho) · S``."""
        spike, v_next = self.fire_and_reset(self.charge(x, v), self.v_threshold + beta * a)
        return spike, v_next, a * self.rho + spike * (1.0 - self.rho)


class AdaptiveLIFNode(_SecondStateFromZero, _Leaky):
    """Adaptive LIF neuron (LSNN's ALIF) with a learnable adaptation strength ``beta``.

    States: membrane potential ``v`` and adaptation ``a`` (both 0 at start,
    ``v`` at ``v_reset`` for a hard reset). Each step: LIF charge, fire
    ``S = Θ(H - (V_th + beta · a))``, reset, ``a ← rho · a + (1 - rho) · S``
    with ``rho = exp(-1 / tau_a)``.

    Args:
        tau: membrane time constant (> 1, default 2.0).
        tau_a: adaptation time constant in time steps (> 1, default 20.0).
        init_beta: initial adaptation strength (default 1.0); ``beta_shape``
            its shape (default ``()``, one per layer).
        decay_input, v_threshold, v_reset, surrogate_function, detach_reset,
            step_mode, backend, store_v_seq: as :class:`~flexsn_nn.neurons.LIFNode`.

    Raises:
        TypeError / ValueError: as :class:`~flexsn_nn.neurons.LIFNode`.
    """

    def __init__(
        self, tau: float = 2.0, tau_a: float = 20.0, init_beta: float = 1.0, beta_shape: Sequence[int] = (),
        decay_input: bool = True, v_threshold: float = 1.0, v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        core = AdaptiveLIFCore(_tau(tau), _tau(tau_a, "tau_a"), check_bool("decay_input", decay_input), _required("v_threshold", v_threshold),
                               _check_float("v_reset", v_reset, True), _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        beta = nn.Parameter(torch.full(tuple(beta_shape), _required("init_beta", init_beta)))
        self._init_neuron(core, backend, step_mode, store_v_seq, num_states=2, static_inputs={"beta": beta})

    @property
    def tau_a(self) -> float:
        """Adaptation time constant (time steps, > 1); settable (``rho = exp(-1 / tau_a)`` follows, and the kernels are
        traced again at the next call, one warning).

        Raises (setter):
            TypeError: not a Python float. ValueError: not finite, or ``<= 1``.
        """
        core = self.neuron_core
        assert isinstance(core, AdaptiveLIFCore)
        return core.tau_a

    @tau_a.setter
    def tau_a(self, value: float) -> None:
        core = self.neuron_core
        assert isinstance(core, AdaptiveLIFCore)
        core.tau_a = _tau(value, "tau_a")
        core.rho = math.exp(-1.0 / core.tau_a)

    @property
    def a(self) -> torch.Tensor | float | None:
        """The adaptation state after the last call (0.0 before the first / after reset); settable as
        :attr:`v` is (a tensor, a Python float or ``None``)."""
        return self._state_value(1)

    @a.setter
    def a(self, value: torch.Tensor | float | None) -> None:
        self._set_state(1, "a", value)


class CUBACore(IFCore):
    """One current-based LIF step: ``(x, v, c, c_decay, v_decay) -> (spike, v_next, c_next)``."""

    __name__ = "cuba_lif_core"

    def __call__(  # type: ignore[override]
        self, x: torch.Tensor, v: torch.Tensor, c: torch.Tensor, c_decay: torch.Tensor, v_decay: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``C ← C · c_decay + X``, ``H = V · v_decay + C``, then fire and reset (SpikingJelly's ``functional.cuba_lif_step``)."""
        c_next = c * c_decay + x
        spike, v_next = self.fire_and_reset(v * v_decay + c_next)
        return spike, v_next, c_next


#: SpikingJelly's default surrogate for its CUBALIFNode
_RECT = Rect()
#: the names this neuron took before it followed SpikingJelly 2.0 (factors lost per step, not kept)
_RENAMED_DECAYS = {"current_decay": "c_decay", "voltage_decay": "v_decay"}


class CUBALIFNode(_SecondStateFromZero):
    """Current-based LIF neuron (SpikingJelly 2.0 ``neuron.CUBALIFNode``; Lava-DL's CUBA): two first-order filters.

    States: membrane potential ``v`` and synaptic current ``c``, both ``[*shape]`` in the
    input's dtype. Each step (SpikingJelly's ``functional.cuba_lif_step``):
    ``C[t] = C[t-1] · c_decay + X[t]``, ``H[t] = V[t-1] · v_decay + C[t]``, fire and reset as
    :class:`~flexsn_nn.neurons.IFNode`. The decays are the fractions *kept* per time step,
    and the arguments, their order and defaults are SpikingJelly 2.0's, so code written for
    its ``CUBALIFNode`` builds the same neuron here.

    Args:
        c_decay, v_decay: fractions of the current / potential kept per step, in [0, 1]
            (defaults 0.5 and 0.75, SpikingJelly's).
        v_threshold: threshold (default 0.5, SpikingJelly's for this neuron).
        v_reset: as :class:`~flexsn_nn.neurons.IFNode` (default 0.0).
        surrogate_function: default :class:`~flexsn_nn.surrogate.Rect` (``alpha=1``), SpikingJelly's for this neuron.
        requires_grad: (keyword, FlexSN's addition) learn the decays: ``nn.Parameter`` s
            ``c_decay`` and ``v_decay``. Default False: non-persistent buffers, constants kept
            out of the ``state_dict`` as SpikingJelly keeps its floats (its checkpoints load).
        detach_reset, step_mode, backend, store_v_seq: (keyword) as :class:`~flexsn_nn.neurons.IFNode`.

    Raises:
        TypeError / ValueError: as :class:`~flexsn_nn.neurons.IFNode`; a decay outside [0, 1];
            ``current_decay`` / ``voltage_decay``, this neuron's names before SpikingJelly's
            (they were the fractions lost per step: ``c_decay = 1 - current_decay``).
    """

    def __init__(
        self, c_decay: float = 0.5, v_decay: float = 0.75, v_threshold: float = 0.5, v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _RECT, *, requires_grad: bool = False, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, backend: str = "triton", store_v_seq: bool = False, **renamed: object,
    ) -> None:
        for old in renamed:
            if old in _RENAMED_DECAYS:
                raise TypeError(
                    f"CUBALIFNode takes SpikingJelly 2.0's {_RENAMED_DECAYS[old]!r}, the fraction KEPT per step, not "
                    f"{old!r} (the fraction lost): pass {_RENAMED_DECAYS[old]}={{1 - {old}}}"
                )
            raise TypeError(f"CUBALIFNode() got an unexpected keyword argument {old!r}")
        decays = {}
        for name, value in (("c_decay", c_decay), ("v_decay", v_decay)):
            d = _required(name, value)
            if not 0.0 <= d <= 1.0:
                raise ValueError(f"{name} (the fraction kept per step) must be in [0, 1], got {value}")
            t = torch.tensor(d)
            decays[name] = nn.Parameter(t) if check_bool("requires_grad", requires_grad) else t
        core = CUBACore(_required("v_threshold", v_threshold), _check_float("v_reset", v_reset, True),
                        _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        self._init_neuron(core, backend, step_mode, store_v_seq, num_states=2, static_inputs=decays)
        for name, t in decays.items():
            if not isinstance(t, nn.Parameter):  # constants, as SpikingJelly's floats: not in the state_dict
                self.register_buffer(name, t, persistent=False)

    @property
    def c(self) -> torch.Tensor | float | None:
        """The synaptic current after the last call (0.0 before the first / after reset, as SpikingJelly's
        ``c`` reads); settable as :attr:`v` is (a tensor, a Python float or ``None``)."""
        return self._state_value(1)

    @c.setter
    def c(self, value: torch.Tensor | float | None) -> None:
        self._set_state(1, "c", value)
