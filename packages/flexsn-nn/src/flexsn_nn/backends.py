"""``FlexSN``'s backends and step modes: the valid values, and how each backend runs a call.

* ``"torch"``: the reference time loop (:func:`flexsn_trace.reference_scan`);
* ``"triton"`` / ``"inductor"``: two labels for the same fused Triton scan
  kernels of :class:`flexsn_runtime.FlexSNKernel`, whose route (fused
  inference, fused training or the eager loop with one warning) is
  :func:`flexsn_runtime.route`'s;
* ``"hop"``: the ``flex_sn_scan`` higher-order operator of ``flexsn_hop``
  (:func:`hop_scan_function` picks which of its entry points).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from flexsn_trace.env import env_flag

try:  # layer 4; optional at import time so the other backends work without it
    import flexsn_hop

    _HOP_IMPORTED = True
except ImportError:  # pragma: no cover - exercised only while flexsn_hop is absent
    _HOP_IMPORTED = False

__all__ = [
    "BACKENDS",
    "Checked",
    "ENV_LOWERABLE_SCAN",
    "ENV_LOWERABLE_WHILE_LOOP",
    "KERNEL_BACKENDS",
    "STEP_MODES",
    "check_backend",
    "check_step_mode",
    "hop_available",
    "hop_scan_function",
    "run_hop",
]

#: Valid ``backend`` values.
BACKENDS: tuple[str, ...] = ("torch", "triton", "inductor", "hop")
#: Backends that run :class:`flexsn_runtime.FlexSNKernel`.
KERNEL_BACKENDS: tuple[str, ...] = ("triton", "inductor")
#: Valid ``step_mode`` values: single step, multi step.
STEP_MODES: tuple[str, ...] = ("s", "m")
#: A true value (``flexsn_trace.env``'s rule): the ``hop`` backend runs no-grad calls through ``lowerable_scan``.
ENV_LOWERABLE_SCAN = "FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_SCAN"
#: A true value: the ``hop`` backend runs no-grad calls through ``lowerable_while_loop_scan``
#: (takes precedence over :data:`ENV_LOWERABLE_SCAN`).
ENV_LOWERABLE_WHILE_LOOP = "FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP"

ScanFunction = Callable[..., Any]


class Checked:
    """A settable string attribute, validated by ``check`` on every assignment (stored as ``_<name>``)."""

    def __init__(self, check: Callable[[object], str], doc: str) -> None:
        self.check, self.__doc__ = check, doc
        self.private = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.private = f"_{name}"

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj, self.private)

    def __set__(self, obj: object, value: object) -> None:
        object.__setattr__(obj, self.private, self.check(value))


def hop_available() -> bool:
    """Whether ``flexsn_hop`` (layer 4, needed by ``backend="hop"``) could be imported."""
    return _HOP_IMPORTED


def check_backend(backend: object) -> str:
    """Validate a ``backend`` value.

    Raises:
        ValueError: not one of :data:`BACKENDS` (the message lists them).
        ImportError: ``"hop"`` without ``flexsn_hop``.
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if backend == "hop" and not _HOP_IMPORTED:
        raise ImportError("backend='hop' needs the flexsn_hop package (layer 4), which could not be imported")
    return backend


