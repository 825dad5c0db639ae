"""Swap SpikingJelly 2.0's neurons in a network for FlexSN's of the same name and settings.

``from_spikingjelly(net)`` walks ``net`` and replaces every ``IFNode``, ``LIFNode``,
``ParametricLIFNode``, ``EIFNode``, ``QIFNode``, ``IzhikevichNode`` and ``CUBALIFNode`` of
``spikingjelly.activation_based.neuron`` by :mod:`flexsn_nn`'s class of the same name, built from the
module's own settings (its constants, ``surrogate_function`` as :mod:`flexsn_nn.surrogate`'s class of the
same name and parameters, ``detach_reset``, ``step_mode``, ``store_v_seq``) and, for PLIF, its learned
``w``; and its ``FlexSN(core, num_states, static_inputs, ...)`` by :class:`flexsn_nn.FlexSN` over the same
core and static inputs. Parameters are carried as the same ``nn.Parameter`` objects, so an optimizer built
before the swap keeps training them. Both libraries compute the same neuron from the same settings
(``tests-integration/test_spikingjelly_parity.py``). SpikingJelly is not imported: its modules are
recognised by class name and module path. States are not carried: the new neurons start reset.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import torch
from torch import nn

from . import neurons, neurons_learnable, neurons_nonlinear, surrogate
from .module import FlexSN
from .surrogate_base import SurrogateFunction

__all__ = ["from_spikingjelly", "surrogate_from_spikingjelly"]

#: per neuron, the constants read from SpikingJelly's module besides v_threshold, v_reset and detach_reset
_SETTINGS: dict[str, tuple[type[nn.Module], tuple[str, ...]]] = {
    "IFNode": (neurons.IFNode, ()),
    "LIFNode": (neurons.LIFNode, ("tau", "decay_input")),
    "ParametricLIFNode": (neurons_learnable.ParametricLIFNode, ("decay_input",)),
    "EIFNode": (neurons_nonlinear.EIFNode, ("tau", "delta_T", "theta_rh", "v_rest")),
    "QIFNode": (neurons_nonlinear.QIFNode, ("tau", "v_c", "a0", "v_rest")),
    "IzhikevichNode": (neurons_nonlinear.IzhikevichNode, ("tau", "v_c", "a0", "v_rest", "w_rest", "tau_w", "a", "b")),
    "CUBALIFNode": (neurons_learnable.CUBALIFNode, ("c_decay", "v_decay")),
}
_COMMON = ("v_threshold", "v_reset", "detach_reset")


def _from_spikingjelly(m: object) -> bool:
    return type(m).__module__.startswith("spikingjelly.")


def _number(value: object) -> object:
    """SpikingJelly keeps its constants as Python numbers; a 0-d tensor (a user's) is read as one."""
    return value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value


def surrogate_from_spikingjelly(sg: object) -> SurrogateFunction:
    """:mod:`flexsn_nn.surrogate`'s class of the same name as SpikingJelly's surrogate module ``sg``, with its
    parameters (``alpha``; ``w``, ``c``) and ``spiking``.

    Raises:
        TypeError: ``sg`` is not one of SpikingJelly's surrogates that FlexSN has (its name is given).
    """
    cls = getattr(surrogate, type(sg).__name__, None)
    if not _from_spikingjelly(sg) or not (isinstance(cls, type) and issubclass(cls, SurrogateFunction)):
        raise TypeError(
            f"{type(sg).__module__}.{type(sg).__name__} is not one of SpikingJelly's surrogates that flexsn_nn.surrogate "
            "has (Sigmoid, ATan, PiecewiseQuadratic, SoftSign, Erf, SuperSpike, PiecewiseLeakyReLU, Rect)"
        )
    params = {k: float(_number(getattr(sg, k))) for k in cls.param_names}  # type: ignore[arg-type]
    return cls(**params, spiking=bool(getattr(sg, "spiking", True)))


def _convert_flexsn(m: nn.Module, backend: str) -> nn.Module:
    """SpikingJelly 2.0's ``FlexSN``: ours over the same core and static inputs (the same tensor objects)."""
    sj: Any = m  # its attributes, read as SpikingJelly 2.0 names them
    return FlexSN(sj.core, num_states=int(sj.num_states), static_inputs=tuple(sj.static_inputs), step_mode=sj.step_mode,
                  store_state_seqs=bool(getattr(sj, "store_state_seqs", False)), backend=backend)


def _convert(m: nn.Module, backend: str) -> nn.Module:
    if type(m).__name__ == "FlexSN":
        return _convert_flexsn(m, backend)
    cls, names = _SETTINGS[type(m).__name__]
    kwargs = {k: _number(getattr(m, k)) for k in (*_COMMON, *names)}
    new = cls(
        **kwargs, surrogate_function=surrogate_from_spikingjelly(m.surrogate_function),
        step_mode=m.step_mode, store_v_seq=bool(getattr(m, "store_v_seq", False)), backend=backend,
    )
    if isinstance(new, neurons_learnable.ParametricLIFNode):
        w = m.get_parameter("w")
        if w.shape != new.get_parameter("w").shape:
            raise TypeError(f"SpikingJelly's ParametricLIFNode has a w of shape {tuple(w.shape)}; FlexSN's is a scalar")
        new.register_parameter("w", w)  # the same Parameter: an optimizer built before the swap still trains it
    return new


def _convertible(m: nn.Module) -> bool:
    return _from_spikingjelly(m) and (type(m).__name__ in _SETTINGS or type(m).__name__ == "FlexSN")


def from_spikingjelly(net: nn.Module, *, backend: str = "triton") -> nn.Module:
    """Replace SpikingJelly 2.0's neurons in ``net`` by FlexSN's (module docstring); returns ``net``.

    ``net`` is changed in place; if ``net`` is itself such a neuron, its replacement is returned. A
    SpikingJelly neuron FlexSN has no class for (``KLIFNode``, ...) stays, with one warning naming it.

    Args:
        net: any ``nn.Module``.
        backend: the new neurons' ``backend`` (:data:`flexsn_nn.BACKENDS`).

    Raises:
        TypeError: ``net`` is not an ``nn.Module``; a neuron whose surrogate FlexSN does not have
            (:func:`surrogate_from_spikingjelly`); a PLIF ``w`` that is not a scalar; errors of
            :class:`flexsn_nn.FlexSN` for a ``FlexSN``'s core.
    """
    if not isinstance(net, nn.Module):
        raise TypeError(f"from_spikingjelly takes an nn.Module, got {type(net).__name__}")
    # SpikingJelly's neurons mostly hold no tensor; ours may (CUBA-LIF's decays): on the network's device
    first = next(itertools.chain(net.parameters(), net.buffers()), None)
    device = first.device if first is not None else None

    def swap(m: nn.Module) -> nn.Module:
        new = _convert(m, backend)
        return new.to(device) if device is not None else new

    if _convertible(net):
        return swap(net)
    left: list[str] = []
    for parent_name, parent in list(net.named_modules()):
        for name, child in list(parent.named_children()):
            if not _from_spikingjelly(child) or not type(child).__module__.startswith("spikingjelly.activation_based.neuron"):
                continue
            if _convertible(child):
                setattr(parent, name, swap(child))
            else:
                left.append(f"{parent_name + '.' if parent_name else ''}{name} ({type(child).__name__})")
    if left:
        warnings.warn(
            f"FlexSN: from_spikingjelly left SpikingJelly's {', '.join(left)}: FlexSN has no neuron of that name "
            "(write its step as a FlexSN core)",
            RuntimeWarning,
            stacklevel=2,
        )
    return net
