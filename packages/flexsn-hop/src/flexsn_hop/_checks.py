"""Argument validation shared by every scan implementation (seed 003).

All scans take the same flat calling convention::

    scan(core_fn, num_inputs, num_states, num_outputs,
         *input_seqs, *init_states, *lifted_args,
         output_template_specs=None[, final_state=False, zero_init_states=False])

and apply the same rules, collected here so that the operator, the eager
loops and the lowerable variants raise identical errors:

* at least one input sequence, and at least ``num_inputs + num_states``
  tensors in ``flat_args``;
* ``core_fn`` must accept ``num_inputs + num_states + len(lifted_args)``
  positional arguments (checked against its signature when it has one);
* all input sequences share the leading time dimension ``T``;
* ``core_fn`` returns exactly ``num_outputs + num_states`` tensors per step;
* when ``T == 0`` the outputs come from ``output_template_specs``;
* ``final_state`` (``flex_sn_scan`` only) is a ``bool``;
* ``zero_init_states`` (``flex_sn_scan`` only) is a ``bool``; when set no
  initial states are passed (``flat_args`` is ``(*input_seqs, *lifted_args)``)
  and the states start as zeros ``[*shape]`` of input 0's per-step shape,
  dtype and device.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ._types import CoreFn, OutputTemplateSpec, OutputTemplateSpecs

__all__ = [
    "ScanArgs",
    "check_final_state_flag",
    "check_zero_init_states_flag",
    "check_step_results",
    "empty_outputs",
    "empty_state_seqs",
    "normalize_template_specs",
    "prepare_scan_args",
    "zero_states_like",
]


@dataclass(frozen=True)
class ScanArgs:
    """Validated, split arguments of one scan call."""

    input_seqs: tuple[torch.Tensor, ...]
    init_states: tuple[torch.Tensor, ...]
    lifted_args: tuple[torch.Tensor, ...]
    T: int
    output_template_specs: OutputTemplateSpecs | None
    #: ``True``: the call returns final states ``[*shape]`` instead of state
    #: sequences ``[T, *shape]``.
    final_state: bool = False
    #: ``True``: no initial states were passed (``init_states`` is empty);
    #: the states start as zeros of input 0's per-step shape, dtype and
    #: device (:meth:`states0` builds them, for the eager loop only).
    zero_init_states: bool = False

    def states0(self, num_states: int) -> tuple[torch.Tensor, ...]:
        """The initial states: ``init_states``, or zeros with ``zero_init_states``."""
        if self.zero_init_states:
            return zero_states_like(self.input_seqs[0], num_states)
        return self.init_states


def zero_states_like(x: torch.Tensor, num_states: int) -> tuple[torch.Tensor, ...]:
    """``num_states`` zero states ``[*x.shape[1:]]`` of ``x``'s dtype and device."""
    return tuple(x.new_zeros(x.shape[1:]) for _ in range(num_states))


def check_zero_init_states_flag(value: object) -> bool:
    """Validate ``flex_sn_scan``'s ``zero_init_states`` keyword (``TypeError`` unless a ``bool``)."""
    if not isinstance(value, bool):
        raise TypeError(
            f"flex_sn_scan: zero_init_states must be a bool, got {type(value).__name__}"
        )
    return value


def check_final_state_flag(value: object) -> bool:
    """Validate ``flex_sn_scan``'s ``final_state`` keyword.

    Raises ``TypeError`` unless it is a ``bool`` (``0`` / ``1`` or a tensor
    would silently pick a result layout).
    """
    if not isinstance(value, bool):
        raise TypeError(
            f"flex_sn_scan: final_state must be a bool, got {type(value).__name__}"
        )
    return value


def _check_count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"flex_sn_scan: {name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"flex_sn_scan: {name} must be >= {minimum}, got {value}")
    return value


def _positional_range(fn: object) -> tuple[int, int | None] | None:
    """``(min_required, capacity)`` positional args of ``fn``; capacity ``None``
    means ``*args``. ``None`` when the signature cannot be read."""
    target = fn.forward if isinstance(fn, torch.nn.Module) else fn
    try:
        signature = inspect.signature(target)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    required = 0
    capacity: int | None = 0
    for param in signature.parameters.values():
        if param.kind == inspect.Parameter.KEYWORD_ONLY and param.default is param.empty:
            raise ValueError(
                f"flex_sn_scan: core_fn has a required keyword-only parameter "
                f"{param.name!r}; expected a callable taking only positional tensors "
                f"(*step_inputs, *states, *lifted_args)"
            )
        if param.kind == inspect.Parameter.VAR_POSITIONAL:
            capacity = None
        elif param.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            if capacity is not None:
                capacity += 1
            if param.default is param.empty:
                required += 1
    return required, capacity


