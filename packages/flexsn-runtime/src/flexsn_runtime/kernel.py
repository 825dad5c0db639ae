"""``FlexSNKernel``: a core function as fused multi-step kernels (seeds 001, 002)."""

from __future__ import annotations

import copy
import warnings
import weakref
from typing import Any, Callable, Sequence

import torch

from flexsn_codegen import UnsupportedOpError

from .builders import build_inference_kernels, build_training_kernels
from .launch import ScanKernel, kernels_usable
from .ops import run_inference, run_training
from .plan import TrainingPlan, plan_for
from .reference import eager_loop
from .registry import attach_flexsn_handle_finalizer, register_flexsn_kernel_handle, retain_owner_flexsn_kernel_handle
from .tracecache import core_fingerprint, load_build, store_build

__all__ = ["FlexSNKernel", "KERNEL_DTYPES", "validate_scan_args"]

_KERNEL_NAMES = (
    "inference",
    "inference_final_state",
    "forward",
    "forward_final_state",
    "backward",
    "backward_final_state",
)


def _build(
    core: Callable[..., Any],
    arity: tuple[int, int, int],
    example_inputs: Sequence[torch.Tensor] | None,
    requires_grad: Sequence[bool] | None,
) -> dict[str, Any]:
    """Trace and render every kernel of ``core``: a JSON-friendly dict (see tracecache)."""
    build: dict[str, Any] = {name: None for name in _KERNEL_NAMES}
    build.update(unsupported=None, inference_info=None, training_info=None)
    try:
        inf, fin, info = build_inference_kernels(core, *arity, example_inputs)
    except UnsupportedOpError as exc:
        build["unsupported"] = str(exc)
        return build
    build.update(inference=[inf.code, inf.name], inference_final_state=[fin.code, fin.name], inference_info=info)
    try:
        fwd, bwd, train_info = build_training_kernels(core, *arity, example_inputs, requires_grad)
    except UnsupportedOpError as exc:
        build["unsupported"] = f"{exc} (in the backward pass)"
        return build
    except ValueError as exc:
        if "differentiable" not in str(exc):
            raise
        return build  # no gradient flows through this core: inference kernels serve every call
    assert fwd.final_state is not None and bwd.final_state is not None
    build.update(
        forward=[fwd.code, fwd.name],
        forward_final_state=[fwd.final_state.code, fwd.final_state.name],
        backward=[bwd.code, bwd.name],
        backward_final_state=[bwd.final_state.code, bwd.final_state.name],
        training_info=train_info,
    )
    return build


def _scan_kernel(build: dict[str, Any], name: str) -> ScanKernel | None:
    entry = build.get(name)
    if entry is None:
        return None
    code, fn_name = entry
    return ScanKernel(str(code), str(fn_name), name)

