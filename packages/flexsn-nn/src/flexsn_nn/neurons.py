"""Ready-made spiking neurons built on :class:`~flexsn_nn.module.FlexSN`.

Both follow SpikingJelly's ``neuron.IFNode`` / ``neuron.LIFNode``
(``spikingjelly.activation_based.neuron``; Fang et al., "SpikingJelly: An
open-source machine learning infrastructure platform for spike-based
intelligence", Science Advances 9(40), 2023) and its three-stage step,
with membrane potentials in the same (dimensionless) units as the input
current ``X[t]`` and the threshold ``V_th``:

charge
    IF:  ``H[t] = V[t-1] + X[t]``

    LIF, ``decay_input=True``:  ``H[t] = V[t-1] + (X[t] - (V[t-1] - V_reset)) / tau``

    LIF, ``decay_input=False``: ``H[t] = V[t-1] - (V[t-1] - V_reset) / tau + X[t]``

    (soft reset, ``v_reset=None``: the same with ``V_reset = 0``)
fire
    ``S[t] = Θ(H[t] - V_th)``, with the surrogate gradient of
    ``surrogate_function`` in the backward pass
reset
    hard (``v_reset`` a float): ``V[t] = H[t] · (1 - S[t]) + V_reset · S[t]``

    soft (``v_reset=None``): ``V[t] = H[t] - V_th · S[t]``

    With ``detach_reset=True`` the ``S[t]`` of the reset is detached from the
    autograd graph (SpikingJelly's ``detach_reset``).

Every neuron here takes SpikingJelly 2.0's arguments, in its order and with its
defaults, ``step_mode="s"`` included (:data:`NEURON_STEP_MODE`); ``backend`` is
keyword-only.

The initial membrane potential is ``V_reset`` for a hard reset, else 0. The
step is written as a small callable object (:class:`IFCore`,
:class:`LIFCore`) whose constants are Python floats, so every neuron
configuration traces into its own fused kernel with the constants inlined.
"""

from __future__ import annotations

import math

import torch

from .backends import check_bool
from .module import FlexSN
from . import surrogate
from .surrogate import Sigmoid, SurrogateFunction

__all__ = ["NEURON_STEP_MODE", "IFCore", "IFNode", "LIFCore", "LIFNode"]

_DEFAULT_SURROGATE = Sigmoid()
#: the neurons' default step mode: SpikingJelly's neurons default to single-step ("s"), and code written for
#: them feeds one step ``[N, *]`` per call. A multi-step default would read that step's batch dimension as
#: time and return wrong numbers without an error; multi-step calls pass ``step_mode="m"`` (or
#: ``functional.set_step_mode(net, "m")``), as with SpikingJelly. ``FlexSN`` itself keeps ``"m"``, as
#: SpikingJelly's ``FlexSN`` does.
NEURON_STEP_MODE = "s"


