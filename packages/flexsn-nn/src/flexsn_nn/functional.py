"""Whole-network helpers in the style of SpikingJelly's ``activation_based.functional``.

Its sequence helpers (``multi_step_forward``, ``chunk_multi_step_forward``,
``seq_to_ann_forward``) live in :mod:`flexsn_nn.forward` and are re-exported here.
"""

from __future__ import annotations

from torch import nn

from .backends import check_backend, check_step_mode
from .forward import chunk_multi_step_forward, multi_step_forward, seq_to_ann_forward

__all__ = [
    "chunk_multi_step_forward", "detach_net", "multi_step_forward", "prepare_fully_shard", "reset_net", "seq_to_ann_forward",
    "set_backend", "set_step_mode",
]


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
    _call_on_modules(net, "reset", "reset_net")


def detach_net(net: nn.Module) -> None:
    """Call ``detach()`` on every module of ``net`` (``net`` included) that has one: truncated BPTT.

    Between chunks of a long sequence, after a chunk's ``backward()``: the
    neurons keep their states' values and the next chunk's backward stops
    there (:meth:`flexsn_nn.FlexSN.detach`). SpikingJelly's stateful modules
    in the same network are detached too (their ``detach`` is the same call).

    Args:
        net: any module; submodules without a callable ``detach`` are skipped.

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.

    Source: SpikingJelly ``functional.detach_net``.
    """
    _call_on_modules(net, "detach", "detach_net")


def _call_on_modules(net: nn.Module, method: str, caller: str) -> None:
    """Call ``method()`` on every module of ``net`` (``net`` included) whose ``method`` attribute is callable."""
    if not isinstance(net, nn.Module):
        raise TypeError(f"{caller} expects an nn.Module, got {type(net).__name__}")
    for module in net.modules():
        if not _may_have(module, method):
            continue
        bound = getattr(module, method, None)
        if callable(bound):
            bound()


def _may_have(module: nn.Module, name: str) -> bool:
    """Whether ``getattr(module, name)`` may find something: a class attribute, an instance one or a submodule.

    A training loop resets its network every step, and ``getattr`` of a name a module lacks goes through
    ``nn.Module.__getattr__``, which raises inside: about 0.5 µs per module without ``reset`` (a convolution, a
    BatchNorm) on the development CPU, a third of ``reset_net``'s time on a convnet. Parameters and buffers are not
    callable, so they are not looked up; a class with its own ``__getattr__`` is asked as it is.
    """
    cls = type(module)
    return (
        hasattr(cls, name) or name in module.__dict__ or name in module._modules
        or cls.__getattr__ is not nn.Module.__getattr__
    )


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


def prepare_fully_shard(net: nn.Module) -> list[str]:
    """Give the 0-d learnable parameters of the FlexSN layers in ``net`` the shape ``[1]`` that FSDP2 needs.

    ``torch.distributed.fsdp.fully_shard`` refuses scalar parameters ("fully_shard doesn't
    support scalar parameters"); a :class:`~flexsn_nn.ParametricLIFNode`'s decay ``w`` is one,
    as in SpikingJelly (so checkpoints load both ways). A static input of shape ``[1]``
    broadcasts as the scalar did: outputs and gradients are unchanged. Call it before
    ``fully_shard`` and before building the optimizer (the parameters are new objects).

    Args:
        net: any module; only :class:`~flexsn_nn.FlexSN` layers' ``static_inputs`` change.

    Returns:
        The qualified names of the parameters reshaped (``"1.w"``).

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.
    """
    from .module import FlexSN  # the module imports this one's siblings: import at call time

    if not isinstance(net, nn.Module):
        raise TypeError(f"prepare_fully_shard expects an nn.Module, got {type(net).__name__}")
    changed: list[str] = []
    for prefix, module in net.named_modules():
        if not isinstance(module, FlexSN):
            continue
        for name in module._static_names:
            p = module._parameters.get(name)
            if p is not None and p.dim() == 0:
                setattr(module, name, nn.Parameter(p.detach().reshape(1), requires_grad=p.requires_grad))
                changed.append(f"{prefix}.{name}" if prefix else name)
    return changed
