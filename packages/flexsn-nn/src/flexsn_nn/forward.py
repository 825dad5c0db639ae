"""Sequence helpers of SpikingJelly's ``activation_based.functional`` (its ``forward`` group), by its names.

Code written for SpikingJelly calls ``functional.multi_step_forward``,
``functional.chunk_multi_step_forward`` and ``functional.seq_to_ann_forward``
beside ``reset_net``; :mod:`flexsn_nn.functional` re-exports these three so
that such code switches by its imports. Sequences are time-first,
``[T, batch, ...]``, as everywhere in FlexSN and SpikingJelly.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import torch
from torch import nn

__all__ = ["chunk_multi_step_forward", "multi_step_forward", "seq_to_ann_forward"]

#: one module or callable, or several applied in order (a list, a tuple, an ``nn.Sequential``)
Modules = Union[nn.Module, Sequence[Callable[..., Any]], Callable[..., Any]]


def _stages(modules: Modules, caller: str) -> list[Callable[..., Any]]:
    """``modules`` as the list of callables to apply in order.

    Raises:
        TypeError: not a callable, nor a list / tuple of callables.
    """
    if isinstance(modules, (list, tuple)):
        bad = [type(m).__name__ for m in modules if not callable(m)]
        if bad or not modules:
            raise TypeError(f"{caller}: expected a module, a callable or a non-empty list/tuple of them, got a "
                            f"{type(modules).__name__} holding {bad or 'nothing'}")
        return list(modules)
    if not callable(modules):
        raise TypeError(f"{caller}: expected a module, a callable or a list/tuple of them, got {type(modules).__name__}")
    return [modules]


def _run(stages: list[Callable[..., Any]], *args: Any) -> Any:
    """The first stage on ``args``, every later one on the previous one's output."""
    y = stages[0](*args)
    for stage in stages[1:]:
        y = stage(y)
    return y


def _check_sequence(x_seq: object, caller: str, dims: int) -> torch.Tensor:
    if not isinstance(x_seq, torch.Tensor):
        raise TypeError(f"{caller}: x_seq must be a tensor [T, batch, ...], got {type(x_seq).__name__}")
    if x_seq.dim() < dims:
        need = "[T, ...]" if dims == 1 else "[T, batch, ...]"
        raise ValueError(f"{caller}: x_seq must be a sequence {need}, got shape {tuple(x_seq.shape)}")
    return x_seq


def multi_step_forward(x_seq: torch.Tensor, single_step_module: Modules) -> torch.Tensor:
    """Run single-step module(s) over a sequence, one step at a time, and stack the results.

    At every step ``t`` the modules are applied in order to ``x_seq[t]``
    (SpikingJelly's ``functional.multi_step_forward``). Stateful modules keep
    their states from step to step, as a single-step neuron does.

    Args:
        x_seq: ``[T, batch, ...]``, any dtype the modules take.
        single_step_module: a module or callable, or a list / tuple /
            ``nn.Sequential`` of them applied in order.

    Returns:
        ``[T, *out]``: the per-step outputs stacked along a new dim 0.

    Raises:
        TypeError: ``x_seq`` is not a tensor, or the modules are not callables.
        ValueError: ``x_seq`` is 0-d, or ``T == 0`` (nothing to stack).
        Exception: what a module raises, unchanged.
    """
    x_seq = _check_sequence(x_seq, "multi_step_forward", 1)
    stages = _stages(single_step_module, "multi_step_forward")
    if x_seq.shape[0] == 0:
        raise ValueError("multi_step_forward: x_seq has T = 0 steps; the modules never run, so no output shape is known")
    return torch.stack([_run(stages, x_seq[t]) for t in range(x_seq.shape[0])])


def chunk_multi_step_forward(split_size: int, x_seq: torch.Tensor, multi_step_module: nn.Module) -> torch.Tensor:
    """Run a multi-step module over a long sequence in chunks of ``split_size`` steps and concatenate the outputs.

    For inference at large ``T`` (ANN-to-SNN conversion) with less memory at once; stateful modules carry their
    states from one chunk to the next, so the result equals one call on the whole sequence
    (SpikingJelly's ``functional.chunk_multi_step_forward``).

    Args:
        split_size: steps per chunk (the last chunk may be shorter), a positive int.
        x_seq: ``[T, batch, ...]``.
        multi_step_module: a module taking ``[t, batch, ...]`` and returning ``[t, ...]``.

    Returns:
        The chunks' outputs concatenated along dim 0: ``[T, ...]``.

    Raises:
        TypeError / ValueError: ``split_size`` is not a positive int; ``x_seq`` as in :func:`multi_step_forward`.
    """
    if isinstance(split_size, bool) or not isinstance(split_size, int):
        raise TypeError(f"chunk_multi_step_forward: split_size must be an int, got {type(split_size).__name__}")
    if split_size < 1:
        raise ValueError(f"chunk_multi_step_forward: split_size must be >= 1, got {split_size}")
    x_seq = _check_sequence(x_seq, "chunk_multi_step_forward", 1)
    if not callable(multi_step_module):
        raise TypeError(f"chunk_multi_step_forward: multi_step_module must be callable, got {type(multi_step_module).__name__}")
    return torch.cat([multi_step_module(chunk) for chunk in torch.split(x_seq, split_size)])


def seq_to_ann_forward(
    x_seq: torch.Tensor | tuple[torch.Tensor, ...], stateless_module: Modules
) -> torch.Tensor | tuple[torch.Tensor, ...]:
    """Run stateless layers on a sequence with time and batch merged: ``[T * batch, ...]`` in, ``[T, batch, ...]`` out.

    One call instead of ``T`` (a convolution, BatchNorm, pooling over every
    step at once; SpikingJelly's ``functional.seq_to_ann_forward``). A tuple of
    sequences (pooled values and their indices) goes to the first layer as
    that many positional arguments; later layers take the previous output.

    Args:
        x_seq: ``[T, batch, ...]``, or a tuple of such tensors sharing ``T`` and ``batch``.
        stateless_module: a module or callable, or a list / tuple / ``nn.Sequential`` of them.

    Returns:
        The output with its first dim split back into ``[T, batch]``; a tuple of such tensors when the last layer
        returns a tuple.

    Raises:
        TypeError: ``x_seq`` is not a tensor or a tuple of tensors, or the layers are not callables.
        ValueError: a tensor has fewer than 2 dims, or the tensors of a tuple differ in ``[T, batch]``.
    """
    caller = "seq_to_ann_forward"
    stages = _stages(stateless_module, caller)
    seqs = x_seq if isinstance(x_seq, tuple) else (x_seq,)
    if not seqs:
        raise ValueError(f"{caller}: x_seq is an empty tuple")
    seqs = tuple(_check_sequence(s, caller, 2) for s in seqs)
    lead = tuple(seqs[0].shape[:2])
    if any(tuple(s.shape[:2]) != lead for s in seqs[1:]):
        raise ValueError(f"{caller}: the tensors of x_seq must share [T, batch]; got shapes {[tuple(s.shape) for s in seqs]}")
    y = _run(stages, *(s.flatten(0, 1) for s in seqs))
    if isinstance(y, tuple):
        return tuple(item.unflatten(0, lead) for item in y)
    return y.unflatten(0, lead)  # type: ignore[no-any-return]
