"""The scan contract: what one multi-step call of a core is, checked once.

A *scan* runs a single-step core ``core(*step_inputs, *states, *lifted) ->
(*step_outputs, *new_states)`` over ``num_inputs`` input sequences
``[T, *shape]`` from ``num_states`` initial states ``[*shape]``; it returns
the output sequences ``[T, *shape]`` and either the state sequences
``[T, *shape]`` or, with ``final_state``, the final states ``[*shape]``.
``lifted`` tensors (closure tensors Dynamo lifts) are passed unchanged to
every step.

Every layer describes a call with :class:`ScanContract`, built by
:func:`check_scan_args` (the one validation that raises the clear errors)
and normalises what a core returns with :func:`as_tensor_tuple`; the time loop
over a contract is :func:`flexsn_trace.reference_scan`. The semantics are those
of SpikingJelly's ``FlexSN`` multi-step mode (``spikingjelly.activation_based``).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import torch

__all__ = [
    "ScanContract",
    "as_tensor_tuple",
    "broadcast_shape",
    "check_counts",
    "check_scan_args",
    "check_tensor_list",
    "layout_problem",
]


def check_counts(
    num_inputs: object, num_states: object, num_outputs: object, who: str = "FlexSN", need_result: bool = False
) -> tuple[int, int, int]:
    """Check a core's arity: three ints, ``num_inputs >= 1``, none negative.

    Args:
        need_result: also require ``num_outputs + num_states >= 1`` (a
            kernel needs something to write).

    Raises:
        TypeError: a count that is not an ``int`` (``bool`` included).
        ValueError: a negative count, ``num_inputs == 0``, or with
            ``need_result`` a core that returns nothing.
    """
    values = []
    for name, value in (("num_inputs", num_inputs), ("num_states", num_states), ("num_outputs", num_outputs)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__}")
        least = 1 if name == "num_inputs" else 0  # a scan needs a sequence to take T from
        if value < least:
            raise ValueError(f"{who}: {name} must be >= {least}, got {value}" + (" (at least one input sequence)" if least else ""))
        values.append(value)
    if need_result and values[1] + values[2] < 1:
        raise ValueError(f"{who}: the core must return at least one output or state (num_outputs + num_states >= 1)")
    return values[0], values[1], values[2]


def check_tensor_list(values: Any, name: str, count: int, count_message: str) -> tuple[torch.Tensor, ...]:
    """``values`` (any sequence) as a tuple of exactly ``count`` tensors.

    Raises:
        ValueError: another length: ``f"{count_message}, got {len(values)}"``.
        TypeError: an entry that is not a tensor (``name[i]`` named).
    """
    items = tuple(values)
    if len(items) != count:
        raise ValueError(f"{count_message}, got {len(items)}")
    for i, t in enumerate(items):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}[{i}] must be a torch.Tensor, got {type(t).__name__}")
    return items


def as_tensor_tuple(
    result: Any, what: str = "the core", expected: int | None = None, error: type[Exception] = ValueError
) -> tuple[torch.Tensor, ...]:
    """Normalise what a core returns to a tuple of tensors (a lone tensor is a 1-tuple).

    Args:
        result: a ``torch.Tensor`` or a list/tuple of tensors.
        what: how to name the callable in messages.
        expected: the number of values it must return
            (``num_outputs + num_states``), or ``None`` for any number.
        error: the exception type for a value that is not a tensor
            (``ValueError`` while tracing, the default; the time loops
            raise ``TypeError``).

    Raises:
        ``error``: ``result`` is not a tensor nor a list/tuple of tensors.
        ValueError: it holds a number of values other than ``expected``.
    """
    if isinstance(result, torch.Tensor):
        values: tuple[Any, ...] = (result,)
    elif isinstance(result, (list, tuple)):
        values = tuple(result)
    else:
        raise error(f"{what} must return a tensor or a list/tuple of tensors, got {type(result).__name__}")
    if not all(isinstance(r, torch.Tensor) for r in values):
        kinds = [type(r).__name__ for r in values]
        raise error(f"{what} must return a tensor or a list/tuple of tensors, got {type(result).__name__} containing {kinds}")
    if expected is not None and len(values) != expected:
        raise ValueError(f"{what} returned {len(values)} values, expected num_outputs + num_states = {expected}")
    return values


class ScanContract(NamedTuple):
    """One validated scan call.

    Attributes:
        num_inputs, num_states, num_outputs: the core's arity.
        input_seqs: ``num_inputs`` tensors ``[T, *shape]`` sharing ``T``.
        init_states: ``num_states`` tensors, or ``()`` for zero initial
            states of input 0's per-step shape, dtype and device.
        lifted_args: tensors passed unchanged to every step.
        final_state: return final states ``[*shape]`` instead of state
            sequences ``[T, *shape]``.
        uniform: every input sequence and state shares one per-step shape,
            dtype and device (what the fused kernels need); checked when the
            contract was built with ``uniform=True``, and ``False`` when the
            ``shapes`` rule let different per-step shapes through.
    """

    num_inputs: int
    num_states: int
    num_outputs: int
    input_seqs: tuple[torch.Tensor, ...]
    init_states: tuple[torch.Tensor, ...]
    lifted_args: tuple[torch.Tensor, ...] = ()
    final_state: bool = False
    uniform: bool = False

    @property
    def T(self) -> int:
        """Number of time steps: an ``int``, or a ``SymInt`` while ``torch.compile`` traces with a dynamic ``T``.

        Not ``int()``-converted: that would make Dynamo guard on the traced ``T`` and compile again for every
        other sequence length, where ``dynamic=True`` (or a second ``T``) asks for one graph.
        """
        return self.input_seqs[0].shape[0]

    @property
    def step_shape(self) -> tuple[int, ...]:
        """Input 0's per-step shape ``[*shape]``."""
        return tuple(self.input_seqs[0].shape[1:])

    @property
    def zero_init_states(self) -> bool:
        """No initial states were given: they start as zeros."""
        return self.num_states > 0 and len(self.init_states) == 0  # len(): Dynamo traces it, not `not tuple`

    @property
    def flat_args(self) -> tuple[torch.Tensor, ...]:
        """``(*input_seqs, *init_states, *lifted_args)``."""
        return (*self.input_seqs, *self.init_states, *self.lifted_args)

    def needs_grad(self) -> bool:
        """Autograd must flow: grad mode is on and a tensor of the call requires grad.

        Asked on every fused call: it walks the three groups without building :attr:`flat_args`.
        """
        if not torch.is_grad_enabled():
            return False
        return any(t.requires_grad for group in (self.input_seqs, self.init_states, self.lifted_args) for t in group)

    def states0(self) -> tuple[torch.Tensor, ...]:
        """The initial states: ``init_states``, or zeros ``[*shape]`` like input 0."""
        if self.zero_init_states:
            x = self.input_seqs[0]
            return tuple(x.new_zeros(x.shape[1:]) for _ in range(self.num_states))
        return self.init_states


