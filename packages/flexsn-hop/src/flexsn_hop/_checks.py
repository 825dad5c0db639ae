"""Argument validation shared by every scan implementation.

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
* when ``T == 0`` the outputs come from ``output_template_specs``, else
  from one step of ``core_fn`` on fake tensors (SpikingJelly requires the
  templates);
* lifted arguments are tensors or sizes (``int`` / ``torch.SymInt``, which
  Dynamo lifts from symbolic shapes; :mod:`flexsn_hop.sizes`), or floats
  (``float`` / ``torch.SymFloat``), taken as 0-d tensors;
* ``final_state`` (``flex_sn_scan`` only) is a ``bool``;
* ``zero_init_states`` (``flex_sn_scan`` only) is a ``bool``; when set no
  initial states are passed (``flat_args`` is ``(*input_seqs, *lifted_args)``)
  and the states start as zeros ``[*shape]`` of input 0's per-step shape,
  dtype and device.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from flexsn_trace import (
    ScanContract,
    as_tensor_tuple,
    check_counts,
    check_scan_args,
    empty_sequences,
    fake_step_outputs,
    find_constants,
)

from ._types import CoreFn, OutputTemplateSpec, OutputTemplateSpecs
from .sizes import LiftedSizes, split_sizes

__all__ = [
    "ScanArgs",
    "check_final_state_flag",
    "check_zero_init_states_flag",
    "check_step_results",
    "empty_outputs",
    "normalize_template_specs",
    "prepare_scan_args",
]


class ScanArgs(NamedTuple):
    """One validated scan call: its :class:`flexsn_trace.ScanContract` and normalised templates.

    ``sizes`` are the ints / SymInts among the lifted arguments (Dynamo lifts
    symbolic sizes; :mod:`flexsn_hop.sizes`); the contract holds the tensors only.
    """

    contract: ScanContract
    output_template_specs: OutputTemplateSpecs | None
    sizes: LiftedSizes = LiftedSizes()

    def loop_core(self, core_fn: CoreFn) -> CoreFn:
        """``core_fn`` called as ``core(*step_inputs, *states, *lifted_tensors)``: the sizes go back in their places."""
        c = self.contract
        return self.sizes.bind(core_fn, c.num_inputs + c.num_states)


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
        f"flex_sn_scan: expected {total} tensor args "
        f"(num_inputs={num_inputs} + num_states={num_states} + lifted={num_lifted}) for core_fn, "
        f"got a core_fn that accepts {accepts} positional args"
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
    """Check one scan call against the rules of SpikingJelly's ``flex_sn_scan`` and split ``flat_args``.

    Raises ``TypeError`` for a non-callable ``core_fn``, non-int counts,
    ``flat_args`` that are not tensors (or, among the lifted ones, sizes) or a non-bool ``final_state`` /
    ``zero_init_states``; ``ValueError`` for too few tensors, no input
    sequence, a ``core_fn`` whose signature cannot take the arguments, a
    0-dim input sequence, input sequences with different ``T`` or malformed
    ``output_template_specs``.
    """
    if not callable(core_fn):
        raise TypeError(f"flex_sn_scan: core_fn must be callable, got {type(core_fn).__name__}")
    check_counts(num_inputs, num_states, num_outputs, who="flex_sn_scan")
    final = check_final_state_flag(final_state)
    zero_init = check_zero_init_states_flag(zero_init_states)
    need = num_inputs + (0 if zero_init else num_states)
    lifted_tensors, sizes = split_sizes(flat_args[need:], need, flat_args[0] if flat_args else None)
    contract = check_scan_args(
        num_inputs,
        num_states,
        num_outputs,
        (*flat_args[:need], *lifted_tensors),
        who="flex_sn_scan",
        states="none" if zero_init else "required",
        lifted=True,
        final_state=final,
    )
    _check_arity(core_fn, num_inputs, num_states, len(contract.lifted_args) + len(sizes.positions))
    specs = normalize_template_specs(output_template_specs, num_outputs)
    return ScanArgs(contract, specs, sizes)


def check_step_results(results: object, num_outputs: int, num_states: int) -> tuple[torch.Tensor, ...]:
    """One ``core_fn`` return value as a tuple of ``num_outputs + num_states`` tensors.

    :func:`flexsn_trace.as_tensor_tuple` with the operator's name. Raises
    ``TypeError`` for a value that is not a tensor and ``ValueError`` for the
    wrong count.
    """
    return as_tensor_tuple(results, "flex_sn_scan: core", num_outputs + num_states, TypeError)


def empty_outputs(args: ScanArgs, num_outputs: int, core: CoreFn, core_fn: CoreFn | None = None) -> tuple[torch.Tensor, ...]:
    """Empty ``[0, *shape]`` output sequences of a ``T == 0`` call: from the templates, else from a fake step.

    ``core`` is the step as the loop calls it (:meth:`ScanArgs.loop_core`),
    ``core_fn`` the user's function it wraps (searched for side effects; ``core`` when not given).
    Without ``output_template_specs`` the shapes and dtypes come from one
    step of ``core`` on fake tensors (:func:`flexsn_trace.fake_step_outputs`),
    as Dynamo's trace of the step finds them under ``torch.compile``;
    SpikingJelly's ``flex_sn_scan`` requires the templates instead. Floating outputs on input 0's
    device stay in its autograd graph (:func:`flexsn_trace.empty_sequences`): a backward through
    them gives zero gradients, as ``FlexSN``'s ``T == 0`` outputs do, not "does not require grad". A core
    that changes state outside its arguments (:func:`flexsn_trace.side_effects`:
    ``STATS["last"] = h``) is never run so: that step would make its change
    once, with a fake tensor left in the user's state, where the loop runs the
    core no time.

    Raises ``ValueError`` when ``num_outputs > 0``, no templates were given
    and the core cannot run on fake tensors, or changes state outside its
    arguments (the message says why and names the statement).
    """
    if num_outputs == 0:
        return ()
    ref, specs = args.contract.input_seqs[0], args.output_template_specs
    if specs is None:
        c = args.contract
        try:
            # under torch.compile Dynamo traces the step on its own fake tensors, which keeps no result of it
            effects = () if torch.compiler.is_compiling() else find_constants(core_fn or core).side_effects
            if effects:
                raise ValueError(
                    f"the core changes state outside its arguments ({'; '.join(effects)}), so flex_sn_scan does "
                    "not run it on fake tensors to find them"
                )
            found = fake_step_outputs(core, c.input_seqs, c.states0(), c.lifted_args, num_outputs, c.num_states, "flex_sn_scan")
        except ValueError as exc:
            raise ValueError(
                f"flex_sn_scan: T == 0 requires output_template_specs ({num_outputs} items "
                "of (shape, dtype) or (shape, dtype, device)) so the empty output "
                f"sequences can be built without running core_fn ({exc})"
            ) from exc
        return empty_sequences(ref, [(tuple(shape), dtype) for shape, dtype in found])
    outputs: list[torch.Tensor] = []
    for spec in specs:
        shape, dtype = spec[0], spec[1]
        device = torch.device(spec[2]) if len(spec) == 3 else ref.device
        if device == ref.device:  # in input 0's autograd graph, as the module's T == 0 outputs
            outputs += empty_sequences(ref, [(tuple(shape), dtype)])
        else:
            outputs.append(ref.new_empty((0, *shape), dtype=dtype, device=device))
    return tuple(outputs)
