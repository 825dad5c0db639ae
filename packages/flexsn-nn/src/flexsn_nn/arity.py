"""How many inputs, states and outputs a :class:`~flexsn_nn.module.FlexSN` core has: given, or found.

Two constructor forms give them:

* ``FlexSN(core, num_inputs, num_states, num_outputs)``: SpikingJelly's ``FlexSN``
  of its Triton kernels (``spikingjelly.activation_based.triton_kernel.flexsn``);
* ``FlexSN(core, num_states=k, static_inputs=(...))``: SpikingJelly 2.0's
  ``neuron.FlexSN(core, num_states, static_inputs)``, which finds ``num_inputs``
  from the core's signature (its positional parameters less the states and
  static inputs) and ``num_outputs`` from one call of the core on unit tensors.

In SpikingJelly 2.0's form ``num_states`` is the second positional argument; here it is the third,
so a bare ``FlexSN(core, 1)`` is refused rather than read as ``num_inputs=1`` (:func:`resolve_counts`).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence

import torch

from flexsn_trace import check_counts, private_generators

__all__ = ["check_requires_grad", "resolve_counts"]

_FORMS = (
    "FlexSN takes FlexSN(core, num_inputs, num_states, num_outputs, ...) or SpikingJelly 2.0's form with "
    "num_states by keyword, FlexSN(core, num_states=k, static_inputs=(...)), which finds num_inputs from the "
    "core's signature and num_outputs from one call"
)


def _required_positionals(core: Callable[..., Any]) -> int:
    """The core's positional parameters without a default (a default-bound tensor is a captured value, lifted)."""
    try:
        params = inspect.signature(core).parameters.values()
    except (TypeError, ValueError) as e:
        raise TypeError(f"FlexSN: num_inputs cannot be found from the signature of {core!r} ({e}): pass num_inputs") from None
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        raise TypeError("FlexSN: num_inputs cannot be found from a core that takes *args: pass num_inputs")
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional and p.default is inspect.Parameter.empty for p in params)


def _statics_of(static_inputs: object) -> list[Any]:
    if static_inputs is None:
        return []
    if isinstance(static_inputs, Mapping):
        return list(static_inputs.values())
    if isinstance(static_inputs, (list, tuple)):
        return list(static_inputs)
    return []  # register_static_inputs names the wrong type


def _probe_outputs(
    core: Callable[..., Any], num_inputs: int, num_states: int, statics: list[Any], examples: Sequence[torch.Tensor] | None
) -> int:
    """``num_outputs`` from one call of the core on ``examples`` (the per-step example inputs and states, when
    given and as many) or on ``[1]`` zeros (float32, on the static inputs' device)."""
    if examples is not None and len(examples) == num_inputs + num_states and all(isinstance(t, torch.Tensor) for t in examples):
        units = [list(examples)]
    else:
        device = next((t.device for t in statics if isinstance(t, torch.Tensor)), torch.device("cpu"))
        # a core that captures CUDA tensors fails on CPU zeros: then on CUDA ones
        devices = [device, *([torch.device("cuda")] if device.type == "cpu" and torch.cuda.is_available() else [])]
        units = [[torch.zeros(1, device=d) for _ in range(num_inputs + num_states)] for d in devices]
    for k, unit in enumerate(units):
        try:
            with torch.no_grad(), private_generators():  # a core that draws leaves the caller's generators alone
                result = core(*unit, *statics)
            break
        except Exception as e:  # the user's code: any error means "cannot tell"
            if k == len(units) - 1:
                raise TypeError(
                    f"FlexSN: num_outputs could not be found by calling the core once on its example inputs or "
                    f"[1]-shaped zeros ({type(e).__name__}: {e}): pass num_outputs"
                ) from e
    n = 1 if isinstance(result, torch.Tensor) else len(result) if isinstance(result, (tuple, list)) else -1
    if n < num_states:
        raise ValueError(
            f"FlexSN: the core returned {'a ' + type(result).__name__ if n < 0 else f'{n} values'} on unit tensors; "
            f"expected (*outputs, *{num_states} new states)"
        )
    return n - num_states


def resolve_counts(
    core: Callable[..., Any], num_inputs: object, num_states: object, num_outputs: object,
    static_inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None,
    example_inputs: Sequence[torch.Tensor] | None = None,
) -> tuple[int, int, int]:
    """``(num_inputs, num_states, num_outputs)``, each as given or, when ``None``, found (module docstring);
    ``example_inputs`` (FlexSN's, when given) are what the core is called on to count its outputs.

    Raises:
        TypeError: ``num_states`` missing (``FlexSN(core, 1)``), or a sequence of tensors in its place
            (SpikingJelly 2.0's positional ``static_inputs``); a count that cannot be found (a core taking
            ``*args``, or failing on unit tensors), naming the argument to pass; non-int counts.
        ValueError: bad counts (:func:`flexsn_trace.check_counts`), a core whose signature leaves no input.
    """
    if num_states is None:
        raise TypeError(f"FlexSN: num_states is missing: {_FORMS}")
    if isinstance(num_states, (tuple, list)):
        raise TypeError(f"FlexSN: num_states is a {type(num_states).__name__}: {_FORMS} (static_inputs by keyword)")
    statics = _statics_of(static_inputs)
    if num_inputs is None:
        _, ns, _ = check_counts(1, num_states, 0)  # num_states' own checks first
        num_inputs = _required_positionals(core) - ns - len(statics)
        if num_inputs < 1:
            raise ValueError(
                f"FlexSN: the core's signature leaves {num_inputs} inputs besides {num_states} states and {len(statics)} "
                "static inputs: core(*inputs, *states, *static_inputs) takes at least one input"
            )
    if num_outputs is None:
        ni, ns, _ = check_counts(num_inputs, num_states, 0)
        num_outputs = _probe_outputs(core, ni, ns, statics, example_inputs)
    return check_counts(num_inputs, num_states, num_outputs, need_result=True)


def check_requires_grad(flags: Sequence[bool] | None, num_inputs: int, num_states: int) -> tuple[bool, ...] | None:
    """One flag per input and state, as bools, or ``None``.

    Raises:
        ValueError: another number of flags.
    """
    if flags is None:
        return None
    out = tuple(bool(r) for r in flags)
    if len(out) != num_inputs + num_states:
        raise ValueError(
            f"requires_grad must hold num_inputs + num_states = {num_inputs + num_states} flags "
            f"(requires_grad must have the same length as the inputs and states), got {len(out)}"
        )
    return out