def layout_problem(t: torch.Tensor) -> str | None:
    """Why the neurons cannot take ``t``'s layout (sparse, nested), as the end of a sentence; ``None`` for a dense tensor.

    ``t``: any tensor a neuron is handed (a sequence ``[T, *shape]``, a state, a static input). The kernels and the
    eager loop index steps and neurons of a dense (``torch.strided``) tensor.
    """
    if t.is_nested:
        return "is a nested tensor; FlexSN takes dense tensors only (torch.nested.to_padded_tensor, or one call per sequence)"
    if t.layout is not torch.strided:
        return f"has layout {t.layout}; FlexSN takes dense (torch.strided) tensors only: call .to_dense() first"
    return None


def check_scan_args(
    num_inputs: int,
    num_states: int,
    num_outputs: int,
    args: Sequence[Any],
    *,
    who: str = "FlexSN",
    states: str = "optional",
    lifted: bool = False,
    uniform: bool = False,
    shapes: str = "same",
    floating: bool = False,
    final_state: bool = False,
) -> ScanContract:
    """Check ``(*input_seqs, *init_states, *lifted)`` of one call and describe it.

    The one argument check of every layer. The arity is assumed checked
    (:func:`check_counts`).

    Args:
        num_inputs, num_states, num_outputs: the core's arity.
        args: the call's tensors.
        who: the name that starts every message.
        states: ``"required"`` (``num_states`` initial states follow the
            inputs), ``"optional"`` (they may be omitted: zeros) or
            ``"none"`` (none are passed: zeros).
        lifted: tensors past the states are lifted arguments (else the
            count must match exactly).
        uniform: inputs and states must share one dtype and device, and
            their per-step shapes follow ``shapes`` (the fused kernels' rule).
        shapes: with ``uniform``, ``"same"``: one per-step shape;
            ``"broadcast"``: per-step shapes that broadcast together
            (``torch.broadcast_shapes``); ``"any"``: not checked (the core
            decides, as on SpikingJelly's torch backend). The contract's
            ``uniform`` records whether they are all the same.
        floating: inputs must be floating point.
        final_state: recorded in the contract.

    Raises:
        TypeError: a non-tensor argument, a sparse or nested one; with ``floating`` a non-floating
            input; with ``uniform`` tensors of different dtypes.
        ValueError: the wrong number of tensors, a 0-d input sequence,
            sequences with different ``T``, an unknown ``shapes`` rule; with
            ``uniform`` tensors on different devices, and per-step shapes
            that break the ``shapes`` rule.
    """
    n = len(args)
    if n == 1 == num_inputs and (states != "required" or num_states == 0):
        # one sequence and no states: nothing to compare it with (the common call, kept cheap)
        x = args[0]
        if (
            isinstance(x, torch.Tensor) and x.layout is torch.strided and not x.is_nested and x.dim() >= 1
            and (x.is_floating_point() or not floating)
        ):
            return ScanContract(num_inputs, num_states, num_outputs, (x,), (), (), final_state, uniform)
    need = num_inputs + (0 if states == "none" else num_states)
    exact_ok = n == need or (states == "optional" and n == num_inputs)
    if lifted and n < need:
        raise ValueError(
            f"{who}: expected at least {need} tensor args (num_inputs={num_inputs}"
            + (f" + num_states={num_states}" if states != "none" else "; no initial states")
            + f", then any lifted tensors), got {n}"
        )
    if not lifted and not exact_ok:
        what = f"{num_inputs} input sequence(s)"
        if states != "none" and num_states:
            what += f" followed by {num_states} initial state(s)"
        hint = (
            f" (num_inputs={num_inputs} input sequences optionally followed by num_states={num_states} initial "
            "states; omitted states are zeros)"
            if states == "optional" and num_states
            else ""
        )
        raise ValueError(f"{who}: expected {what}, got {n} argument(s){hint}")
    for i, a in enumerate(args):
        role = "input sequence" if i < num_inputs else "initial state" if i < need else "lifted tensor"
        what = f"flat_args[{i}]" if lifted else f"argument {i} ({role})"
        if not isinstance(a, torch.Tensor):
            raise TypeError(f"{who}: {what} must be a torch.Tensor, got {type(a).__name__}")
        problem = layout_problem(a)
        if problem is not None:
            raise TypeError(f"{who}: {what} {problem}")
    seqs = tuple(args[:num_inputs])
    n_states = 0 if states == "none" or (not lifted and n == num_inputs) else num_states
    init = tuple(args[num_inputs : num_inputs + n_states])
    x0 = seqs[0]
    for i, x in enumerate(seqs):
        if x.dim() == 0:
            raise ValueError(f"{who}: input {i} must be a sequence [T, *shape], got a 0-dim tensor")
        if x.shape[0] != x0.shape[0]:
            raise ValueError(
                f"{who}: all input sequences must share the time dimension T={x0.shape[0]}; input {i} has shape "
                f"{tuple(x.shape)} (input {i} has leading dim {x.shape[0]}, expected T={x0.shape[0]})"
            )
        if floating and not x.is_floating_point():
            raise TypeError(f"{who}: input {i} has dtype {x.dtype}; inputs must be floating-point")
    same = True
    if uniform:
        same = _check_uniform(who, seqs, init, shapes)
    return ScanContract(num_inputs, num_states, num_outputs, seqs, init, tuple(args[num_inputs + n_states :]), final_state, same)


