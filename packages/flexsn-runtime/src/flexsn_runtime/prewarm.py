"""Compile a first backward's kernel on a background thread while the first training forward compiles.

A training script's first step compiles two kernels, the forward and the
backward, one after the other: each is Triton's MLIR passes, ``ptxas`` and,
on Triton 3.6, a ``gcc`` build of its launcher (about 0.4 s each on an H200
host). None of the backward's work needs the forward's result, so
the first training call of a :class:`~flexsn_runtime.training_plan.TrainingPlan`
starts it at once on a worker thread, through Triton's public
``JITFunction.warmup``; the forward compiles meanwhile, and the backward
launch waits for the thread (``ScanKernel.warming``) instead of
compiling again. Triton's own autotuner compiles configurations on a
``ThreadPoolExecutor`` the same way (``triton.runtime._async_compile``,
Triton 3.5 on). Which specialisation the backward will launch is learnt by
running the backward's own allocation code on meta tensors with a recording
stand-in for the kernel, so no rule is written twice; a wrong guess only
costs a compile that is not used. ``FLEXSN_PREWARM=0`` turns it off.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, NamedTuple, Sequence, cast

import torch
import triton

from flexsn_codegen import interpreter_enabled
from flexsn_trace.env import env_flag

from .layout import call_order, empty_in_order, stored_shape
from .scan_kernel import NO_ALT, Alt, ScanKernel, jit_kwargs
from .step_buffers import StepBuffers
from .training_plan import Spec, TrainingCall, TrainingPlan

__all__ = ["BackwardLaunch", "ENV_PREWARM", "guess_backward_launch", "prewarm_backward", "start_compile"]

#: Set to 0 to compile a first backward's kernel when the backward runs.
ENV_PREWARM = "FLEXSN_PREWARM"

_META = torch.device("meta")
#: ``op_autograd.derived_backward``'s signature (passed in: that module calls this one)
DerivedBackward = Callable[
    [ScanKernel, TrainingPlan, Spec, Sequence[Spec], bool, list["torch.Tensor | None"], list[torch.Tensor], "StepBuffers | None"],
    list[torch.Tensor],
]
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:  # one worker: compiles queue behind each other, never beside the caller's twice
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="flexsn-prewarm")
        return _pool


def start_compile(
    kernel: ScanKernel, dtypes: Sequence[torch.dtype], ref: torch.Tensor, T: int, ncl: int, dims: Sequence[int] = (),
    zero_init: bool = False, reds: Sequence[int] = (), alt: Alt = NO_ALT,
) -> bool:
    """Start compiling and loading ``kernel`` for a launch like :meth:`ScanKernel.launch`'s on a worker thread.

    Args as :meth:`ScanKernel.launch`, with the tensor arguments' dtypes in
    place of the tensors (all taken as 16-byte aligned, as allocations are);
    ``ref`` is a CUDA tensor of the launch's device and dtype. Returns whether
    a compile started: not for non-CUDA ``ref``, under Triton's interpreter,
    while a CUDA graph is captured, or while one of ``kernel``'s runs.
    """
    if not ref.is_cuda or interpreter_enabled() or kernel.warming is not None or torch.cuda.is_current_stream_capturing():
        return False
    cfg = kernel.config(ref, ncl)  # main thread: the configuration store and the source load are not shared
    fn = kernel.jit_function()
    index = ref.get_device()
    triton.runtime.driver.active.get_current_device()  # the driver is made here, once, not by two threads at a time
    args = (*dtypes, T, ncl, *dims)
    kwargs = jit_kwargs(cfg, zero_init, reds, alt)

    def work() -> None:
        with torch.cuda.device(index):
            compiled = fn.warmup(*args, grid=(1,), **kwargs)  # a dtype stands for an aligned tensor of it
            # the launcher's build and the module load happen on the first launch otherwise
            load = getattr(compiled, "_init_handles", None)
            if load is not None:
                load()

    kernel.warming = _executor().submit(work)
    return True


class BackwardLaunch(NamedTuple):
    """What a backward launch specialises on: :meth:`ScanKernel.launch`'s arguments, tensors as dtypes."""

    dtypes: tuple[torch.dtype, ...]
    T: int
    ncl: int
    dims: tuple[int, ...]
    zero_init: bool
    reds: tuple[int, ...]
    alt: Alt = NO_ALT


