"""The scan expressed through PyTorch's own loop operators (as in SpikingJelly's FlexSN operator).

``lowerable_scan`` maps the FlexSN step onto ``torch.ops.higher_order.scan``
(carry = states, per-step outputs = step outputs and state copies), and
``lowerable_while_loop_scan`` onto ``torch.ops.higher_order.while_loop``
(a step counter, the states and fixed-shape ``[T, *shape]`` output
buffers carried through the loop; step ``t`` reads ``index_select(x, 0, t)``
and writes with ``index_copy``). Under ``torch.compile`` the loop then
stays ONE node instead of ``T`` unrolled copies. Both are experimental
helpers, like SpikingJelly's: results equal :func:`flexsn_hop.eager_scan`, but
training through PyTorch's loop operators depends on the PyTorch version.

Both operators are private PyTorch APIs: they are imported defensively and
the ``*_available()`` probes report whether the import worked; calling a
variant whose operator is missing raises ``RuntimeError``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from flexsn_trace import reference_scan

from ._checks import (
    ScanArgs,
    check_step_results,
    empty_outputs,
    prepare_scan_args,
)
from ._types import CoreFn, OutputTemplateSpecs, ScanFn, ScanResult, final_state_form



def _load(module: str, name: str) -> Callable[..., Any] | None:
    try:
        mod = __import__(module, fromlist=[name])
        op = getattr(mod, name)
    except ImportError:
        return None
    except Exception as exc:  # drift beyond a plain missing module
        warnings.warn(
            f"flexsn_hop: {module}.{name} could not be loaded ({exc!r}); "
            "the matching lowerable_* variant is unavailable",
            stacklevel=2,
        )
        return None
    return op if callable(op) else None


_scan_op = _load("torch._higher_order_ops.scan", "scan_op")
_while_loop_op = _load("torch._higher_order_ops.while_loop", "while_loop_op")


def lowerable_scan_available() -> bool:
    """``True`` when PyTorch's ``scan`` HOP (``torch.ops.higher_order.scan``)
    could be imported, i.e. :func:`lowerable_scan` can run."""
    return _scan_op is not None


def lowerable_while_loop_available() -> bool:
    """``True`` when PyTorch's ``while_loop`` HOP
    (``torch.ops.higher_order.while_loop``) could be imported, i.e.
    :func:`lowerable_while_loop_scan` can run."""
    return _while_loop_op is not None


def _dynamo_compiling() -> bool:
    try:
        return bool(torch.compiler.is_dynamo_compiling())
    except Exception:
        return False


def _flatten(values: Any) -> tuple[torch.Tensor, ...]:
    """Flatten nested tuples/lists (the scan HOP returns ``[*carry, *ys]``
    eagerly but ``(carry, ys)`` under Dynamo)."""
    if isinstance(values, (tuple, list)):
        return tuple(leaf for v in values for leaf in _flatten(v))
    return (values,)


def _unaliased(
    values: tuple[torch.Tensor, ...], inputs: tuple[torch.Tensor, ...]
) -> tuple[torch.Tensor, ...]:
    """Clone every value that IS a body input or an earlier value: PyTorch's
    loop operators reject outputs aliasing inputs or each other (a core that
    returns its state unchanged, or one tensor as output and state)."""
    seen: list[torch.Tensor] = list(inputs)
    fresh = []
    for value in values:
        if any(value is other for other in seen):
            value = value.clone()
        seen.append(value)
        fresh.append(value)
    return tuple(fresh)


def _ordered(seqs: Sequence[torch.Tensor], final_states: Sequence[torch.Tensor], state_seqs: bool) -> ScanResult:
    """The scan's result: the sequences (outputs, then state sequences), or outputs then final states."""
    return tuple(seqs) if state_seqs else (*seqs, *final_states)


def _t_zero(args: ScanArgs, num_outputs: int, core_fn: CoreFn) -> ScanResult:
    outputs = empty_outputs(args, num_outputs, core_fn)
    return reference_scan(lambda *a: a, args.contract, outputs)  # T == 0: the core never runs


