"""Types shared by the ``flexsn_hop`` modules: the core, output templates, one fused call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Union

import torch

__all__ = [
    "CoreFn",
    "DispatchPath",
    "FusedScanCall",
    "OutputTemplateSpec",
    "OutputTemplateSpecs",
    "ScanFn",
    "ScanResult",
    "final_state_form",
]

#: One step of a neuron: ``core(*step_inputs, *states, *lifted) ->
#: (*step_outputs, *next_states)``; a lone tensor counts as a 1-tuple.
CoreFn = Callable[..., Union[torch.Tensor, Sequence[torch.Tensor]]]

#: ``(shape, dtype)`` or ``(shape, dtype, device)`` of ONE step output, i.e.
#: ``shape`` has no time dimension. Used only when ``T == 0``.
OutputTemplateSpec = Union[
    tuple[tuple[int, ...], torch.dtype],
    tuple[tuple[int, ...], torch.dtype, torch.device],
]

#: One :data:`OutputTemplateSpec` per step output, in output order.
OutputTemplateSpecs = tuple[OutputTemplateSpec, ...]

#: What every scan returns: a flat tuple of tensors.
ScanResult = tuple[torch.Tensor, ...]


#: Which kernel of the operator consulted the hook.
DispatchPath = Literal[
    "autograd", "dense", "functionalize", "proxy", "fake", "functorch", "eager"
]


@dataclass(frozen=True)
class FusedScanCall:
    """One ``flex_sn_scan`` call, validated and split, as seen by the hook.

    ``input_seqs`` are ``[T, *shape]`` tensors, ``init_states`` ``[*shape]``
    tensors and ``lifted_args`` the extra tensors passed unchanged to every
    step (closures captured by Dynamo, in the body's argument order).
    ``core_fn`` is the user's step function or, under ``torch.compile``, the
    ``torch.fx.GraphModule`` Dynamo traced from it; either way it is called
    as ``core_fn(*step_inputs, *states, *lifted_args)``.
    ``output_template_specs`` is ``None`` or ``num_outputs`` items of
    ``(shape, dtype[, device])`` (always present when Dynamo captured the
    call). ``dispatch`` names the operator kernel that asks (``"functorch"``:
    under a ``torch.func`` transform, with wrapped tensors; ``"eager"``: the
    operator could not be registered as a HOP), ``requires_grad``
    says whether autograd must flow (only ever ``True`` on ``"autograd"``) and
    ``tracing`` whether the tensors are fake / proxied (AOTAutograd, Inductor,
    ``make_fx``) rather than real. ``final_state`` is the operator's
    ``final_state`` keyword: the hook must then return the final states
    ``[*state_shape]`` in place of the state sequences (state sequences
    need not be computed at all). ``zero_init_states`` is the operator's
    ``zero_init_states`` keyword: no initial states were passed, so
    ``init_states`` is empty and the states start as zeros of input 0's
    per-step shape, dtype and device; a hook should create them inside its
    op (a hook that cannot should return ``None``). As SpikingJelly's ``FlexSNScan`` calls.
    """

    core_fn: CoreFn
    num_inputs: int
    num_states: int
    num_outputs: int
    input_seqs: tuple[torch.Tensor, ...]
    init_states: tuple[torch.Tensor, ...]
    lifted_args: tuple[torch.Tensor, ...]
    output_template_specs: OutputTemplateSpecs | None
    T: int
    dispatch: DispatchPath
    requires_grad: bool
    tracing: bool
    final_state: bool = False
    zero_init_states: bool = False

    @property
    def flat_args(self) -> tuple[torch.Tensor, ...]:
        """``(*input_seqs, *init_states, *lifted_args)``, the operator's order."""
        return (*self.input_seqs, *self.init_states, *self.lifted_args)


#: A scan entry point: ``scan(core_fn, num_inputs, num_states, num_outputs, *flat_args,
#: output_template_specs=None, final_state=False) -> ScanResult``.
ScanFn = Callable[..., ScanResult]


def final_state_form(scan: ScanFn, name: str) -> ScanFn:
    """``scan`` with ``final_state=True``, under SpikingJelly's ``*_final_state`` name.

    The result returns ``num_outputs`` output sequences ``[T, *out_shape]``
    then ``num_states`` final states ``[*state_shape]`` (never state
    sequences); arguments and errors are ``scan``'s.
    """

    def form(*args: torch.Tensor | int | CoreFn, output_template_specs: OutputTemplateSpecs | None = None) -> ScanResult:
        return scan(*args, output_template_specs=output_template_specs, final_state=True)

    form.__name__ = form.__qualname__ = name
    form.__doc__ = (
        f"SpikingJelly's ``{name}``: :func:`{scan.__name__}` with ``final_state=True``, returning output "
        "sequences ``[T, *out_shape]`` then final states ``[*state_shape]``. ``T == 0``: empty outputs "
        f"from ``output_template_specs`` and the initial states (cloned). Same arguments and errors as "
        f":func:`{scan.__name__}`."
    )
    return form