#: Storage dtypes the generated kernels take (numerics are fp32 in-kernel).
KERNEL_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def validate_scan_args(
    args: Sequence[Any], num_inputs: int, num_states: int, allow_missing_states: bool = True
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """Check ``(*input_seqs, *init_states)`` before anything runs.

    Args:
        args: the call's positional arguments.
        num_inputs, num_states: the core's arity.
        allow_missing_states: accept only the input sequences (states then
            default to zeros).

    Returns:
        ``(input_seqs, init_states_or_None)``.

    Raises:
        TypeError: a non-tensor argument, or tensors with different dtypes.
        ValueError: wrong count, a sequence without a time axis, sequences
            with different ``T`` or per-step shapes, states whose shape is not
            the per-step shape, tensors on different devices.
    """
    n = len(args)
    if n == 1 and num_inputs == 1 and (num_states == 0 or allow_missing_states):
        # one sequence and no states: nothing to compare it with (the common call, kept cheap)
        x = args[0]
        if isinstance(x, torch.Tensor) and x.dim() >= 1:
            return [x], None
    if n != num_inputs + num_states and not (allow_missing_states and n == num_inputs):
        raise ValueError(
            f"expected {num_inputs} input sequence(s)"
            + (f" followed by {num_states} initial state(s)" if num_states else "")
            + f", got {n} argument(s)"
        )
    for i, a in enumerate(args):
        if not isinstance(a, torch.Tensor):
            what = "input sequence" if i < num_inputs else "initial state"
            raise TypeError(f"argument {i} ({what}) must be a torch.Tensor, got {type(a).__name__}")
    seqs = list(args[:num_inputs])
    states = list(args[num_inputs:]) if n > num_inputs else None
    x0 = seqs[0]
    if x0.dim() < 1:
        raise ValueError("input sequences must be [T, *shape]; input 0 is a 0-d tensor")
    T, step_shape = x0.shape[0], tuple(x0.shape[1:])
    for i, x in enumerate(seqs):
        if x.dim() < 1 or x.shape[0] != T:
            raise ValueError(
                f"all input sequences must share the time dimension T={T}; input {i} has shape {tuple(x.shape)}"
            )
        if tuple(x.shape[1:]) != step_shape:
            raise ValueError(
                f"all input sequences must share the per-step shape {step_shape}; input {i} has {tuple(x.shape[1:])}"
            )
    for j, s in enumerate(states or []):
        if tuple(s.shape) != step_shape:
            raise ValueError(
                f"initial state {j} must have the per-step shape {step_shape} (inputs are {tuple(x0.shape)}), "
                f"got {tuple(s.shape)}"
            )
    tensors = [*seqs, *(states or [])]
    devices = {t.device for t in tensors}
    if len(devices) > 1:
        raise ValueError(f"all inputs and states must be on one device, got {sorted(str(d) for d in devices)}")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise TypeError(f"all inputs and states must share one dtype, got {sorted(str(d) for d in dtypes)}")
    return seqs, states


class FlexSNKernel:
    """A single-step core compiled into fused multi-step Triton kernels.

    ``kernel(*input_seqs, *init_states) -> (*output_seqs, *state_seqs)``
    with sequences ``[T, *shape]`` and states ``[*shape]`` (initial states
    may be omitted: zeros). Inference (no autograd needed) runs one fused
    kernel; training runs a forward kernel and, on ``backward()``, one
    reverse-time BPTT kernel, through the ``flexsn::*`` custom ops (opaque
    single nodes under ``torch.compile``).

    Falls back to the eager PyTorch loop, with one warning naming the
    reason, when the core uses an op without a Triton lowering, when the
    tensors are on the CPU without ``TRITON_INTERPRET=1``, or when the dtype
    is not one of :data:`KERNEL_DTYPES`.

    Args:
        core: ``(*inputs, *states) -> (*outputs, *new_states)``, elementwise
            on per-step tensors.
        num_inputs, num_states, num_outputs: the arity (``num_inputs >= 1``).
        example_inputs: per-step example tensors for tracing (default
            ``[4]`` fp32 CPU tensors).
        requires_grad: per input/state flags for the training trace.

    Raises:
        TypeError / ValueError: bad arity, examples, or a core returning the
            wrong number of values (checked while tracing).

    Seeds: 001 (``FlexSNKernel`` handle lifetime), 002 (builders).
    """

    def __init__(
        self,
        core: Callable[..., Any],
        num_inputs: int,
        num_states: int,
        num_outputs: int,
        example_inputs: Sequence[torch.Tensor] | None = None,
        requires_grad: Sequence[bool] | None = None,
    ) -> None:
        if not callable(core):
            raise TypeError(f"core must be callable, got {type(core).__name__}")
        self.core = core
        self.num_inputs, self.num_states, self.num_outputs = num_inputs, num_states, num_outputs
        self.handle: int | None = None
        self.fallback_reason: str | None = None
        self._warned: set[str] = set()
        self._finalizer: "weakref.finalize[[int], object] | None" = None
        #: store_state_seqs -> the handle's TrainingPlan (valid while this object holds the handle)
        self._plans: dict[bool, TrainingPlan] = {}
        arity = (num_inputs, num_states, num_outputs)
        key = core_fingerprint(core, arity, example_inputs, requires_grad)
        build = load_build(key) if key is not None else None
        if build is None:
            build = _build(core, arity, example_inputs, requires_grad)
            if key is not None:
                store_build(key, build)
        if build["unsupported"] is not None:
            self.fallback_reason = build["unsupported"]
            self._warn(f"{self.fallback_reason}; this neuron runs on the eager PyTorch loop instead")
            return
        kernels = {name: _scan_kernel(build, name) for name in _KERNEL_NAMES}
        fwd, bwd = kernels["forward"], kernels["backward"]
        if fwd is not None and bwd is not None:
            fwd.final_state = kernels["forward_final_state"]
            bwd.final_state = kernels["backward_final_state"]
        self.handle = register_flexsn_kernel_handle(
            inference_kernel=kernels["inference"],
            inference_info=build["inference_info"],
            inference_final_state_kernel=kernels["inference_final_state"],
            inference_final_state_info=build["inference_info"],
            forward_kernel=fwd,
            backward_kernel=bwd,
            training_info=build["training_info"],
        )
        self.has_training_kernels = fwd is not None
        self._finalizer = attach_flexsn_handle_finalizer(self, self.handle)

    def _warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            warnings.warn(f"FlexSN: {message}", RuntimeWarning, stacklevel=4)

    def __deepcopy__(self, memo: dict[int, Any]) -> "FlexSNKernel":
        new = copy.copy(self)
        new._warned = set(self._warned)
        if self.handle is not None:
            retain_owner_flexsn_kernel_handle(self.handle)
            new._finalizer = attach_flexsn_handle_finalizer(new, self.handle)
        memo[id(self)] = new
        return new

    def _eager_reason(self, tensors: Sequence[torch.Tensor]) -> str | None:
        t = tensors[0]
        if t.is_cuda and self.handle is not None and t.dtype in KERNEL_DTYPES:
            return None  # the common call, answered without building a device object
        if self.handle is None:
            return self.fallback_reason or "the kernels could not be built"
        if t.dtype not in KERNEL_DTYPES:
            return f"dtype {t.dtype} is not one of the kernel dtypes {[str(d) for d in KERNEL_DTYPES]}"
        if not kernels_usable(t.device):
            return (
                f"tensors on {t.device} need CUDA, or TRITON_INTERPRET=1 to run the kernels in Triton's "
                "CPU interpreter"
            )
        return None

    def uses_kernels(self, *args: torch.Tensor) -> bool:
        """Whether a call with these tensors would run the generated kernels (else the eager loop)."""
        return self._eager_reason(args) is None

    def _call(self, args: tuple[Any, ...], store_state_seqs: bool) -> tuple[torch.Tensor, ...]:
        seqs, states = validate_scan_args(args, self.num_inputs, self.num_states)
        reason = self._eager_reason(seqs)
        if reason is not None:
            if self.handle is not None:
                self._warn(f"{reason}; running the eager PyTorch loop instead")
            init = states if states is not None else [seqs[0].new_zeros(seqs[0].shape[1:]) for _ in range(self.num_states)]
            return eager_loop(self.core, self.num_inputs, self.num_states, self.num_outputs, seqs, init, store_state_seqs)
        assert self.handle is not None
        flat = [*seqs, *(states or [])]
        needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in flat)
        if needs_grad and self.has_training_kernels:
            n = self.num_outputs + self.num_states
            plan = self._plans.get(store_state_seqs)
            if plan is None and not torch.compiler.is_compiling():  # Dynamo sees the op, not the plan
                plan = self._plans[store_state_seqs] = plan_for(self.handle, not store_state_seqs)
            return tuple(run_training(self.handle, flat, not store_state_seqs, plan=plan)[:n])
        return tuple(run_inference(self.handle, flat, not store_state_seqs))

    def __call__(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Run the scan: ``(*input_seqs, *init_states?) -> (*output_seqs, *state_seqs)``.

        Raises:
            TypeError / ValueError: see :func:`validate_scan_args`.
        """
        return self._call(args, True)

    def final_state(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Run the scan keeping final states only: ``-> (*output_seqs, *final_states)``.

        Uses the final-state kernels, which do not write state sequences in
        inference. Raises as :meth:`__call__`.
        """
        return self._call(args, False)

    def __repr__(self) -> str:
        mode = "eager fallback" if self.handle is None else f"handle={self.handle}"
        name = getattr(self.core, "__name__", type(self.core).__name__)
        return (
            f"FlexSNKernel({name}, num_inputs={self.num_inputs}, num_states={self.num_states}, "
            f"num_outputs={self.num_outputs}, {mode})"
        )


