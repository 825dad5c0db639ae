"""A neuron's ``static_inputs``: named, checked and registered as parameters or buffers."""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import torch
from torch import nn

from flexsn_trace import layout_problem

__all__ = ["register_static_inputs"]


def register_static_inputs(
    module: nn.Module, static_inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None
) -> tuple[str, ...]:
    """Register ``static_inputs`` on ``module``; return their attribute names in order.

    ``nn.Parameter`` entries become parameters, other tensors buffers (so they
    follow ``.to()``, ``state_dict``, deep copies and pickling), as
    SpikingJelly's ``FlexSN(static_inputs=...)`` keeps them. A sequence's
    entries are named ``static_input_<k>``; a mapping gives the names.

    A tensor that requires grad but is not an ``nn.Parameter`` (``w[:, :1]`` of a
    parameter ``w``, ``torch.randn(C, requires_grad=True)``) is registered as a
    buffer too, with a ``UserWarning`` saying why that silently stops training it.

    Raises:
        TypeError: a bare tensor (its rows would pass as separate inputs), an
            entry that is not a tensor, a sparse or nested one.
        ValueError: a name that is not an identifier or is taken on ``module``.
    """
    if isinstance(static_inputs, torch.Tensor):  # iterating it would pass its rows as separate static inputs
        raise TypeError(
            "static_inputs must be a sequence or mapping of tensors, got a torch.Tensor; "
            "wrap a single one: static_inputs=(w,)"
        )
    if isinstance(static_inputs, Mapping):
        named = [(str(k), w) for k, w in static_inputs.items()]
    else:
        named = [(f"static_input_{k}", w) for k, w in enumerate(() if static_inputs is None else static_inputs)]
    for name, w in named:
        if not isinstance(w, torch.Tensor):
            raise TypeError(f"static_inputs[{name!r}] must be a torch.Tensor, got {type(w).__name__}")
        problem = layout_problem(w)
        if problem is not None:
            raise TypeError(f"static_inputs[{name!r}] {problem}")
        if not name.isidentifier() or hasattr(module, name):
            raise ValueError(f"static_inputs: {name!r} is not a free attribute name for a parameter or buffer")
        if isinstance(w, nn.Parameter):
            module.register_parameter(name, w)
        else:
            if w.requires_grad:
                _warn_trained_buffer(name, w)
            module.register_buffer(name, w)
    return tuple(name for name, _ in named)


def _warn_trained_buffer(name: str, w: torch.Tensor) -> None:
    """Warn that static input ``name``, which requires grad, becomes a buffer (see :func:`register_static_inputs`)."""
    origin = f"computed by {type(w.grad_fn).__name__}" if w.grad_fn is not None else "a leaf tensor"
    warnings.warn(
        f"static_inputs[{name!r}] requires grad but is not an nn.Parameter ({origin}): it is registered as a buffer, "
        "which no optimizer of the neuron's parameters updates, and which .to(), .cuda(), .double() and copies of the "
        "neuron replace by a copy that no longer follows the tensor it came from (its later updates and gradients "
        "are then lost, silently). Pass an nn.Parameter (any shape that broadcasts to one step), or read the tensor "
        "inside the core, where a captured parameter is lifted and read at every call",
        UserWarning,
        stacklevel=4,  # the user's FlexSN(...) call: FlexSN.__init__ -> register_static_inputs -> here
    )