def _check_arity(core_fn: object, num_inputs: int, num_states: int, num_lifted: int) -> None:
    total = num_inputs + num_states + num_lifted
    arg_range = _positional_range(core_fn)
    if arg_range is None:
        return
    required, capacity = arg_range
    if required <= total and (capacity is None or total <= capacity):
        return
    if capacity is None:
        accepts = f"at least {required}"
    elif capacity == required:
        accepts = f"exactly {required}"
    else:
        accepts = f"{required} to {capacity}"
    raise ValueError(
        f"flex_sn_scan: expected core_fn to accept {total} positional tensor args "
        f"(num_inputs={num_inputs} + num_states={num_states} + lifted={num_lifted}), "
        f"got a core_fn that accepts {accepts}"
    )


def _normalize_shape(shape: object, index: int) -> tuple[int, ...]:
    if isinstance(shape, (int, torch.SymInt)) and not isinstance(shape, bool):
        return (shape,)  # type: ignore[return-value]
    if not isinstance(shape, Sequence) or not all(
        isinstance(d, (int, torch.SymInt)) and not isinstance(d, bool) for d in shape
    ):
        raise TypeError(
            f"flex_sn_scan: output_template_specs[{index}] shape must be a sequence "
            f"of ints, got {shape!r}"
        )
    return tuple(shape)


def _normalize_spec(spec: object, index: int) -> OutputTemplateSpec:
    if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
        raise ValueError(
            f"flex_sn_scan: output_template_specs[{index}] must be (shape, dtype) or "
            f"(shape, dtype, device), got {spec!r}"
        )
    shape = _normalize_shape(spec[0], index)
    dtype = spec[1]
    if not isinstance(dtype, torch.dtype):
        raise TypeError(
            f"flex_sn_scan: output_template_specs[{index}] dtype must be a "
            f"torch.dtype, got {dtype!r}"
        )
    if len(spec) == 2:
        return (shape, dtype)
    device = spec[2]
    if not isinstance(device, (torch.device, str, int)):
        raise TypeError(
            f"flex_sn_scan: output_template_specs[{index}] device must be a "
            f"torch.device or str, got {device!r}"
        )
    return (shape, dtype, torch.device(device))


def normalize_template_specs(
    specs: object, num_outputs: int
) -> OutputTemplateSpecs | None:
    """Validate ``output_template_specs`` and return them as nested tuples.

    Raises ``ValueError`` when the number of specs differs from
    ``num_outputs`` or a spec is not ``(shape, dtype[, device])``, and
    ``TypeError`` for a non-sequence, a bad shape, dtype or device.
    """
    if specs is None:
        return None
    if not isinstance(specs, (tuple, list)):
        raise TypeError(
            "flex_sn_scan: output_template_specs must be a tuple of "
            f"(shape, dtype[, device]) items, got {type(specs).__name__}"
        )
    if len(specs) != num_outputs:
        raise ValueError(
            f"flex_sn_scan: expected {num_outputs} output template specs "
            f"(one per output, num_outputs={num_outputs}), got {len(specs)}"
        )
    return tuple(_normalize_spec(spec, i) for i, spec in enumerate(specs))