def check_bool(name: str, value: object) -> bool:
    """A Python bool (``detach_reset``, ``decay_input``, ``store_state_seqs``), or the int 0 / 1; anything else (a
    string, a tensor) is refused rather than truth-tested (``bool("False")`` is ``True``).

    Raises:
        TypeError: any other value, named.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} must be a Python bool, got {type(value).__name__} {value!r}")


def check_step_mode(step_mode: object) -> str:
    """Validate a ``step_mode`` value (SpikingJelly's ``"s"`` / ``"m"``).

    Raises:
        ValueError: not one of :data:`STEP_MODES`.
    """
    if not isinstance(step_mode, str) or step_mode not in STEP_MODES:
        raise ValueError(f"step_mode must be one of {list(STEP_MODES)} ('s': single step, 'm': multi step), got {step_mode!r}")
    return step_mode


def _scan_final_state(*args: Any, **kwargs: Any) -> tuple[torch.Tensor, ...]:
    """``flex_sn_scan(..., final_state=True)``: ``(*output_seqs, *final_states)``.

    Looked up on ``flexsn_hop`` at call time (tests substitute it).
    """
    return tuple(flexsn_hop.flex_sn_scan(*args, final_state=True, **kwargs))


def hop_scan_function(store_state_seqs: bool, needs_grad: bool) -> tuple[ScanFunction, bool]:
    """The ``flexsn_hop`` entry point for one call, and whether it takes ``zero_init_states``.

    * No gradient needed and ``FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP``
      / ``..._LOWERABLE_SCAN`` set (read now): ``lowerable_while_loop_scan`` /
      ``lowerable_scan`` (their ``_final_state`` forms without state sequences);
    * state sequences: ``flex_sn_scan``;
    * final states under ``torch.compile``: ``flex_sn_scan(..., final_state=True)``,
      ONE graph node (``eager_scan_final_state`` is a Python loop that Dynamo
      would unroll into ``T`` copies of the step);
    * final states eagerly: ``eager_scan_final_state``.

    Raises:
        ImportError: ``flexsn_hop`` could not be imported.
    """
    if not _HOP_IMPORTED:  # pragma: no cover - check_backend refuses this
        raise ImportError("backend='hop' needs the flexsn_hop package (layer 4)")
    hop = flexsn_hop
    if not needs_grad:
        if env_flag(ENV_LOWERABLE_WHILE_LOOP) and hop.lowerable_while_loop_available():
            return (hop.lowerable_while_loop_scan if store_state_seqs else hop.lowerable_while_loop_scan_final_state), False
        if env_flag(ENV_LOWERABLE_SCAN) and hop.lowerable_scan_available():
            return (hop.lowerable_scan if store_state_seqs else hop.lowerable_scan_final_state), False
    if store_state_seqs:
        return hop.flex_sn_scan, True
    if torch.compiler.is_compiling():
        return _scan_final_state, True
    return hop.eager_scan_final_state, False


def run_hop(
    core: Callable[..., Any],
    counts: tuple[int, int, int],
    seqs: Sequence[torch.Tensor],
    init: Sequence[torch.Tensor],
    statics: Sequence[torch.Tensor],
    store_state_seqs: bool,
    output_specs: Sequence[tuple[tuple[int, ...], torch.dtype]] | None,
    resolve_states: Callable[[], Sequence[torch.Tensor]],
) -> tuple[torch.Tensor, ...]:
    """Run one multi-step call of ``FlexSN(backend="hop")`` through the entry point :func:`hop_scan_function` picks.

    Args:
        core: the step function ``(*inputs, *states, *statics)``.
        counts: ``(num_inputs, num_states, num_outputs)``.
        seqs: the input sequences ``[T, *shape]``.
        init: the initial states, or ``[]`` (with ``num_states > 0``) for
            fresh zero states: ``flex_sn_scan`` creates them inside the fused
            op (``zero_init_states=True``); other entry points get
            ``resolve_states()``.
        statics: the static inputs, passed as ``flex_sn_scan``'s lifted tensors.
        store_state_seqs: return state sequences (else final states).
        output_specs: ``example_outputs``' shapes and dtypes (the templates of
            ``T == 0`` outputs), or ``None``.

    Returns:
        ``(*output_seqs, *state_seqs_or_final_states)``.
    """
    ni, ns, no = counts
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in [*seqs, *init, *statics])
    fn, takes_zero_init = hop_scan_function(store_state_seqs, needs_grad)
    x0 = seqs[0]
    kwargs: dict[str, Any] = {}
    if len(init) != ns:
        if takes_zero_init:
            kwargs["zero_init_states"] = True  # flex_sn_scan creates the zeros (inside the fused op)
        else:
            init = resolve_states()
    # The templates serve T == 0 only, which FlexSN answers before it gets here; without
    # example_outputs the op takes them from its traced step. Built from the inputs' shapes
    # they were SymInts once Dynamo recompiled with dynamic shapes (a second batch size),
    # and flex_sn_scan refuses templates that are not constants.
    specs = None if output_specs is None else tuple((shape, dt, x0.device) for shape, dt in output_specs)
    return tuple(fn(core, ni, ns, no, *seqs, *init, *statics, output_template_specs=specs, **kwargs))