class _Recorder:
    """Stands in for a backward :class:`ScanKernel` in ``op_autograd.derived_backward``: records its launch."""

    def __init__(self, kernel: ScanKernel, ref: torch.Tensor) -> None:
        self.kernel, self.ref = kernel, ref
        self.launched: BackwardLaunch | None = None

    def config(self, ref: torch.Tensor, ncl: int) -> dict[str, int]:
        return self.kernel.config(self.ref, ncl)  # the real tensor's configuration, not the meta one's

    def launch(
        self, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor, dims: Sequence[int] = (),
        zero_init: bool = False, reds: Sequence[int] = (), alt: Alt = NO_ALT,
    ) -> None:
        self.launched = BackwardLaunch(tuple(a.dtype for a in args), T, ncl, tuple(dims), zero_init, tuple(reds), alt)


def _like(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return torch.empty_like(x, dtype=dtype, device=_META)  # x's strides: the launch's memory order


def guess_backward_launch(
    plan: TrainingPlan, flat_args: Sequence[torch.Tensor], derived_backward: DerivedBackward
) -> BackwardLaunch | None:
    """The launch the backward of a training call on ``flat_args`` makes, when it gets the usual gradients.

    ``flat_args``: the training op's inputs (sequences ``[T, *S]``, initial
    states if passed, static inputs); ``derived_backward``:
    :func:`flexsn_runtime.op_autograd.derived_backward`, run here on meta
    tensors. The usual gradients: one for every floating output, none for
    the states. ``None`` when that backward launches nothing (``T = 0``).
    """
    x = flat_args[0]
    if x.dim() == 0 or x.numel() == 0:  # nothing to launch
        return None
    call = TrainingCall(plan, flat_args)
    # the forward's outputs as meta tensors in the op's order, allocated as the forward allocates them (shape: a
    # recomputing pair's checkpoint rows have their own; memory order: the launch's): each kernel return in its place
    fwd, info = plan.forward, plan.info
    order = call_order(flat_args, info.num_static)
    output = [_like(x, x.dtype)] * (max(plan.output_of_return.values(), default=-1) + 1)
    for k, j in plan.output_of_return.items():
        shape = stored_shape(info, k, x.shape) if plan.final_state else x.shape
        output[j] = empty_in_order(shape, order, fwd.output_dtype(k, x), _META)
    saved = call.restore(call.saved([_like(t, t.dtype) for t in flat_args], output), _like(x[0], x.dtype))
    grads: list[torch.Tensor | None] = []
    for k in range(plan.n_outputs):
        dt = fwd.output_dtype(k, x)
        grads.append(_like(x, dt) if dt.is_floating_point else None)
    grads += [None] * plan.n_states
    meta: Spec = (tuple(x.shape), x.dtype, _META)
    statics: list[Spec] = [(shape, dtype, _META) for shape, dtype, _ in call.static_specs]
    recorder = _Recorder(plan.backward, x)
    derived_backward(cast(ScanKernel, recorder), plan, meta, statics, call.explicit, grads, saved, None)
    return recorder.launched


def prewarm_backward(plan: TrainingPlan, flat_args: Sequence[torch.Tensor], derived_backward: DerivedBackward) -> bool:
    """On a plan's first training call, start compiling the backward kernel its backward will launch (module doc).

    Arguments as :func:`guess_backward_launch`. Returns whether a compile
    started: only for CUDA sequences, once per backward kernel, with
    ``FLEXSN_PREWARM`` on.
    """
    if plan.backward.prewarmed:  # launch_training asks first too: one attribute read per call on its path
        return False
    plan.backward.prewarmed = True  # a first call's: later ones find the kernel compiled
    x = flat_args[0]
    if not x.is_cuda or not env_flag(ENV_PREWARM):
        return False
    guess = guess_backward_launch(plan, flat_args, derived_backward)
    if guess is None:
        return False
    return start_compile(plan.backward, guess.dtypes, x, guess.T, guess.ncl, guess.dims, guess.zero_init, guess.reds, guess.alt)
