"""``FlexSNKernel``: a core function as fused multi-step kernels."""

from __future__ import annotations

import copy
import weakref
from typing import Any, Callable, Sequence

import torch

from flexsn_trace import Captures, ScanContract, check_scan_args, find_captures, find_constants, layout_problem, reference_scan

from .call_cache import CallCache, call_key
from .compile_time import enrol, guarded_by_dynamo, settle_while_compiling, tell_while_compiling, unguarded_warnings
from .eager import eager_loop, stored_in
from .scan_args import validate_scan_args
from .kernel_build import build_handle, settled_constants, trains_fused, training_reason, used_captures
from .routing import Route, Runner, fit_shapes, route, run_route, signature_runner, warn_fallback
from .training_plan import TrainingPlan, plan_for
from .registry import attach_flexsn_handle_finalizer, lookup_flexsn_kernel_handle, retain_owner_flexsn_kernel_handle

__all__ = ["FlexSNKernel", "eager_loop", "stored_in", "validate_scan_args"]


class FlexSNKernel:
    """A single-step core compiled into fused multi-step Triton kernels.

    ``kernel(*input_seqs, *init_states) -> (*output_seqs, *state_seqs)``
    with sequences ``[T, *shape]`` and states ``[*shape]`` (initial states
    may be omitted: zeros). Per-step shapes that differ but broadcast
    (``torch.broadcast_shapes``, e.g. a ``[C]`` input beside ``[N, C]``) run
    fused on broadcast copies when the core keeps the broadcast shape, else
    on the eager loop with a warning (:func:`flexsn_runtime.fit_shapes`).
    Inference (no autograd needed) runs one fused
    kernel; training runs a forward kernel and, on ``backward()``, one
    reverse-time BPTT kernel, through the ``flexsn::*`` custom ops (opaque
    single nodes under ``torch.compile``).

    The inference kernels are traced when the object is built; the training
    kernels on the first call that needs gradients (or the first read of
    :attr:`has_training_kernels`), then kept with the handle and in the trace
    cache.

    Falls back to the eager PyTorch loop, with one warning naming the
    reason, when the core uses an op without a Triton lowering, when the
    tensors are on the CPU without ``TRITON_INTERPRET=1``, or when the dtype
    is not one of :data:`KERNEL_DTYPES`.

    Static inputs (SpikingJelly 2.0's ``static_inputs``): with
    ``num_static = n`` the last ``n`` call arguments are tensors passed to
    the core after the states at every step, e.g. a learnable decay or a
    per-channel threshold. Each broadcasts to the per-step shape (a scalar,
    ``[*shape]``, ``[C, 1, 1]`` beside ``[B, C, H, W]``, ...); the kernels
    read it in place through broadcast index arithmetic and, in training,
    sum its gradient over time in registers, then over its broadcast
    dimensions (:mod:`flexsn_runtime.statics`). They may have their own
    floating dtype (fp32 parameters beside bf16 sequences).

    Args:
        core: ``(*inputs, *states, *statics) -> (*outputs, *new_states)``,
            elementwise on per-step tensors.
        num_inputs, num_states, num_outputs: the arity (``num_inputs >= 1``).
        example_inputs: per-step example tensors for tracing (default
            ``[4]`` fp32 CPU tensors), one per input and state, optionally
            followed by one per static input (only its dtype is used).
        requires_grad: per input/state flags for the training trace
            (static inputs are always traced as differentiable).
        num_static: the number of static inputs, >= 0.
        static_names: the static inputs' names (``FlexSN`` passes its registered
            ones), used by the messages that name one; default: their indices.

    Raises:
        TypeError / ValueError: bad arity, examples, or a core returning the
            wrong number of values (checked while tracing); a negative or
            non-int ``num_static``.

    Behaviour: SpikingJelly's ``FlexSNKernel`` (handle lifetime, builders).
    """

    def __init__(
        self, core: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
        example_inputs: Sequence[torch.Tensor] | None = None, requires_grad: Sequence[bool] | None = None,
        num_static: int = 0, static_names: Sequence[str] = (),
    ) -> None:
        if not callable(core):
            raise TypeError(f"core must be callable, got {type(core).__name__}")
        if isinstance(num_static, bool) or not isinstance(num_static, int) or num_static < 0:
            raise ValueError(f"num_static must be an int >= 0, got {num_static!r}")
        self.core = core
        self.num_inputs, self.num_states, self.num_outputs = num_inputs, num_states, num_outputs
        self.num_static = num_static
        #: the call's static inputs by name, for the messages that name one (:meth:`_named`)
        self.static_names = tuple(str(n) for n in static_names)
        self._example_inputs = None if example_inputs is None else tuple(example_inputs)
        self._requires_grad = None if requires_grad is None else tuple(bool(r) for r in requires_grad)
        self._warned: set[str] = set()
        #: a deep copy whose captures and constants still read the original's places (:meth:`_finish_copy`)
        self._rebind = False
        #: names this object to what Dynamo runs while compiling a call (flexsn_runtime.compile_time)
        self._serial = enrol(self)
        self._build()

    def _build(self) -> None:
        """Trace (or load) the kernels of the core as it is now, and start every per-call cache afresh."""
        core, num_static, example_inputs = self.core, self.num_static, self._example_inputs
        self.handle: int | None = None
        #: every output and state reads an input or a state, so it has their per-step shape (routing.fit_shapes)
        self.results_keep_step = False
        self.fallback_reason: str | None = None
        self._finalizer: "weakref.finalize[[int], object] | None" = None
        arity = (self.num_inputs, self.num_states, self.num_outputs)
        self._start_calls(used_captures(core, arity, example_inputs, num_static))
        #: static inputs the kernels take: the call's, then the captured tensors
        self.num_kernel_statics = num_static + len(self.captures)
        if len(self.captures) and example_inputs is not None:
            example_inputs = (*example_inputs, *self.captures.values())  # their dtypes
        #: numbers the core reads from outside its arguments, traced into the kernels as literals (none when it changes
        #: one it reads: ``moved`` says so, and this neuron runs the eager loop)
        self.constants, moved = settled_constants(core, self.step_fn, arity, example_inputs, self.num_kernel_statics)
        #: per watched number, whether Dynamo guards it (worked out here: what Dynamo reads from us stays a constant)
        self._dynamo_guarded = tuple([guarded_by_dynamo(c.value, c.in_class) for c in self.constants.items])
        self._unguarded = unguarded_warnings(self.constants.items, self._dynamo_guarded)
        if self.constants.unwatched:
            unwatched = "; ".join(self.constants.unwatched)
            self.tell(
                f"FlexSN: the core reads values where FlexSN cannot follow them ({unwatched}): "
                "a number read that way is a constant of the kernels that is not watched, so a later change to it is "
                "not followed; read it by name (cfg.thr, a module-level import; an installed package's config, such as "
                "OmegaConf's, converted to plain dicts first), or pass the value as a static input"
            )
        #: what the kernels are traced from (routing.dtype_reason traces the core again at a call's dtype)
        self.trace_examples = example_inputs
        self.handle, self.fallback_reason = (None, moved) if moved else build_handle(
            self.step_fn, arity, example_inputs, self._requires_grad, self.num_kernel_statics, self.constants
        )
        changes = "; ".join(self.constants.side_effects)
        if self.handle is None:  # an in-place write to a captured tensor fails as aten.copy_: say where it is
            also = f" (the core changes state outside its arguments: {changes})" if changes else ""
            self.tell(f"{self.fallback_reason}; this neuron runs on the eager PyTorch loop instead{also}")
            return
        if changes:  # the eager loop runs them at every step; fused kernels never do
            self.tell(f"FlexSN: the core changes state outside its arguments ({changes}): the eager loop (and a single "
                      "step) makes such a change at every step, but the fused kernels of a sequence compute only the step's "
                      "outputs and states, so there it happens once, while they are traced; keep it out of the core "
                      '(store_state_seqs=True keeps every step\'s states), or use backend="torch"')
        self._finalizer = attach_flexsn_handle_finalizer(self, self.handle)
        reads = info.reads_step if (info := lookup_flexsn_kernel_handle(self.handle).inference_info) is not None else ()
        self.results_keep_step = len(reads) == self.num_outputs + self.num_states and all(reads)

    def _start_calls(self, captures: Captures) -> None:
        """Take ``captures`` (the kernels' trailing static inputs) and start every per-call cache afresh."""
        #: tensors the core reads from outside its arguments, lifted into static inputs (flexsn_trace.capture)
        self.captures = captures
        #: the function the kernels were traced from: the core, or the core taking its captures as arguments
        self.step_fn: Callable[..., Any] = captures.lifted() if len(captures) else self.core
        #: per-step shapes of a call -> the broadcast shape the core keeps, or why not (routing.fit_shapes)
        self.shape_fits: dict[tuple[tuple[int, ...], ...], tuple[int, ...] | str] = {}
        #: call signature -> the fused call the full checks chose (flexsn_runtime.call_cache)
        self.calls = CallCache()
        #: (a call's dtype, training) -> why the kernels traced at another cannot run it, or None (routing.dtype_reason)
        self.dtype_reasons: dict[tuple[torch.dtype, bool], str | None] = {}
        #: (path, final_state, dtype) -> the eager fused call of that route (routing.fused_runner)
        self.runners: dict[tuple[str, bool, torch.dtype], Runner] = {}

    def _rebuild(self) -> None:
        """Drop this owner's reference to its handle and trace (or load) the kernels again."""
        if self._finalizer is not None:
            self._finalizer()
        self._build()

    @property
    def requires_grad_flags(self) -> tuple[bool, ...] | None:
        """The ``requires_grad`` flags the training kernels were traced with (one per input, then state), or ``None``
        (every floating input and state). An input flagged ``False`` that requires grad at a call runs the loop
        (:func:`flexsn_runtime.routing.gradient_left_out`)."""
        return self._requires_grad

    @property
    def has_training_kernels(self) -> bool:
        """Whether calls that need gradients run fused training kernels (traced on first use, then cached)."""
        return self.handle is not None and trains_fused(self._serial)

    @property
    def training_fallback_reason(self) -> str | None:
        """Why calls that need gradients run the eager loop although inference is fused (``None``: they do not).

        Known once the training kernels were asked for (this property asks,
        tracing them if needed); the build warns once when it is not ``None``.
        """
        return None if self.handle is None else training_reason(self._serial)

    def retrace_if_constants_changed(self) -> bool:
        """Trace the kernels again when a number, flag or function the core reads (:attr:`constants`) changed; warns
        once per change. Called by :meth:`run` (not under ``torch.compile``, where the compiled graph keeps the kernels
        it was compiled with). Returns whether it retraced.
        """
        changed = self.constants.changed()
        if not changed:
            return False
        warn_fallback(self._warned, (
            f"FlexSN: {', '.join(changed)} changed since the kernels were traced; tracing them again (a number, a flag "
            "(a str, None, an enum member) or a function the core reads is a constant of its kernels: pass a number "
            "that changes as a static input instead)"), stacklevel=4)
        self._rebuild()
        return True

    def settle(self) -> bool:
        """Make the kernels those of the core as it is now, before a call; returns whether they were traced again.

        Finishes a deep copy (:meth:`__deepcopy__`), then traces the kernels
        again when a watched number changed (:meth:`retrace_if_constants_changed`).
        """
        if self._rebind:
            self._finish_copy()
        return bool(self.constants.items) and self.retrace_if_constants_changed()

    def _guard_constants(self) -> None:
        """While Dynamo compiles a call: :meth:`settle` once, outside the graph, then guard on every watched number.

        :func:`~flexsn_runtime.compile_time.settle_while_compiling` runs before the
        trace reads any attribute it may replace (Dynamo keeps what it read first).
        Reading the numbers afterwards is traced, so Dynamo guards on each place:
        a later ``V_TH = 0.2`` fails the guard and compiles again (settling again)
        before any compiled call, a CUDA-graph replay included, can run kernels
        traced with the old value.

        Raises:
            RuntimeError: a number changed again while this call was being compiled.
        """
        settle_while_compiling(self._serial)
        constants = self.constants
        if not len(constants):  # not constants.items: Dynamo would guard every object each item holds
            return
        guarded = self._dynamo_guarded
        # read only what Dynamo can guard: reading an np.float32 would make the comparison "data-dependent"
        now = constants.current(guarded)
        was = [(v, code) for v, code, g in zip(constants.traced, constants.code, guarded) if g]
        # code by identity (tools/results/gpu-2026-12-10/code_guard.py: what Dynamo 2.11 and 2.13 can compare)
        if any((n is not v) if code else (n != v) for n, (v, code) in zip(now, was)):
            raise RuntimeError("FlexSN: a number, flag or function the core reads changed while torch.compile traced this call")
        for message in self._unguarded:  # worked out in _build: Dynamo's isinstance cannot tell every value's type
            tell_while_compiling(self._serial, message, fallback=False)

    def tell_fallback(self, reason: str) -> None:
        """Warn, once per reason, that a call runs the eager loop because of ``reason`` (what :func:`route` gave)."""
        # a reason the training build gave was told by it; reading the bundle builds nothing
        if self.handle is None or reason != lookup_flexsn_kernel_handle(self.handle).training_unsupported:
            self.tell(f"{self._named(reason)}; running the eager PyTorch loop instead")

    def tell(self, message: str) -> None:
        """Warn ``message`` (a ``RuntimeWarning``), once per message for this object (:func:`warn_fallback`)."""
        warn_fallback(self._warned, message, stacklevel=4)

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: the core and how it was built, never the process-local handle.

        ``pickle`` / ``torch.save`` store the core by reference (a module-level
        function or a picklable object); unpickling builds the kernels again
        (from the trace cache when warm) under a handle of the loading process.
        """
        return {
            "core": self.core,
            "arity": (self.num_inputs, self.num_states, self.num_outputs),
            "example_inputs": self._example_inputs,
            "requires_grad": self._requires_grad,
            "num_static": self.num_static,
            "static_names": self.static_names,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the kernels in this process (see :meth:`__getstate__`)."""
        self.__init__(  # type: ignore[misc]
            state["core"], *state["arity"], state["example_inputs"], state["requires_grad"], state.get("num_static", 0),
            static_names=state.get("static_names", ()),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> "FlexSNKernel":
        """A copy sharing the kernels (handle reference counted) that reads its own copies of what the core reads.

        The core is deep-copied with ``memo``: a method of a module being copied
        (``FlexSN(self.step)`` inside a network) is bound to the copy, whose
        parameters, buffers and numbers are not the original's. The kernels are the
        same trace, so the copy keeps the handle but finds its captured tensors and
        watched numbers again on its own core; should they not line up with the
        original's by name, it traces its own kernels.
        """
        new = object.__new__(type(self))  # not copy.copy: that would pickle (__getstate__) and rebuild
        memo[id(self)] = new
        new.__dict__.update(self.__dict__)
        new._warned = set(self._warned)
        new._serial = enrol(new)
        new.core = core = copy.deepcopy(self.core, memo)
        # the copied owner may still be half built (its own deep copy is under way): look at it at the first call
        new._rebind = core is not self.core and bool(len(self.captures) or self.constants.items)
        if new._rebind:
            new.calls = CallCache()  # empty: run_cached declines, and run() finishes the copy first
        if self.handle is not None:
            retain_owner_flexsn_kernel_handle(self.handle)
            new._finalizer = attach_flexsn_handle_finalizer(new, self.handle)
        return new

    def _finish_copy(self) -> None:
        """Find a deep copy's captured tensors and watched numbers on its own core (see :meth:`__deepcopy__`)."""
        self._rebind = False
        found = find_captures(self.core)
        names = set(self.captures.names())
        captures = found.select([n in names for n in found.names()])
        constants = self.constants.rebound(find_constants(self.core))
        if captures.names() != self.captures.names() or constants is None:
            self._rebuild()  # this copy traces its own kernels
            return
        self.constants = constants
        # per-call caches hold runners of the original (reading its captures): the copy starts its own
        self._start_calls(captures)

    def plan(self, final_state: bool, dtype: torch.dtype = torch.float32) -> TrainingPlan:
        """The handle's :class:`~flexsn_runtime.training_plan.TrainingPlan` for ``final_state`` and sequences of ``dtype``.

        Cached by the handle's bundle (:func:`~flexsn_runtime.training_plan.plan_for`); asked when a runner is built.

        Raises:
            RuntimeError: no training kernels (see :func:`flexsn_runtime.training_plan.plan_for`).
        """
        if self.handle is None:
            raise RuntimeError("the FlexSN training kernels are unavailable: this core runs on the eager loop")
        return plan_for(self.handle, final_state, dtype)

    def output_dtypes(self, dtype: torch.dtype) -> tuple[torch.dtype, ...]:
        """The dtype each output sequence is stored in, for input sequences of floating ``dtype``.

        Floating results take ``dtype``; bool and integer results (a spike returned as ``x >= 1``)
        the traced one (:func:`flexsn_runtime.builders.output_dtypes`). Without kernels (``handle``
        ``None``): ``dtype`` for every output.

        Raises:
            TypeError: ``dtype`` is not a floating ``torch.dtype``.
        """
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"FlexSNKernel.output_dtypes expects a floating torch.dtype (the inputs'), got {dtype!r}")
        kernel = lookup_flexsn_kernel_handle(self.handle).inference_kernel if self.handle is not None else None
        fixed = kernel.output_dtypes if kernel is not None else ()
        return tuple([(fixed[k] if k < len(fixed) else None) or dtype for k in range(self.num_outputs)])

    def contract(self, args: Sequence[Any], final_state: bool) -> ScanContract:
        """Check a call's ``(*input_seqs, *init_states?, *statics)``: one dtype and device, per-step shapes that broadcast.

        :func:`flexsn_trace.check_scan_args` with ``uniform=True,
        shapes="broadcast"``; the contract is ``uniform`` when the shapes
        are all equal (else :func:`flexsn_runtime.fit_shapes` decides). The
        last ``num_static`` tensors are the static inputs (``lifted_args``).

        Raises:
            TypeError / ValueError: as :func:`flexsn_trace.check_scan_args`;
            a static input that is not a tensor.
        """
        nst = self.num_static
        body, statics = (args[: len(args) - nst], tuple(args[len(args) - nst :])) if nst else (args, ())
        if len(args) < nst:
            raise ValueError(f"FlexSNKernel: expected {nst} static input(s) after the states, got {len(args)} tensors in all")
        for k, w in enumerate(statics):
            if not isinstance(w, torch.Tensor):
                raise TypeError(f"FlexSNKernel: static input {k} must be a torch.Tensor, got {type(w).__name__}")
        c = check_scan_args(
            self.num_inputs, self.num_states, self.num_outputs, body, who="FlexSNKernel", uniform=True,
            shapes="broadcast", final_state=final_state,
        )
        return c._replace(lifted_args=statics) if nst else c

    def uses_kernels(self, *args: torch.Tensor) -> bool:
        """Whether a call with these tensors would run the generated kernels (else the eager loop)."""
        contract = ScanContract(
            self.num_inputs, self.num_states, self.num_outputs, tuple(args[:1]), (), tuple(args[len(args) - self.num_static :])
            if self.num_static and len(args) > self.num_static else (), uniform=True,
        )
        return route(self, self.with_captures(contract)).path != "eager"

    def with_captures(self, contract: ScanContract) -> ScanContract:
        """``contract`` with the captured tensors' live values after its static inputs (what the kernels take)."""
        if not len(self.captures):
            return contract
        return contract._replace(lifted_args=(*contract.lifted_args, *self.captures.values()))

    def _named(self, reason: str) -> str:
        """A fallback reason naming a static input by its name, or a captured tensor by where it lives, not by index."""
        named = {k: f"static input {n!r} " for k, n in enumerate(self.static_names[: self.num_static])}
        named.update((self.num_static + k, f"the captured tensor {c} ") for k, c in enumerate(self.captures.names()))
        for k, name in named.items():
            reason = reason.replace(f"static input {k} ", name)
        return reason

    def _call(self, args: tuple[Any, ...], final_state: bool) -> tuple[torch.Tensor, ...]:
        ni, nst = self.num_inputs, self.num_static
        if len(args) >= ni + nst:  # the cache knows only calls that passed the checks
            cut = len(args) - nst
            done = self.run_cached(args[:ni], args[ni:cut], args[cut:], final_state)
            if done is not None:
                return done
        return self.run(self.contract(args, final_state))

    def run(self, contract: ScanContract) -> tuple[torch.Tensor, ...]:
        """Run a call already checked (:meth:`contract`, or a caller's own :func:`flexsn_trace.check_scan_args`).

        For callers that validated the tensors themselves (``flexsn_nn.FlexSN``):
        the contract's ``uniform`` must say whether inputs and states share one
        per-step shape (dtype and device checked), ``lifted_args`` are the
        call's static inputs, ``init_states`` may be empty (zeros).

        Returns:
            As :meth:`__call__` (or :meth:`final_state` with ``contract.final_state``).
        """
        if torch.compiler.is_dynamo_compiling():
            self._guard_constants()
        elif not torch.compiler.is_compiling():
            self.settle()
        elif self._rebind:  # under another tracer (AOTAutograd, make_fx): its graph keeps the kernels it traced
            self._finish_copy()
        full = self.with_captures(contract)
        fitted, shape_reason = (full, None) if self.handle is None else fit_shapes(self, full)
        r = route(self, fitted) if shape_reason is None else Route("eager", shape_reason, full.final_state)
        if r.path == "eager":
            reason = r.reason
            if reason is not None and self.handle is not None:
                if torch.compiler.is_dynamo_compiling():
                    tell_while_compiling(self._serial, reason)  # once, while compiling: the graph runs the loop
                elif not torch.compiler.is_compiling():
                    self.tell_fallback(reason)
            return stored_in(reference_scan(self.core, contract), contract.input_seqs[0].dtype)  # it reads its captures itself
        if full.uniform:  # as called: the next call of this signature may skip the checks (run_cached)
            key = call_key(full.input_seqs, full.init_states, full.lifted_args, full.final_state)
            if key is not None:
                self.calls.record(key, signature_runner(self, r, full.input_seqs[0].dtype))
        return run_route(self, r, fitted)

    def run_cached(
        self, seqs: Sequence[Any], states: Sequence[Any], statics: Sequence[Any], final_state: bool
    ) -> tuple[torch.Tensor, ...] | None:
        """Run a call whose signature a checked call ran fused before; ``None`` (nothing run) otherwise.

        The host-time fast path of :meth:`run` (see :mod:`flexsn_runtime.call_cache`): ``seqs`` the input
        sequences, ``states`` the initial states or ``()`` for zeros, ``statics`` the call's static inputs,
        as a caller passed them, unchecked. A call the cache does not know runs nothing and the caller takes
        the checked path (:meth:`contract` then :meth:`run`), which raises on bad arguments and records good
        ones. Returns as :meth:`run`, or ``None``.
        """
        # Under Dynamo the cache never answers (no signature); asking first keeps Dynamo from
        # guarding on the cache's size, which an eager call of a shared kernel changes (a recompile).
        if torch.compiler.is_compiling() or not self.calls:
            return None
        if self.constants.items and self.constants.changed():
            return None  # run() traces again
        lifted = (*statics, *self.captures.values()) if self.num_kernel_statics > self.num_static else statics
        try:  # free unless raised (Python >= 3.11): the hot path reads no layout
            key = call_key(seqs, states, lifted, final_state)
            runner = self.calls.get(key) if key is not None else None
            return None if runner is None else runner(seqs, states, lifted)
        except RuntimeError:  # a sparse or nested tensor fails before any launch: the checked path names it
            if any(isinstance(t, torch.Tensor) and layout_problem(t) for t in (*seqs, *states, *lifted)):
                return None
            raise

    def __call__(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Run the scan: ``(*input_seqs, *init_states?) -> (*output_seqs, *state_seqs)``.

        Raises:
            TypeError / ValueError: see :func:`validate_scan_args`.
        """
        return self._call(args, False)

    def final_state(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Run the scan keeping final states only: ``-> (*output_seqs, *final_states)``.

        Uses the final-state kernels, which do not write state sequences in
        inference. Raises as :meth:`__call__`.
        """
        return self._call(args, True)

    def __repr__(self) -> str:
        mode = "eager fallback" if self.handle is None else f"handle={self.handle}"
        name = getattr(self.core, "__name__", type(self.core).__name__)
        return (
            f"FlexSNKernel({name}, num_inputs={self.num_inputs}, num_states={self.num_states}, "
            f"num_outputs={self.num_outputs}, {mode})"
        )