def _scan_step(
    *flat: torch.Tensor,
    combine_fn: CoreFn,
    num_inputs: int,
    num_carry: int,
    num_states: int,
    num_outputs: int,
    state_seqs: bool,
) -> Any:
    """``scan_op`` body: ``(*carry, *x_t, *lifted) -> [*next_carry, *ys]``.

    ``num_carry`` exceeds ``num_states`` by one when a stateless core gets a
    dummy carry (the scan HOP needs at least one)."""
    carry = flat[:num_carry]
    step_inputs = flat[num_carry : num_carry + num_inputs]
    lifted = flat[num_carry + num_inputs :]
    results = check_step_results(
        combine_fn(*step_inputs, *carry[:num_states], *lifted), num_outputs, num_states
    )
    next_states = results[num_outputs:]
    outputs = results[:num_outputs]
    dummy = tuple(c.clone() for c in carry[num_states:])
    copies = tuple(s.clone() for s in next_states) if state_seqs else ()
    fresh = _unaliased((*next_states, *dummy, *outputs, *copies), flat)
    if _dynamo_compiling():
        # Dynamo's scan support wants a Python body to return (carry, ys).
        return list(fresh[:num_carry]), list(fresh[num_carry:])
    # The eager / autograd kernels trace the body and want flat outputs.
    return list(fresh)


def _run_scan(core_fn: CoreFn, num_outputs: int, args: ScanArgs) -> ScanResult:
    if _scan_op is None:
        raise RuntimeError("PyTorch scan HOP is unavailable in this environment")
    num_inputs, num_states = args.contract.num_inputs, args.contract.num_states
    state_seqs = not args.contract.final_state
    if args.contract.T == 0:
        return _t_zero(args, num_outputs, core_fn)
    init = list(args.contract.init_states)
    if not init:
        init = [args.contract.input_seqs[0].new_zeros(())]
    # functools.partial with a ``combine_fn`` keyword is the form Dynamo's
    # scan support accepts for a Python body.
    body = functools.partial(
        _scan_step,
        combine_fn=core_fn,
        num_inputs=num_inputs,
        num_carry=len(init),
        num_states=num_states,
        num_outputs=num_outputs,
        state_seqs=state_seqs,
    )
    result = _flatten(_scan_op(body, init, list(args.contract.input_seqs), args.contract.lifted_args))
    # carry (states) first, then the stacked per-step outputs (and state copies)
    return _ordered(result[len(init) :], result[:num_states], state_seqs)


def lowerable_scan(
    core_fn: CoreFn, num_inputs: int, num_states: int, num_outputs: int, *flat_args: torch.Tensor,
    output_template_specs: OutputTemplateSpecs | None = None, final_state: bool = False,
) -> ScanResult:
    """Run the scan through PyTorch's ``scan`` HOP (SpikingJelly's ``lowerable_scan``).

    Same calling convention and result as :func:`flexsn_hop.eager_scan`:
    ``flat_args`` = input sequences ``[T, *in_shape]``, initial states
    ``[*state_shape]``, lifted tensors; returns output sequences
    ``[T, *out_shape]`` then state sequences ``[T, *state_shape]`` (with
    ``final_state``: the final states ``[*state_shape]``, the scan's final
    carry). States are the scan carry, so ``core_fn`` must return each next
    state with the shape and dtype of its initial state. ``T == 0`` never
    enters the HOP: empty outputs come from ``output_template_specs``, state
    sequences are empty ``[0, *state_shape]`` tensors.

    Raises ``RuntimeError`` when the scan HOP is unavailable
    (:func:`lowerable_scan_available`), the ``ValueError`` / ``TypeError``
    of :func:`flexsn_hop.eager_scan` for bad arguments, and whatever the
    scan HOP raises for carries whose metadata changes between steps.
    """
    args = prepare_scan_args(core_fn, num_inputs, num_states, num_outputs, flat_args, output_template_specs, final_state)
    return _run_scan(args.loop_core(core_fn), num_outputs, args)


lowerable_scan_final_state: ScanFn = final_state_form(lowerable_scan, "lowerable_scan_final_state")


