"""Whole-network helpers in the style of SpikingJelly's ``activation_based.functional``."""

from __future__ import annotations

from torch import nn

from .backends import check_backend, check_step_mode

__all__ = ["reset_net", "set_backend", "set_step_mode"]


def reset_net(net: nn.Module) -> None:
    """Call ``reset()`` on every module of ``net`` (``net`` included) that has one.

    Use between independent samples/batches so neuron states (and their
    autograd history) do not leak across them (SpikingJelly
    ``functional.reset_net``).

    Args:
        net: any module; submodules without a callable ``reset`` are skipped.

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.
    """
    if not isinstance(net, nn.Module):
        raise TypeError(f"reset_net expects an nn.Module, got {type(net).__name__}")
    for module in net.modules():
        reset = getattr(module, "reset", None)
        if callable(reset):
            reset()


def set_step_mode(net: nn.Module, step_mode: str) -> None:
    """Set ``step_mode`` on every module of ``net`` that has a ``step_mode`` attribute.

    Args:
        net: any module (e.g. a network of :class:`~flexsn_nn.module.FlexSN` layers).
        step_mode: ``"s"`` (inputs ``[*shape]``) or ``"m"`` (inputs ``[T, *shape]``).

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.
        ValueError: ``step_mode`` is not ``"s"`` / ``"m"`` (checked before any module changes).

    Source: SpikingJelly ``functional.set_step_mode``.
    """
    _set_on_modules(net, "step_mode", check_step_mode(step_mode), "set_step_mode")


def set_backend(net: nn.Module, backend: str) -> None:
    """Set ``backend`` on every module of ``net`` that has a ``backend`` attribute.

    Args:
        net: any module.
        backend: one of ``"torch"``, ``"triton"``, ``"inductor"``, ``"hop"``.

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.
        ValueError: unknown backend (checked before any module changes).
        ImportError: ``"hop"`` without ``flexsn_hop``.

    Source: SpikingJelly ``functional.set_backend``.
    """
    _set_on_modules(net, "backend", check_backend(backend), "set_backend")


def _set_on_modules(net: nn.Module, attribute: str, value: str, caller: str) -> None:
    """Set an already validated ``value`` on every module of ``net`` that has ``attribute``."""
    if not isinstance(net, nn.Module):
        raise TypeError(f"{caller} expects an nn.Module, got {type(net).__name__}")
    for module in net.modules():
        if hasattr(module, attribute):
            setattr(module, attribute, value)