def prepare_scan_args(
    core_fn: CoreFn,
    num_inputs: int,
    num_states: int,
    num_outputs: int,
    flat_args: Sequence[Any],
    output_template_specs: object = None,
    final_state: object = False,
    zero_init_states: object = False,
) -> ScanArgs:
    """Check one scan call against the seed-003 rules and split ``flat_args``.

    Raises ``TypeError`` for a non-callable ``core_fn``, non-int counts,
    non-tensor ``flat_args`` or a non-bool ``final_state`` /
    ``zero_init_states``; ``ValueError`` for too few tensors, no input
    sequence, a ``core_fn`` whose signature cannot take the arguments, a
    0-dim input sequence, input sequences with different ``T`` or malformed
    ``output_template_specs``.
    """
    if not callable(core_fn):
        raise TypeError(f"flex_sn_scan: core_fn must be callable, got {type(core_fn).__name__}")
    _check_count("num_inputs", num_inputs, 0)
    _check_count("num_states", num_states, 0)
    _check_count("num_outputs", num_outputs, 0)
    final = check_final_state_flag(final_state)
    zero_init = check_zero_init_states_flag(zero_init_states)
    expected = num_inputs if zero_init else num_inputs + num_states
    if len(flat_args) < expected:
        detail = (
            f"num_inputs={num_inputs}; zero_init_states=True: no initial states"
            if zero_init
            else f"num_inputs={num_inputs} + num_states={num_states}"
        )
        raise ValueError(
            f"flex_sn_scan: expected at least {expected} tensor args ({detail}), got {len(flat_args)}"
        )
    if num_inputs == 0:
        raise ValueError(
            "flex_sn_scan: requires at least one input sequence (num_inputs >= 1), got 0"
        )
    for i, arg in enumerate(flat_args):
        if not isinstance(arg, torch.Tensor):
            raise TypeError(
                f"flex_sn_scan: flat_args[{i}] must be a torch.Tensor, got {type(arg).__name__}"
            )
    input_seqs = tuple(flat_args[:num_inputs])
    init_states = tuple(flat_args[num_inputs:expected])
    lifted_args = tuple(flat_args[expected:])
    _check_arity(core_fn, num_inputs, num_states, len(lifted_args))
    for i, x in enumerate(input_seqs):
        if x.dim() == 0:
            raise ValueError(
                f"flex_sn_scan: input {i} must be a sequence [T, *shape], got a 0-dim tensor"
            )
    T = input_seqs[0].shape[0]
    for i, x in enumerate(input_seqs):
        if x.shape[0] != T:
            raise ValueError(
                f"flex_sn_scan: input {i} has leading dim {x.shape[0]}, expected T={T} "
                f"(the leading dim of input 0)"
            )
    specs = normalize_template_specs(output_template_specs, num_outputs)
    return ScanArgs(input_seqs, init_states, lifted_args, T, specs, final, zero_init)


def check_step_results(
    results: object, num_outputs: int, num_states: int
) -> tuple[torch.Tensor, ...]:
    """Turn one ``core_fn`` return value into a tuple of tensors.

    Raises ``TypeError`` when it is not a tensor or a tuple/list of tensors
    and ``ValueError`` when it does not hold ``num_outputs + num_states``
    values.
    """
    if isinstance(results, torch.Tensor):
        values: tuple[object, ...] = (results,)
    elif isinstance(results, (tuple, list)):
        values = tuple(results)
    else:
        raise TypeError(
            "flex_sn_scan: core_fn must return a tensor or a tuple of tensors, "
            f"got {type(results).__name__}"
        )
    expected = num_outputs + num_states
    if len(values) != expected:
        raise ValueError(
            f"flex_sn_scan: core returned {len(values)} values, expected "
            f"num_outputs + num_states = {expected} "
            f"(num_outputs={num_outputs}, num_states={num_states})"
        )
    for i, value in enumerate(values):
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"flex_sn_scan: core_fn result {i} must be a torch.Tensor, "
                f"got {type(value).__name__}"
            )
    return values  # type: ignore[return-value]


def empty_outputs(
    input_seqs: tuple[torch.Tensor, ...],
    num_outputs: int,
    specs: OutputTemplateSpecs | None,
) -> tuple[torch.Tensor, ...]:
    """Empty ``[0, *shape]`` output sequences built from the templates.

    Raises ``ValueError`` when ``num_outputs > 0`` and no templates were given.
    """
    if num_outputs == 0:
        return ()
    if specs is None:
        raise ValueError(
            f"flex_sn_scan: T == 0 requires output_template_specs ({num_outputs} items "
            "of (shape, dtype) or (shape, dtype, device)) so the empty output "
            "sequences can be built without running core_fn"
        )
    ref = input_seqs[0]
    outputs = []
    for spec in specs:
        shape, dtype = spec[0], spec[1]
        device = spec[2] if len(spec) == 3 else ref.device
        outputs.append(ref.new_empty((0, *shape), dtype=dtype, device=device))
    return tuple(outputs)


def empty_state_seqs(init_states: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """Empty ``[0, *state.shape]`` state sequences (same dtype/device)."""
    return tuple(s.new_empty((0, *s.shape)) for s in init_states)