def _run_while_loop(core_fn: CoreFn, num_outputs: int, args: ScanArgs) -> ScanResult:
    if _while_loop_op is None:
        raise RuntimeError("PyTorch while_loop HOP is unavailable in this environment")
    num_inputs, num_states = args.contract.num_inputs, args.contract.num_states
    state_seqs = not args.contract.final_state
    T = args.contract.T
    if T == 0:
        return _t_zero(args, num_outputs, core_fn)

    # Step 0 runs outside the loop: it fixes the shapes and dtypes of the
    # carried output buffers and states (the loop needs fixed metadata).
    first = check_step_results(
        core_fn(*(x[0] for x in args.contract.input_seqs), *args.contract.init_states, *args.contract.lifted_args),
        num_outputs,
        num_states,
    )
    device = args.contract.input_seqs[0].device
    zero = torch.zeros(1, dtype=torch.int64, device=device)

    def buffer(value: torch.Tensor) -> torch.Tensor:
        buf = value.new_zeros((T, *value.shape))
        return buf.index_copy(0, zero, value.unsqueeze(0))

    first_states = tuple(s.clone() for s in first[num_outputs:])
    out_bufs = tuple(buffer(y) for y in first[:num_outputs])
    state_bufs = tuple(buffer(s) for s in first_states) if state_seqs else ()
    n_bufs = len(out_bufs) + len(state_bufs)

    # carried: (t, *states, *out_bufs, *state_bufs); additional: (*inputs, *lifted)
    def cond_fn(t: torch.Tensor, *rest: torch.Tensor) -> torch.Tensor:
        return t < T

    def body_fn(t: torch.Tensor, *rest: torch.Tensor) -> tuple[torch.Tensor, ...]:
        states = rest[:num_states]
        bufs = rest[num_states : num_states + n_bufs]
        seqs = rest[num_states + n_bufs : num_states + n_bufs + num_inputs]
        lifted = rest[num_states + n_bufs + num_inputs :]
        index = t.reshape(1)
        step_inputs = tuple(torch.index_select(x, 0, index).squeeze(0) for x in seqs)
        results = check_step_results(
            core_fn(*step_inputs, *states, *lifted), num_outputs, num_states
        )
        next_states = _unaliased(results[num_outputs:], (t, *rest))
        written = results[:num_outputs] + (next_states if state_seqs else ())
        new_bufs = tuple(
            buf.index_copy(0, index, value.unsqueeze(0)) for buf, value in zip(bufs, written)
        )
        return (t + 1, *next_states, *new_bufs)

    carried = (zero[0] + 1, *first_states, *out_bufs, *state_bufs)
    additional = (*args.contract.input_seqs, *args.contract.lifted_args)
    final = tuple(_while_loop_op(cond_fn, body_fn, carried, additional))
    # carried: (t, *states, *buffers)
    return _ordered(final[1 + num_states :], final[1 : 1 + num_states], state_seqs)


def lowerable_while_loop_scan(
    core_fn: CoreFn, num_inputs: int, num_states: int, num_outputs: int, *flat_args: torch.Tensor,
    output_template_specs: OutputTemplateSpecs | None = None, final_state: bool = False,
) -> ScanResult:
    """Run the scan through PyTorch's ``while_loop`` HOP (SpikingJelly's ``lowerable_while_loop_scan``).

    Same calling convention and result as :func:`flexsn_hop.eager_scan`:
    output sequences ``[T, *out_shape]`` then state sequences
    ``[T, *state_shape]`` (with ``final_state``: final states
    ``[*state_shape]``, and no state buffers are carried). Step 0 runs
    outside the loop to fix the shapes/dtypes of the carried
    ``[T, *shape]`` buffers; later steps must keep them. Meant for forward /
    ``no_grad`` use. ``T == 0`` never enters the loop: empty outputs from
    ``output_template_specs`` and empty state sequences.

    Raises ``RuntimeError`` when the while_loop HOP is unavailable
    (:func:`lowerable_while_loop_available`), the ``ValueError`` /
    ``TypeError`` of :func:`flexsn_hop.eager_scan` for bad arguments, and
    whatever the while_loop HOP raises for changing metadata.
    """
    args = prepare_scan_args(core_fn, num_inputs, num_states, num_outputs, flat_args, output_template_specs, final_state)
    return _run_while_loop(args.loop_core(core_fn), num_outputs, args)


lowerable_while_loop_scan_final_state: ScanFn = final_state_form(
    lowerable_while_loop_scan, "lowerable_while_loop_scan_final_state"
)
