"""``FlexSN``'s shape rules: example outputs, empty (``T == 0``) calls, and states that fit the inputs (or are assigned).

Per backend (SpikingJelly's ``FlexSN`` rules):

* ``"torch"`` / ``"hop"`` run whatever the core runs: inputs and states of
  any per-step shapes (e.g. a state ``[3]`` beside inputs ``[T, 0, 2]``).
  With ``T == 0`` the core does not run, so the output shapes and dtypes
  come from ``example_outputs`` or, without them, from one step of the
  core on fake tensors (SpikingJelly requires ``example_outputs`` there;
  :func:`empty_outputs`).
* ``"triton"`` / ``"inductor"`` (cores traced as elementwise) take per-step
  shapes that broadcast (``torch.broadcast_shapes``); the fused kernels
  run them on broadcast copies or fall back with a warning
  (:func:`flexsn_runtime.fit_shapes`). Their outputs have the broadcast
  shape, so at ``T == 0`` only the dtypes of ``example_outputs`` are used,
  and ``example_outputs`` must have the shape of the outputs on
  ``example_inputs``. Without them, a fake step gives what a call with
  steps returns (the eager loop's shapes where the kernels fall back).
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from flexsn_runtime.statics import readable_on
from flexsn_trace import OutputSpec, broadcast_shape, empty_sequences, layout_problem

__all__ = [
    "OutputSpec",
    "check_example_outputs",
    "check_state_shapes",
    "check_states_value",
    "empty_outputs",
    "shape_error",
    "shape_hint",
    "states_for_call",
]



def check_example_outputs(specs: Sequence[OutputSpec], example_inputs: Sequence[torch.Tensor] | None) -> None:
    """Check ``example_outputs`` against the fused kernels' rule: one shape, the per-step shape of ``example_inputs``.

    Raises:
        ValueError: an example output of another shape (the message names
            the expected one).
    """
    if not specs:
        return
    if example_inputs is not None:  # one per-step shape (the builders check it)
        expected, what = tuple(example_inputs[0].shape), "the per-step shape of example_inputs"
    else:
        expected, what = specs[0][0], "the shape of example_outputs[0]"
    for i, (shape, _) in enumerate(specs):
        if shape != expected:
            raise ValueError(
                f"example_outputs[{i}] has shape {shape}, expected {expected} ({what}): the fused kernels "
                "write every output in the inputs' per-step shape"
            )


def check_states_value(value: object, num_states: int) -> list[torch.Tensor | float | None]:
    """A value assigned to ``FlexSN.states``: ``None`` / ``[]``, or ``num_states`` entries, each a tensor or ``None``.

    Raises:
        TypeError: not a list / tuple, or an entry neither a tensor nor ``None``.
        ValueError: another number of entries.
    """
    if value is None:
        return []
    if isinstance(value, torch.Tensor) or not isinstance(value, (list, tuple)):
        raise TypeError(f"states must be a list of tensors (or None entries), got {type(value).__name__}")
    new = list(value)
    if new and len(new) != num_states:
        raise ValueError(f"states must hold num_states = {num_states} entries (or none), got {len(new)}")
    for j, s in enumerate(new):
        if s is not None and not isinstance(s, torch.Tensor):
            raise TypeError(f"states[{j}] must be a torch.Tensor or None, got {type(s).__name__}")
    return new


def states_for_call(values: Sequence[object], x0: torch.Tensor, step_shape: tuple[int, ...]) -> list[torch.Tensor]:
    """A call's initial states from a neuron's state values, checked against the call's first input ``x0``.

    A float fills a state of ``step_shape`` (``[*shape]``) in ``x0``'s dtype; a tensor is taken as it is.

    Raises:
        TypeError: a value that is neither a tensor nor a float; a sparse or nested tensor; a dtype other
            than ``x0``'s.
        ValueError: a state on another device than ``x0`` (a neuron moved without ``reset()``).
    """
    states: list[torch.Tensor] = []
    for j, s in enumerate(x0.new_full(step_shape, s) if type(s) is float else s for s in values):
        if not isinstance(s, torch.Tensor):
            raise TypeError(f"state {j} must be a torch.Tensor, got {type(s).__name__}")
        if (problem := layout_problem(s)) is not None:
            raise TypeError(f"state {j} {problem}")
        if s.device != x0.device:
            raise ValueError(f"state {j} is on {s.device} but the inputs are on {x0.device}; call reset() after moving")
        if s.dtype != x0.dtype:
            raise TypeError(
                f"state {j} has dtype {s.dtype} but the inputs have {x0.dtype}; states and inputs must share one dtype "
                "(a state left from calls in another dtype, e.g. before .double() or autocast: call reset() first)"
            )
        states.append(s)
    return states


def check_state_shapes(states: Sequence[torch.Tensor], step_shape: tuple[int, ...]) -> None:
    """The fused backends' check: every state broadcasts with the inputs' per-step shape.

    Raises:
        ValueError: a state that does not (typically left from inputs of
            another batch shape: the message says to call ``reset()``).
    """
    for j, s in enumerate(states):
        if tuple(s.shape) != step_shape and broadcast_shape([tuple(s.shape), step_shape]) is None:
            raise ValueError(
                f"state {j} has shape {tuple(s.shape)} but the inputs' per-step shape is {step_shape}; "
                "call reset() before feeding inputs of a new shape"
            )


def empty_outputs(
    who: str,
    seqs: Sequence[torch.Tensor],
    states: Sequence[torch.Tensor],
    specs: Sequence[OutputSpec] | None,
    num_outputs: int,
    fused: Sequence[torch.dtype] | None,
    fake_step: Callable[[], Sequence[OutputSpec]] | None = None,
) -> tuple[torch.Tensor, ...]:
    """The ``num_outputs`` output sequences ``[0, *shape]`` of a ``T == 0`` call (the core does not run).

    What a call with steps would return, without its steps: with ``specs``,
    their dtypes (and shapes, unless ``fused``); else the shapes and dtypes
    of one step of the core on fake tensors (``fake_step``), floating ones in
    the inputs' dtype as every backend stores them. That is also the fused
    kernels' answer: they run only steps whose results keep the broadcast
    shape, and a call they cannot take (a result of a static input's shape)
    runs the eager loop, whose shapes the fake step gives too.

    Args:
        who: the caller's name for messages (e.g. ``"FlexSN(backend='torch')"``).
        seqs: the call's empty input sequences ``[0, *shape]``.
        states: the initial states (their shapes join the broadcast when ``fused``).
        specs: ``example_outputs``' shapes and dtypes, or ``None``.
        fused: where the fused kernels' rule applies, the dtypes they store
            the outputs in (``FlexSNKernel.output_dtypes``: the inputs' for
            floating results), with the broadcast of the inputs and states
            as the shape: used with ``specs``' dtypes, or where there is no
            ``fake_step`` or it cannot run the core. ``None``: not a fused backend.
        fake_step: finds the shapes and dtypes by one step of the core on
            fake tensors (:func:`flexsn_trace.fake_step_outputs`;
            ``ValueError`` when it cannot). SpikingJelly's torch and hop
            backends ask for ``example_outputs`` instead.

    Returns:
        Tensors that stay in the autograd graph of ``seqs[0]`` (a backward
        through them gives zero gradients, not "does not require grad").

    Raises:
        ValueError: no ``example_outputs``, not ``fused``, and no
            ``fake_step`` or one that could not run the core (the message
            says why and asks for ``example_outputs``).
    """
    x0 = seqs[0]
    if specs is None and num_outputs == 0:
        return ()
    found: Sequence[OutputSpec] | None = None
    failed: ValueError | None = None  # why the fake step could not run: said when nothing else answers
    if specs is None and fake_step is not None:
        try:
            found = fake_step()
        except ValueError as exc:
            failed = exc
    if found is not None:
        # floating outputs stored in the inputs' dtype, as every backend stores a step's (flexsn_runtime.stored_in)
        specs = [(shape, x0.dtype if dt.is_floating_point else dt) for shape, dt in found]
    elif fused is not None:
        shape = broadcast_shape([*(tuple(x.shape[1:]) for x in seqs), *(tuple(s.shape) for s in states)])
        shape = tuple(x0.shape[1:]) if shape is None else shape
        specs = [(shape, dt) for dt in ([d for _, d in specs] if specs else fused)]
    elif specs is None:
        raise ValueError(
            f"{who}: a call with T = 0 requires example_outputs: the core does not run, so the shapes and "
            f"dtypes of its {num_outputs} output(s) are unknown; pass example_outputs=[...] (one per-step "
            "tensor per output) to FlexSN" + (f" ({failed})" if failed is not None else "")
        ) from failed
    return empty_sequences(x0, specs)


def shape_error(
    exc: RuntimeError, seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor],
    statics: Sequence[tuple[str, torch.Tensor]] = (),
) -> Exception:
    """The error to raise for a ``RuntimeError`` of the core: a ``ValueError`` naming the shapes that do not fit, else ``exc``.

    The ``torch`` / ``hop`` backends let any shapes through, and the kernel
    backends fall back to the eager loop for a static input that does not
    broadcast to the per-step shape or is on another device; a core that
    cannot take them fails in PyTorch ("The size of tensor a ...", "Expected
    all tensors to be on the same device") and this says what it got:
    per-step shapes that differ (a change of batch shape needs ``reset()``)
    and, by name, ``statics`` (``(name, tensor)`` pairs) on another device
    than the inputs (a 0-d CPU tensor is fine: PyTorch moves it) or that do
    not broadcast to the per-step shape. (A ``try`` around the call costs
    nothing until it raises.)
    """
    hint = shape_hint(seqs, states, statics)
    return exc if hint is None else ValueError(f"FlexSN: {hint}: {exc}")


def shape_hint(
    seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor], statics: Sequence[tuple[str, torch.Tensor]] = ()
) -> str | None:
    """For an error raised by the core: the shapes that do not fit (see :func:`shape_error`), else ``None``."""
    step = tuple(seqs[0].shape[1:])
    hints = []
    shapes = [tuple(x.shape[1:]) for x in seqs] + [tuple(s.shape) for s in states]
    if any(sh != step for sh in shapes):
        inputs = ", ".join(str(tuple(x.shape[1:])) for x in seqs)
        held = ", ".join(str(tuple(s.shape)) for s in states) or "none"
        hints.append(
            f"the core failed on inputs of per-step shapes {inputs} and states of shapes {held} "
            "(if the batch shape changed, call reset() before feeding inputs of a new shape)"
        )
    device = seqs[0].device
    statics = [(name, w) for name, w in statics if isinstance(w, torch.Tensor)]  # a buffer set to None: the core's error says it
    away = [f"{name!r} is on {w.device}" for name, w in statics if not readable_on(w, device)]
    if away:
        hints.append(
            f"the core failed with static input{'s' if len(away) > 1 else ''} on another device than the inputs ({device}): "
            f"{', '.join(away)} (move the module with .to({str(device)!r}) as you move its inputs)"
        )
    unfit = [f"{name!r} of shape {tuple(w.shape)}" for name, w in statics if broadcast_shape([tuple(w.shape), step]) != step]
    if unfit:
        hints.append(
            f"the core failed with static input{'s' if len(unfit) > 1 else ''} {', '.join(unfit)}, which "
            f"{'do' if len(unfit) > 1 else 'does'} not broadcast to the per-step shape {step} of the inputs "
            "(a per-channel parameter of [T, B, C, H, W] inputs has shape [C, 1, 1])"
        )
    return "; ".join(hints) or None