def _check_float(name: str, value: object, allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a Python float{' or None' if allow_none else ''}, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def _required(name: str, value: object) -> float:
    """A finite Python float (``_check_float`` without ``None``)."""
    v = _check_float(name, value)
    assert v is not None
    return v


def _tau(value: object, name: str = "tau") -> float:
    """A time constant in time steps: a finite float > 1 (SpikingJelly's constraint)."""
    tau = _required(name, value)
    if tau <= 1.0:
        raise ValueError(f"{name} must be > 1 (time steps), got {value}")
    return tau


def _check_surrogate(value: object) -> SurrogateFunction:
    if not isinstance(value, SurrogateFunction):
        cls = type(value)
        hint = ""
        if cls.__module__.startswith("spikingjelly") and hasattr(surrogate, cls.__name__):  # ours: its names and arguments
            hint = (f"; SpikingJelly's {cls.__name__} is flexsn_nn.surrogate.{cls.__name__} here, with the same "
                    "arguments (its surrogate modules run inside a FlexSN core too)")
        raise TypeError(
            "surrogate_function must be a flexsn_nn.surrogate.SurrogateFunction (e.g. Sigmoid(), ATan()), "
            f"got {cls.__module__}.{cls.__name__}{hint}"
        )
    return value


class IFCore:
    """One step of the integrate-and-fire neuron: ``(x, v) -> (spike, v_next)``.

    Args:
        v_threshold: firing threshold ``V_th``.
        v_reset: reset potential (hard reset) or ``None`` (soft reset).
        surrogate_function: the spike function.
        detach_reset: detach the spike used in the reset.

    Call with ``x``, ``v`` floating tensors of one shape ``[*shape]``;
    returns the spikes (0.0 / 1.0) and the new potential, same shape/dtype.
    Source: SpikingJelly ``neuron.IFNode`` (``neuronal_charge``,
    ``neuronal_fire``, ``neuronal_reset``).
    """

    __name__ = "if_core"

    def __init__(
        self,
        v_threshold: float,
        v_reset: float | None,
        surrogate_function: SurrogateFunction,
        detach_reset: bool,
    ) -> None:
        self.v_threshold = v_threshold
        self.v_reset = v_reset
        self.surrogate_function = surrogate_function
        self.detach_reset = detach_reset

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``H = V + X``."""
        return v + x

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Charge, fire, reset: ``(X[t], V[t-1]) -> (S[t], V[t])``, all ``[*shape]``, ``x``'s dtype."""
        return self.fire_and_reset(self.charge(x, v))

    def fire_and_reset(
        self, h: torch.Tensor, threshold: torch.Tensor | float | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Fire ``S = Θ(H - V_th)`` and reset (hard to ``V_reset``, or soft: subtract ``V_th``).

        Args:
            h: the charged potential ``H[t]``.
            threshold: the threshold to use instead of ``v_threshold`` (a
                learnable or adaptive one; a tensor broadcasting to ``h``).

        Returns:
            ``(S[t], V[t])``.
        """
        th = self.v_threshold if threshold is None else threshold
        spike = self.surrogate_function(h - th)
        s = spike.detach() if self.detach_reset else spike
        if self.v_reset is None:
            v_next = h - s * th
        else:
            v_next = h * (1.0 - s) + s * self.v_reset
        return spike, v_next


class LIFCore(IFCore):
    """One step of the leaky integrate-and-fire neuron: ``(x, v) -> (spike, v_next)``.

    Args:
        tau: membrane time constant in time steps (> 1).
        decay_input: whether the input is divided by ``tau`` too.
        v_threshold, v_reset, surrogate_function, detach_reset: as :class:`IFCore`.

    Source: SpikingJelly ``neuron.LIFNode`` (``neuronal_charge``).
    """

    __name__ = "lif_core"

    def __init__(
        self,
        tau: float,
        decay_input: bool,
        v_threshold: float,
        v_reset: float | None,
        surrogate_function: SurrogateFunction,
        detach_reset: bool,
    ) -> None:
        super().__init__(v_threshold, v_reset, surrogate_function, detach_reset)
        self.tau = tau
        self.decay_input = decay_input

    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``H = V + (X - (V - V_reset)) / tau`` or ``H = V - (V - V_reset) / tau + X``."""
        leak = v if self.v_reset is None or self.v_reset == 0.0 else v - self.v_reset
        if self.decay_input:
            return v + (x - leak) / self.tau
        return v - leak / self.tau + x


class _DecayInput:
    """``decay_input`` of a neuron whose core has it (mixed into :class:`LIFNode` and its kin).

    Settable, as SpikingJelly's attribute is: a new value traces the kernels again at the next call (one warning),
    as :attr:`IFNode.v_threshold` does.

    Raises (setter):
        TypeError: not a Python bool.
    """

    neuron_core: IFCore

    @property
    def decay_input(self) -> bool:
        """Whether the input is divided by ``tau`` (``H = V + (X - (V - V_reset)) / tau``) or added undecayed."""
        return bool(getattr(self.neuron_core, "decay_input"))

    @decay_input.setter
    def decay_input(self, value: bool) -> None:
        setattr(self.neuron_core, "decay_input", check_bool("decay_input", value))


class _Leaky(_DecayInput):
    """``tau`` and ``decay_input`` of a neuron whose core is a :class:`LIFCore` (settable, as SpikingJelly's are).

    Raises (setter):
        TypeError: not a Python float (``tau``) or bool (``decay_input``). ValueError: ``tau`` not finite or ``<= 1``.
    """

    @property
    def tau(self) -> float:
        """Membrane time constant (time steps, > 1); a new value traces the kernels again at the next call."""
        core = self.neuron_core
        assert isinstance(core, LIFCore)
        return core.tau

    @tau.setter
    def tau(self, value: float) -> None:
        core = self.neuron_core
        assert isinstance(core, LIFCore)
        core.tau = _tau(value)


class IFNode(FlexSN):
    """Integrate-and-fire neuron (SpikingJelly ``neuron.IFNode``) on :class:`FlexSN`.

    Charge ``H = V + X``, fire ``S = Θ(H - V_th)``, hard or soft reset (see
    the module docstring). One input (current ``X``), one state (membrane
    potential ``V``), one output (spikes 0.0 / 1.0, the input's dtype).
    In ``step_mode="m"``, inputs ``[T, *shape]`` give spikes ``[T, *shape]``
    (one fused call); in ``step_mode="s"`` (the default, as SpikingJelly's
    neurons) each call is one step, ``[*shape]`` to ``[*shape]``.

    The arguments, their order and defaults are SpikingJelly 2.0's (every
    neuron here: code written for its neurons builds the same neuron);
    ``backend`` is FlexSN's addition and keyword-only.

    Args:
        v_threshold: threshold ``V_th`` (default 1.0).
        v_reset: reset potential for a hard reset (default 0.0), or ``None``
            for a soft reset (subtract ``V_th``).
        surrogate_function: the spike's surrogate gradient (default
            :class:`~flexsn_nn.surrogate.Sigmoid` with ``alpha=4``).
        detach_reset: detach the reset path from autograd.
        step_mode: ``"s"`` (default, :data:`NEURON_STEP_MODE`) or ``"m"``, as :class:`FlexSN`.
        backend: (keyword) as :class:`FlexSN`.
        store_v_seq: keep the membrane potential sequence in :attr:`v_seq`.

    Raises:
        TypeError: non-float constants, a surrogate that is not a
            :class:`~flexsn_nn.surrogate.SurrogateFunction`.
        ValueError: non-finite constants, bad backend / step_mode.
    """

    #: elementwise cores: the spikes take the inputs' per-step shape and dtype, so a ``T = 0`` call gives
    #: ``[0, *shape]`` on every backend without ``example_outputs`` (:func:`flexsn_nn.shapes.empty_outputs`)
    _outputs_like_inputs = True

    def __init__(
        self,
        v_threshold: float = 1.0,
        v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        v_th = _check_float("v_threshold", v_threshold)
        assert v_th is not None
        core = IFCore(v_th, _check_float("v_reset", v_reset, True), _check_surrogate(surrogate_function), check_bool("detach_reset", detach_reset))
        self._init_neuron(core, backend, step_mode, store_v_seq)

    def _init_neuron(
        self, core: IFCore, backend: str, step_mode: str, store_v_seq: bool, num_states: int = 1,
        static_inputs: dict[str, torch.Tensor] | None = None,
    ) -> None:
        FlexSN.__init__(
            self, core, 1, num_states, 1, step_mode=step_mode, backend=backend, store_state_seqs=store_v_seq,
            static_inputs=static_inputs,
        )
        self.neuron_core = core

    @property
    def v_threshold(self) -> float:
        """Firing threshold ``V_th``; settable, as SpikingJelly's ``v_threshold`` is (a threshold schedule).

        A constant of the kernels: a new value traces them again at the next
        call (one warning), under ``torch.compile`` through Dynamo's guards
        (see README, "Numbers are not lifted").

        Raises (setter):
            TypeError: not a Python float. ValueError: not finite.
        """
        return self.neuron_core.v_threshold

    @v_threshold.setter
    def v_threshold(self, value: float) -> None:
        self.neuron_core.v_threshold = _required("v_threshold", value)

    @property
    def v_reset(self) -> float | None:
        """Reset potential (hard reset) or ``None`` (soft reset); settable, as SpikingJelly's is.

        A constant of the kernels (and the initial ``v``): a new value traces them again at the next call (one
        warning), as :attr:`v_threshold` does; ``None`` switches to the soft reset.

        Raises (setter):
            TypeError: neither a Python float nor ``None``. ValueError: not finite.
        """
        return self.neuron_core.v_reset

    @v_reset.setter
    def v_reset(self, value: float | None) -> None:
        self.neuron_core.v_reset = _check_float("v_reset", value, allow_none=True)

    @property
    def surrogate_function(self) -> SurrogateFunction:
        """The spike function; settable, as SpikingJelly's is (a surrogate annealed by replacing it).

        Its kind and parameters are constants of the kernels: a new one traces them again at the next call
        (one warning), as :attr:`v_threshold` does.

        Raises (setter):
            TypeError: not a :class:`~flexsn_nn.surrogate.SurrogateFunction`.
        """
        return self.neuron_core.surrogate_function

    @surrogate_function.setter
    def surrogate_function(self, value: SurrogateFunction) -> None:
        self.neuron_core.surrogate_function = _check_surrogate(value)

    @property
    def detach_reset(self) -> bool:
        """Whether the reset uses detached spikes; settable, as SpikingJelly's is (traces the kernels again).

        Raises (setter):
            TypeError: not a Python bool.
        """
        return self.neuron_core.detach_reset

    @detach_reset.setter
    def detach_reset(self, value: bool) -> None:
        self.neuron_core.detach_reset = check_bool("detach_reset", value)

    @property
    def store_v_seq(self) -> bool:
        """Alias of ``store_state_seqs``; settable, as SpikingJelly's ``store_v_seq`` is (from the next call on).

        Raises (setter):
            TypeError: not a Python bool.
        """
        return self.store_state_seqs

    @store_v_seq.setter
    def store_v_seq(self, value: bool) -> None:
        self.store_state_seqs = check_bool("store_v_seq", value)

    @property
    def v(self) -> torch.Tensor | float | None:
        """Membrane potential ``[*shape]`` after the last call; before the first call and after :meth:`reset`, the
        float it starts from (``v_reset``, or 0.0 with soft reset), as SpikingJelly's memory ``v`` reads.

        Settable, as SpikingJelly's memory ``v`` is: a tensor (broadcasting with the next call's per-step shape, of
        its dtype and device), a Python float (the whole membrane at that value at the next call, made like its
        inputs as SpikingJelly's ``v_float_to_tensor`` does; read back as the float until then), or ``None`` (start
        from :meth:`init_states`). The next call starts from it; :meth:`reset` forgets it.

        Raises (setter):
            TypeError: another kind of value. ValueError: a float that is not finite.
        """
        return self._state_value(0)

    @v.setter
    def v(self, value: torch.Tensor | float | None) -> None:
        self._set_state(0, "v", value)

    def _set_state(self, index: int, name: str, value: object) -> None:
        """Set state ``index`` (called ``name``) to a tensor, a Python float or ``None``; the others stay."""
        if not (value is None or isinstance(value, torch.Tensor)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name} must be a torch.Tensor, a Python float or None, got {type(value).__name__}")
            value = _required(name, value)
        states = list(self._states) or [None] * self.num_states
        states[index] = value
        object.__setattr__(self, "_states", states)

    @property
    def v_seq(self) -> torch.Tensor | None:
        """Membrane potential sequence ``[T, *shape]`` of the last call (with ``store_v_seq=True``), else ``None``."""
        seqs = self.state_seqs
        return seqs[0] if seqs else None

    def state_starts(self) -> tuple[float, ...]:
        """The value each state starts from before the first call and after :meth:`reset` (SpikingJelly's
        ``register_memory`` values): ``v`` at ``v_reset`` (hard reset) or 0.0 (soft reset); subclasses with
        more states add theirs. The one place :meth:`init_states`, the zero-state fast path and the state
        getters (``node.v`` before a call) read them from."""
        return (0.0 if self.v_reset is None else self.v_reset,)

    def init_states(self, *input_seqs: torch.Tensor) -> list[torch.Tensor]:
        """Each state ``[*shape]`` filled with its :meth:`state_starts` value, of the inputs' dtype and device."""
        x = input_seqs[0]
        return [x.new_full(x.shape[1:], f) for f in self.state_starts()]

    def _init_states_are_zeros(self) -> bool:
        """Every state starts at 0 (e.g. soft reset or ``v_reset == 0``): the kernels then create them inside the op."""
        return type(self).init_states is IFNode.init_states and not any(self.state_starts())  # every call: no generator

    def _state_value(self, index: int) -> torch.Tensor | float | None:
        """State ``index`` as its getter shows it: the tensor or float it holds; when it holds none (before the
        first call, after :meth:`reset`), the float it starts from, as SpikingJelly's memories read. ``None`` only
        where a subclass's own :meth:`init_states` decides the start."""
        states = self.states
        value = states[index] if states else None
        if value is None and type(self).init_states is IFNode.init_states:
            return self.state_starts()[index]
        return value

    def extra_repr(self) -> str:
        """Neuron constants, step mode, backend and ``store_v_seq`` (shown by ``repr``)."""
        return (
            f"v_threshold={self.v_threshold}, v_reset={self.v_reset}, detach_reset={self.detach_reset}, "
            f"surrogate_function={self.surrogate_function!r}, step_mode={self.step_mode!r}, "
            f"backend={self.backend!r}, store_v_seq={self.store_v_seq}"
        )


class LIFNode(IFNode, _Leaky):
    """Leaky integrate-and-fire neuron (SpikingJelly ``neuron.LIFNode``) on :class:`FlexSN`.

    Charge ``H = V + (X - (V - V_reset)) / tau`` (``decay_input=True``) or
    ``H = V - (V - V_reset) / tau + X`` (``decay_input=False``), with
    ``V_reset = 0`` in the charge for a soft reset; fire and reset as
    :class:`IFNode` (see the module docstring). Shapes and dtypes as
    :class:`IFNode`.

    Args:
        tau: membrane time constant in time steps, > 1 (default 2.0).
        v_threshold, v_reset, surrogate_function, detach_reset, backend,
            step_mode, store_v_seq: as :class:`IFNode`.
        decay_input: divide the input by ``tau`` (default True).

    Raises:
        TypeError / ValueError: as :class:`IFNode`; ``tau <= 1`` (ValueError,
            SpikingJelly's constraint).
    """

    def __init__(
        self,
        tau: float = 2.0,
        decay_input: bool = True,
        v_threshold: float = 1.0,
        v_reset: float | None = 0.0,
        surrogate_function: SurrogateFunction = _DEFAULT_SURROGATE, detach_reset: bool = False,
        step_mode: str = NEURON_STEP_MODE, store_v_seq: bool = False, *, backend: str = "triton",
    ) -> None:
        tau_f = _tau(tau)
        v_th = _check_float("v_threshold", v_threshold)
        assert v_th is not None
        core = LIFCore(
            tau_f,
            check_bool("decay_input", decay_input),
            v_th,
            _check_float("v_reset", v_reset, True),
            _check_surrogate(surrogate_function),
            check_bool("detach_reset", detach_reset),
        )
        self._init_neuron(core, backend, step_mode, store_v_seq)

    def extra_repr(self) -> str:
        """``tau`` and ``decay_input``, then :meth:`IFNode.extra_repr`."""
        return f"tau={self.tau}, decay_input={self.decay_input}, " + super().extra_repr()