def _check_uniform(who: str, seqs: tuple[torch.Tensor, ...], init: tuple[torch.Tensor, ...], shapes: str) -> bool:
    """Check one dtype and device and the ``shapes`` rule; return whether all per-step shapes are equal."""
    if shapes not in ("same", "broadcast", "any"):
        raise ValueError(f"{who}: shapes must be 'same', 'broadcast' or 'any', got {shapes!r}")
    x0 = seqs[0]
    step = x0.shape[1:]
    same = all(x.shape[1:] == step for x in seqs) and all(s.shape == step for s in init)
    if not same and shapes != "any":
        _check_shapes(who, seqs, init, shapes == "broadcast")
    tensors = (*seqs, *init)
    devices = {t.device for t in tensors}
    if len(devices) > 1:
        raise ValueError(f"{who}: all inputs and states must be on one device, got {sorted(str(d) for d in devices)}")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise TypeError(f"{who}: all inputs and states must share one dtype, got {sorted(str(d) for d in dtypes)}")
    return same


def _check_shapes(who: str, seqs: tuple[torch.Tensor, ...], init: tuple[torch.Tensor, ...], broadcast: bool) -> None:
    """Raise for the first input or state whose per-step shape is not input 0's (or, with ``broadcast``, does not broadcast)."""
    x0 = seqs[0]
    step = tuple(x0.shape[1:])
    common: tuple[int, ...] = step
    rule = "" if not broadcast else " (or one that broadcasts with it)"
    for i, x in enumerate(seqs):
        fits, common = _fits(common, tuple(x.shape[1:]), broadcast)
        if not fits:
            raise ValueError(
                f"{who}: all input sequences must share the per-step shape {step}{rule}; input {i} has shape {tuple(x.shape)}"
            )
    for j, s in enumerate(init):
        fits, common = _fits(common, tuple(s.shape), broadcast)
        if not fits:
            raise ValueError(
                f"{who}: initial state {j} must have the per-step shape {common}{rule} (inputs are {tuple(x0.shape)}), "
                f"got {tuple(s.shape)}"
            )


def _fits(common: tuple[int, ...], shape: tuple[int, ...], broadcast: bool) -> tuple[bool, tuple[int, ...]]:
    if shape == common:
        return True, common
    joined = broadcast_shape([common, shape]) if broadcast else None
    return (False, common) if joined is None else (True, joined)


def broadcast_shape(shapes: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
    """The shape ``shapes`` broadcast to (``torch.broadcast_shapes``' rule), or ``None`` when they do not broadcast.

    Plain comparisons rather than a call of ``torch.broadcast_shapes``: under
    ``torch.compile`` with dynamic shapes the sizes are symbolic, and that call,
    run on them while Dynamo traces, fails inside Dynamo (a ``TorchRuntimeError``
    about broadcasting) instead of returning ``None`` for our own error message.
    """
    out: list[Any] = []
    for shape in shapes:
        dims = list(shape)
        if len(dims) > len(out):
            out = [1] * (len(dims) - len(out)) + out
        for i in range(1, len(dims) + 1):
            here, there = out[-i], dims[-i]
            if there == 1 or here == there:
                continue
            if here != 1:
                return None
            out[-i] = there
    return tuple(out)
