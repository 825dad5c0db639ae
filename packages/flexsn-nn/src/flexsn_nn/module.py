"""``FlexSN``: a spiking neuron defined by its single-step core, as an ``nn.Module``.

The user writes ONE time step of a neuron as plain PyTorch::

    def core(*step_inputs, *states) -> (*step_outputs, *new_states)

and :class:`FlexSN` runs it over ``[T, *shape]`` input sequences, keeps the
neuron's states between calls (until :meth:`FlexSN.reset`), and picks how the
time loop runs (``backend``):

* ``"torch"``: the eager Python loop (``flexsn_runtime.eager_loop``), the
  reference semantics;
* ``"triton"`` / ``"inductor"``: two labels for the same fused Triton scan
  kernels of :class:`flexsn_runtime.FlexSNKernel` (one inference kernel, or
  a forward and a reverse-time BPTT kernel), reached through the
  ``flexsn::*`` custom ops that stay single opaque nodes under
  ``torch.compile``; unsupported cores / devices fall back to the eager loop
  with one warning;
* ``"hop"``: the ``flex_sn_scan`` higher-order operator of ``flexsn_hop`` (its final-state form with
  ``store_state_seqs=False``; fresh zero states are made inside the op, so compiled graphs carry no zero
  fill). ``FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP=1`` / ``..._SCAN=1`` switch calls that need no
  gradient to the lowerable scans (SpikingJelly's ``SJ_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP``; training stays unrolled).

On the kernel backends a call whose signature (shapes, dtypes, devices,
``requires_grad``, grad mode) ran fused before skips the checks and the
routing (:mod:`flexsn_runtime.call_cache`): host time per call is then
little more than the launch.

The module follows SpikingJelly's ``activation_based`` conventions (``step_mode`` ``"s"`` / ``"m"``,
``reset()``, ``store_v_seq``-style state sequences) and its ``FlexSN`` module, ``backend="hop"`` included.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence, cast

import torch
from torch import nn

from flexsn_runtime import FlexSNKernel, eager_loop, stored_in
from flexsn_trace import ScanContract, as_tensor_tuple, check_scan_args, check_tensor_list

from .arity import check_requires_grad, resolve_counts
from .backends import KERNEL_BACKENDS, Checked, check_backend, check_bool, check_step_mode, run_hop
from .empty_calls import empty_call_outputs
from .graph_capture import note_capture, note_detach
from .persistence import KeepsNoStates
from .replay import in_backward, note_reset, replayed
from .shapes import (
    OutputSpec, check_example_outputs, check_state_shapes, check_states_value, shape_error, states_for_call,
)
from .static_inputs import register_static_inputs
from .step_module import StepModule

__all__ = ["FlexSN"]

Core = Callable[..., Any]
TensorList = list[torch.Tensor]
_compiling = torch.compiler.is_compiling


class FlexSN(KeepsNoStates, StepModule, nn.Module):
    """A spiking neuron given by its single-step ``core``, run by fused scan kernels.

    ``core(*step_inputs, *states) -> (*step_outputs, *new_states)`` is one
    time step: ``num_inputs`` input tensors and ``num_states`` state tensors
    in, ``num_outputs`` outputs and ``num_states`` updated states out (a
    lone tensor counts as a 1-tuple). For the Triton backends it must be
    elementwise and use ops the lowering table supports, e.g. a surrogate
    spike from :mod:`flexsn_nn.surrogate`.

    Shapes (:mod:`flexsn_nn.shapes`): the ``torch`` and ``hop`` backends run
    whatever per-step shapes the core runs; the Triton backends take
    per-step shapes that broadcast (e.g. a per-channel ``[C]`` input beside
    ``[N, C]``), run fused on broadcast copies when every output and state
    keeps the broadcast shape, and run the eager loop with one warning
    otherwise.

    Calling the module, ``m(*inputs)``:

    * ``step_mode="m"`` (multi step): ``inputs`` are ``num_inputs`` sequences
      ``[T, *shape]`` sharing ``T``; returns the output sequences
      ``[T, *shape]``.
    * ``step_mode="s"`` (single step): ``inputs`` are ``num_inputs`` tensors
      ``[*shape]``; the core runs once (directly, whatever the backend) and
      returns the step outputs ``[*shape]``.

    SpikingJelly's ``single_step_forward(*x)`` / ``multi_step_forward(*x_seq)`` make one call in that mode.
    One output is returned as a tensor, several as a tuple (``()`` when
    ``num_outputs == 0``). All inputs and states must share one
    floating-point dtype and one device; the generated kernels take float32,
    float16 and bfloat16 (other floating dtypes, e.g. float64, run the eager
    loop with one warning). Units are whatever the core uses (membrane
    potentials in threshold units for the ready-made neurons).

    States: :attr:`states` holds the ``num_states`` current states
    ``[*shape]``; they persist across calls until :meth:`reset`. An empty
    list or ``None`` entries mean "initialize from :meth:`init_states`"
    (zeros by default). With ``store_state_seqs=True``, :attr:`state_seqs`
    holds the last call's state sequences ``[T, *shape]`` (``[1, *shape]``
    in single-step mode); otherwise it is ``None`` and the final-state fast
    path (``FlexSNKernel.final_state`` / ``eager_scan_final_state``,
    compiled ``flex_sn_scan(..., final_state=True)``) avoids writing state
    sequences at all. States keep their autograd history, so
    call :meth:`reset` (or :func:`flexsn_nn.functional.reset_net`) between
    independent batches, as in SpikingJelly. A call that activation
    checkpointing recomputes inside the backward pass starts from the states
    the original call started from (:mod:`flexsn_nn.replay`).

    ``T == 0``: the core is not run; outputs are empty ``[0, *shape]``
    tensors, and the states stay as they were (initialized if they were
    empty). ``shape`` and dtype are those of a call with steps, from one step on fake tensors
    (:func:`flexsn_trace.fake_step_outputs`), or ``example_outputs``' (on the Triton backends their
    dtype, with the broadcast per-step shape); a core that cannot run so on the ``torch`` / ``hop`` backends needs them,
    and so does a core that changes state outside its arguments where the kernels' rule is not exact: it is never run
    on fake tensors (:mod:`flexsn_nn.empty_calls`).

    Every call is validated before anything runs, and nothing is updated when
    a call raises: :attr:`states` and :attr:`state_seqs` are then exactly what
    they were before.

    Args:
        core: the step function (any callable; a module's bound method or a
            callable object works too).
        num_inputs: number of input tensors per step, >= 1.
        num_states: number of state tensors, >= 0 (required; by keyword in
            SpikingJelly 2.0's form ``FlexSN(core, num_states=k, static_inputs=...)``).
        num_outputs: number of output tensors per step, >= 0
            (``num_outputs + num_states >= 1``). ``num_inputs`` / ``num_outputs``
            left out are found as SpikingJelly 2.0's ``FlexSN`` finds them: from
            the core's positional parameters without defaults, and from one call
            of the core on ``[1]`` zeros (:mod:`flexsn_nn.arity`).
        example_inputs: ``num_inputs + num_states`` per-step example tensors
            used to trace ``core`` for the kernels (default ``[4]`` float32 CPU
            tensors); passed to :class:`~flexsn_runtime.FlexSNKernel`.
        requires_grad: one flag per input and state: which ones the training
            kernels differentiate (default: all floating-point ones); passed
            to :class:`~flexsn_runtime.FlexSNKernel`. An input flagged
            ``False`` gets no gradient from the training kernels (a call whose
            input requires grad anyway runs the eager loop, with one warning,
            so its gradient is right); states always carry gradients through
            time (a state's flag only decides whether its initial value gets one).
        step_mode: ``"m"`` (default) or ``"s"``.
        backend: ``"triton"`` (default), ``"inductor"``, ``"torch"`` or ``"hop"``.
        store_state_seqs: keep the state sequences of the last call in
            :attr:`state_seqs`.
        example_outputs: ``num_outputs`` per-step tensors giving the outputs'
            shapes and dtypes for ``T == 0`` calls, which do not run the core
            (see above). On the Triton backends their shape must be the
            per-step shape of ``example_inputs`` (with no ``example_inputs``:
            one shape for all).
        static_inputs: tensors passed to the core after the states at every
            step, ``core(*inputs, *states, *static_inputs)`` (SpikingJelly
            2.0's ``static_inputs``): a learnable decay, a per-channel
            threshold. Each broadcasts to the per-step shape (a scalar,
            ``[*shape]``, ``[C, 1, 1]`` beside ``[B, C, H, W]``, ...) and may
            have its own floating dtype. ``nn.Parameter`` entries are
            registered as parameters, other tensors as buffers
            (``static_input_0``, ``static_input_1``, ...; a mapping gives
            the names, e.g. ``{"w": w}`` for PLIF's ``w``), so they follow
            ``.to()``, ``state_dict``, ``deepcopy`` and pickling and get
            gradients on every backend; the Triton kernels read them in
            place and sum their gradients over time and over the broadcast
            dimensions.

    Raises:
        TypeError: ``core`` not callable, non-int arity, non-tensor templates;
            ``num_states`` missing (``FlexSN(core, 1)``), or a count that cannot be found.
        TypeError: a static input that is not a tensor; ``store_state_seqs`` not a bool.
        ValueError: bad arity, unknown ``step_mode`` / ``backend`` (the
            message lists the valid values), wrong number of
            ``example_outputs`` or ``requires_grad`` flags, ``example_outputs``
            of another shape than the outputs on the Triton backends.
        ImportError: ``backend="hop"`` without ``flexsn_hop``.

    Behaviour: SpikingJelly's ``FlexSN`` (``backend="hop"``,
    ``store_state_seqs``, ``T == 0`` and template rules included).
    """

    def __init__(
        self,
        core: Core,
        num_inputs: int | None = None,
        num_states: int | None = None,
        num_outputs: int | None = None,
        example_inputs: Sequence[torch.Tensor] | None = None,
        requires_grad: Sequence[bool] | None = None,
        step_mode: str = "m",
        backend: str = "triton",
        store_state_seqs: bool = False,
        example_outputs: Sequence[torch.Tensor] | None = None,
        static_inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None = None,
    ) -> None:
        super().__init__()
        if not callable(core):
            raise TypeError(f"core must be callable, got {type(core).__name__}")
        self.core = core
        self.num_inputs, self.num_states, self.num_outputs = resolve_counts(core, num_inputs, num_states, num_outputs, static_inputs, example_inputs)
        self._step_mode = check_step_mode(step_mode)
        self._backend = check_backend(backend)
        self.store_state_seqs = check_bool("store_state_seqs", store_state_seqs)
        if example_inputs is not None:
            example_inputs = tuple(example_inputs)
        self._example_inputs = example_inputs
        self._requires_grad = check_requires_grad(requires_grad, self.num_inputs, self.num_states)
        self._output_specs: tuple[OutputSpec, ...] | None = None
        if example_outputs is not None:
            no = self.num_outputs
            outs = check_tensor_list(
                example_outputs, "example_outputs", no,
                f"expected {no} example output tensors (example_outputs must hold num_outputs = {no} tensors)",
            )
            self._output_specs = tuple((tuple(t.shape), t.dtype) for t in outs)
            if self._backend in KERNEL_BACKENDS:
                check_example_outputs(self._output_specs, example_inputs)
        self._static_names = register_static_inputs(self, static_inputs)
        self._kernel: FlexSNKernel | None = None
        self._states: list[torch.Tensor | float | None] = []
        self._state_seqs: TensorList | None = [] if self.store_state_seqs else None
        self._replay: tuple[list[Any], int, int] | None = None  # flexsn_nn.replay: what a recomputation starts from
        if self._backend in KERNEL_BACKENDS:
            _ = self.kernel  # build now: tracing errors surface here (training kernels: on first need)

    step_mode = Checked(check_step_mode, '''``"m"`` (inputs ``[T, *shape]``) or ``"s"`` (inputs ``[*shape]``); settable, validated.''')
    backend = Checked(check_backend, "One of :data:`BACKENDS`; settable, validated (ValueError listing the valid values).")

    @property
    def static_inputs(self) -> tuple[torch.Tensor, ...]:
        """The static inputs, as registered (parameters or buffers ``static_input_<k>`` or the given names; moved by ``.to()``)."""
        names = self._static_names
        if not names:  # the usual neuron: every call asks
            return ()
        p, b = self._parameters, self._buffers  # nn.Module.__getattr__ (what getattr reaches) costs ~2 us a call
        # a list, not a generator: tuple(<genexpr>) costs a frame per element on a path every call takes
        return tuple([cast(torch.Tensor, p[n] if n in p else b[n] if n in b else getattr(self, n)) for n in names])

    @property
    def kernel(self) -> FlexSNKernel:
        """The :class:`~flexsn_runtime.FlexSNKernel` of ``core`` (built on first access).

        The functional form of this neuron:
        ``kernel(*input_seqs, *init_states) -> (*output_seqs, *state_seqs)``
        and ``kernel.final_state(...) -> (*output_seqs, *final_states)``.
        Shared (not rebuilt) by deep copies.

        Raises:
            RuntimeError: building the kernels raised an ``AttributeError`` (``nn.Module.__getattr__`` would hide it).
        """
        if self._kernel is None:
            try:
                self._kernel = FlexSNKernel(*self._kernel_arguments(), static_names=self._static_names)
            except AttributeError as exc:  # nn.Module.__getattr__ would report a missing 'kernel' attribute instead
                raise RuntimeError(f"building the kernels of the core failed: {type(exc).__name__}: {exc}") from exc
        return self._kernel

    def _kernel_arguments(self) -> tuple[Core, int, int, int, tuple[torch.Tensor, ...] | None, tuple[bool, ...] | None, int]:
        """``FlexSNKernel``'s positional arguments for this neuron: core, counts, examples (the static inputs
        appended: their dtypes), ``requires_grad`` flags and the number of static inputs (also ``explain(neuron)``'s)."""
        statics, examples = self.static_inputs, self._example_inputs
        examples = None if examples is None else (*examples, *statics)
        return self.core, self.num_inputs, self.num_states, self.num_outputs, examples, self._requires_grad, len(statics)

    @property
    def states(self) -> list[torch.Tensor | float | None]:
        """Current states: ``num_states`` tensors ``[*shape]``, or ``[]`` before the first call / after reset
        (a neuron's ``v = 0.3`` leaves a Python float, filled like the inputs at the next call, as SpikingJelly's).

        Settable with a list/tuple of ``num_states`` entries, each a tensor
        or ``None`` ("initialize this one"), or with ``[]``. Shapes, dtype and
        device are checked against the inputs at the next call.

        Raises (setter):
            ValueError: wrong number of entries. TypeError: an entry that is
            neither a tensor nor ``None``.
        """
        return self._states

    @states.setter
    def states(self, states: Sequence[torch.Tensor | None] | None) -> None:
        self._states = check_states_value(states, self.num_states)

    @property
    def state_seqs(self) -> TensorList | None:
        """State sequences ``[T, *shape]`` of the last call (``[1, *shape]`` in single-step mode).

        ``None`` when ``store_state_seqs`` is False; ``[]`` before the first
        call and after :meth:`reset`.
        """
        if not self.store_state_seqs:
            return None
        return self._state_seqs if self._state_seqs is not None else []

    def reset(self) -> None:
        """Forget the states (and state sequences): the next call starts from :meth:`init_states`."""
        # plain attributes, never parameters/buffers/modules: skip nn.Module.__setattr__'s
        # checks (called every step; microseconds that show in host-bound short sequences)
        _set = object.__setattr__
        _set(self, "_states", [])
        _set(self, "_state_seqs", [] if self.store_state_seqs else None)
        if not _compiling() and in_backward():  # a checkpointed function resetting its neurons (flexsn_nn.replay)
            note_reset(self)

    def detach(self) -> None:
        """Cut the states from their autograd history (truncated BPTT); their values stay.

        The next call starts from the same states, and its backward stops
        there instead of reaching the calls before (whose graph a previous
        ``backward()`` has freed). Call it between chunks of a long sequence,
        or on a whole network with :func:`flexsn_nn.functional.detach_net`.
        State sequences (``store_state_seqs``) are left as they are. Source:
        SpikingJelly ``MemoryModule.detach``.
        """
        states = self._states
        if states:
            object.__setattr__(self, "_states", [s.detach() if isinstance(s, torch.Tensor) else s for s in states])
            note_detach(self, states, self._states)  # the same memory: a CUDA-graph capture from it is still told

    def init_states(self, *input_seqs: torch.Tensor) -> TensorList:
        """Initial states for a call; override to change them (e.g. ``v = v_reset``).

        Args:
            input_seqs: the call's ``num_inputs`` input sequences ``[T, *shape]``
                (in single-step mode, the step inputs viewed as ``[1, *shape]``;
                ``T`` may be 0).

        Returns:
            ``num_states`` tensors ``[*shape]`` of the inputs' dtype and device;
            the default is zeros.
        """
        x = input_seqs[0]
        return [x.new_zeros(x.shape[1:]) for _ in range(self.num_states)]

    def _init_states_are_zeros(self) -> bool:
        """Whether :meth:`init_states` returns zeros (``True`` unless a subclass overrides it).

        When it does and no state is set, the ``triton`` / ``inductor``
        backends pass only the input sequences to the kernels, which create
        the zero states inside the op: compiled graphs then carry no zero
        fill in front of the neuron. Subclasses whose :meth:`init_states`
        returns zeros may override this to keep that fast path.
        """
        return type(self).init_states is FlexSN.init_states

    def _resolve_states(self, seqs: Sequence[torch.Tensor], step_shape: tuple[int, ...]) -> TensorList:
        """The initial states of this call (``self._states`` merged with init_states); mutates nothing."""
        current = list(self._states)
        if not current:
            current = [None] * self.num_states
        if any(s is None for s in current):
            defaults: object = self.init_states(*seqs)
            if isinstance(defaults, torch.Tensor) or not isinstance(defaults, (list, tuple)):
                raise TypeError(f"init_states must return a list of {self.num_states} tensors, got {type(defaults).__name__}")
            if len(defaults) != self.num_states:
                raise ValueError(f"init_states returned {len(defaults)} tensors, expected num_states = {self.num_states}")
            current = [d if s is None else s for s, d in zip(current, defaults)]
        states = states_for_call(current, seqs[0], step_shape)
        if self._backend in KERNEL_BACKENDS:
            check_state_shapes(states, step_shape)  # torch / hop: the core decides
        return states

    def _check_inputs(self, inputs: tuple[Any, ...], sequences: bool) -> ScanContract:
        """The call's inputs, checked by :func:`flexsn_trace.check_scan_args` (single steps as ``[1, *shape]``)."""
        if not sequences:
            inputs = tuple(x.unsqueeze(0) if isinstance(x, torch.Tensor) else x for x in inputs)
        shapes = "broadcast" if self._backend in KERNEL_BACKENDS else "any"  # see flexsn_nn.shapes
        return check_scan_args(
            self.num_inputs, self.num_states, self.num_outputs, inputs, who="FlexSN", states="none", uniform=True,
            shapes=shapes, floating=True,
        )

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        """Run the neuron on ``inputs`` (see the class docstring for shapes).

        Returns:
            The output (one output) or a tuple of outputs.

        Raises:
            ValueError: wrong number of inputs, sequences with different ``T``
                or per-step shapes, tensors on different devices, states that
                do not fit the inputs, a core returning the wrong count.
            TypeError: non-tensor inputs, non-floating or mixed dtypes.
            RuntimeError: a recomputation (activation checkpointing) of an
                unknown call (:func:`flexsn_nn.replay.recompute`).
        """
        return replayed(self, inputs, self._run)  # type: ignore[no-any-return]  # activation checkpointing replays

    def _run(self, inputs: tuple[Any, ...], mode: str | None = None) -> torch.Tensor | tuple[torch.Tensor, ...]:
        started = self._states
        outs = self._single_step(inputs) if (mode or self._step_mode) == "s" else self._multi_step(inputs)
        note_capture(self, started, outs)  # after the launch: a CUDA graph capturing stale states is told
        return outs[0] if self.num_outputs == 1 else outs

    def _single_step(self, inputs: tuple[Any, ...]) -> tuple[torch.Tensor, ...]:
        xs = [x[0] for x in self._check_inputs(inputs, sequences=False).input_seqs]
        step_shape = tuple(xs[0].shape)
        init = self._resolve_states([x.unsqueeze(0) for x in xs], step_shape)
        try:
            res = as_tensor_tuple(
                self.core(*xs, *init, *self.static_inputs), "the core", self.num_outputs + self.num_states, TypeError
            )
        except RuntimeError as exc:
            error = shape_error(exc, [x.unsqueeze(0) for x in xs], init, list(zip(self._static_names, self.static_inputs)))
            if error is exc:
                raise
            raise error from exc
        res = stored_in(res, xs[0].dtype)  # as a multi-step call stores them: the next step's states fit its inputs
        outs, new_states = res[: self.num_outputs], list(res[self.num_outputs :])
        self._commit(new_states, [s.unsqueeze(0) for s in new_states])
        return outs

    def _multi_step(self, inputs: tuple[Any, ...]) -> tuple[torch.Tensor, ...]:
        kernel = self._kernel
        if kernel is not None and self._backend in KERNEL_BACKENDS:
            # a call of a signature checked before runs its route directly (flexsn_runtime.call_cache)
            current = self._states
            init: Sequence[Any] | None = current
            if not current or all(s is None for s in current):
                init = () if self._init_states_are_zeros() else None
            elif any(not isinstance(s, torch.Tensor) for s in current):
                init = None  # partly set, or a float to fill: init_states and _resolve_states on the checked path
            if init is not None:
                res = kernel.run_cached(inputs, init, self.static_inputs, not self.store_state_seqs)
                if res is not None:
                    return self._finish(res)
        checked = self._check_inputs(inputs, sequences=True)
        seqs = list(checked.input_seqs)
        x0 = seqs[0]
        step_shape = tuple(x0.shape[1:])
        # Zero initial states of the kernel backends (and of the hop backend's
        # flex_sn_scan, zero_init_states=True) are created inside the op.
        omit_init = (
            (self._backend in KERNEL_BACKENDS or self._backend == "hop")
            and x0.shape[0] != 0
            and all(s is None for s in self._states)
            and self._init_states_are_zeros()
        )
        init = [] if omit_init else self._resolve_states(seqs, step_shape)
        no = self.num_outputs
        if x0.shape[0] == 0:  # the core does not run (flexsn_nn.empty_calls)
            outs = empty_call_outputs(self, seqs, init)
            self._commit(list(init), [s.new_empty((0, *s.shape)) for s in init])
            return outs
        try:
            res = self._run_backend(seqs, init, checked.uniform)
        except RuntimeError as exc:  # the core failed: say which shapes it got, when they differ
            error = shape_error(exc, seqs, init, list(zip(self._static_names, self.static_inputs)))
            if error is exc:
                raise
            raise error from exc
        if len(res) != no + self.num_states:  # a backend contract break, not a user error
            raise RuntimeError(f"backend {self._backend!r} returned {len(res)} tensors, expected {no + self.num_states}")
        return self._finish(res)

    def _finish(self, res: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        """Keep the states of a multi-step result ``(*outputs, *state_seqs or final_states)``; return the outputs."""
        no = self.num_outputs
        rest = list(res[no:])
        self._commit([s[-1] for s in rest] if self.store_state_seqs else rest, rest)
        return res[:no]

    def _commit(self, states: TensorList, state_seqs: TensorList) -> None:
        """Keep ``states`` (and ``state_seqs`` with ``store_state_seqs``); both lists are the caller's to give away."""
        object.__setattr__(self, "_states", states)  # as in reset()
        object.__setattr__(self, "_state_seqs", state_seqs if self.store_state_seqs else None)

    def _run_backend(self, seqs: TensorList, init: TensorList, uniform: bool = False) -> tuple[torch.Tensor, ...]:
        """Run a checked multi-step call (``uniform``: the inputs share one per-step shape)."""
        ni, ns, no = self.num_inputs, self.num_states, self.num_outputs
        store, statics = self.store_state_seqs, self.static_inputs
        if self._backend == "torch":
            return eager_loop(self.core, ni, ns, no, seqs, init, store, statics)
        if self._backend in KERNEL_BACKENDS:
            # checked here already (inputs, then states in _resolve_states): the kernel runs the contract as it is
            step = seqs[0].shape[1:]
            same = uniform and all(s.shape == step for s in init)
            return self.kernel.run(ScanContract(ni, ns, no, tuple(seqs), tuple(init), statics, not store, same))
        # the lowerable scans keep the core's promoted dtypes (as SpikingJelly's eager_scan); the module stores as the kernels do
        return stored_in(run_hop(
            self.core, (ni, ns, no), seqs, init, statics, store, self._output_specs,
            lambda: self._resolve_states(seqs, tuple(seqs[0].shape[1:])),
        ), seqs[0].dtype)

    def uses_kernels(self, *input_seqs: torch.Tensor) -> bool:
        """Whether a multi-step call with these inputs runs the generated Triton kernels.

        ``False`` for the ``torch`` / ``hop`` backends, in single-step mode,
        and when :class:`~flexsn_runtime.FlexSNKernel` would fall back to the
        eager loop (unsupported op, CPU tensors without ``TRITON_INTERPRET=1``,
        a dtype other than float32/float16/bfloat16).
        """
        if self._backend not in KERNEL_BACKENDS or self._step_mode != "m" or not input_seqs:
            return False
        return self.kernel.uses_kernels(*input_seqs, *self.static_inputs)

    def extra_repr(self) -> str:
        """Arity, step mode, backend and ``store_state_seqs`` (shown by ``repr``)."""
        return (
            f"num_inputs={self.num_inputs}, num_states={self.num_states}, num_outputs={self.num_outputs}, "
            f"step_mode={self._step_mode!r}, backend={self._backend!r}, store_state_seqs={self.store_state_seqs}"
        )
