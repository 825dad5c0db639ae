"""How a :class:`~flexsn_runtime.FlexSNKernel` gets its kernels: traced (or from the trace cache), then registered.

The inference kernels are built with the ``FlexSNKernel``; the training
kernels are left to the handle's training builder and traced on the first
call that needs gradients (:func:`flexsn_runtime.registry.ensure_training_kernels`):
the joint trace and its split (:mod:`flexsn_trace.joint`) are most of a cold
construction's tracing time, and a process that only infers never needs them. Each part has its own
trace-cache entry (:mod:`flexsn_runtime.tracecache`).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import torch

from flexsn_codegen import UnsupportedOpError
from flexsn_trace import (
    Captures, Constants, as_tensor_tuple, find_captures, find_constants, generate_inference_graph, private_generators,
    run_isolated, used_arguments,
)

from .compile_time import constant_under_compile, enrolled
from .builders import build_inference_kernels, build_training_variants, forward_dtypes, tracing_examples
from .registry import (
    FlexSNKernelHandle, TrainingBuild, TrainingKernels, ensure_training_kernels, register_flexsn_kernel_handle, set_bundle_loader,
)
from .routing import warn_fallback
from .scan_kernel import ScanKernel, elements_per_thread
from .tracecache import BUILD_PARTS, core_fingerprint, key_by_prefix, load_build, store_build

__all__ = [
    "build_handle", "bundle_from_builds", "bundle_from_trace_cache", "settled_constants", "trains_fused", "training_reason",
    "used_captures",
]


def build_handle(
    step_fn: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None,
    requires_grad: Sequence[bool] | None, num_static: int, constants: Constants | None = None,
) -> tuple[int | None, str | None]:
    """Build ``step_fn``'s inference kernels and register them with a training builder.

    Args:
        step_fn: the core taking its static inputs (captured tensors lifted) last.
        arity: ``(num_inputs, num_states, num_outputs)``.
        example_inputs: tracing examples (inputs, states, then one per static input), or ``None``.
        requires_grad: the training trace's flags, or ``None``.
        num_static: the static inputs the kernels take.
        constants: the numbers the core reads from outside (:func:`flexsn_trace.find_constants`, found
            just before this trace), kept with the handle for the forward ops' check.

    Returns:
        ``(handle, None)``, or ``(None, reason)`` when the kernels cannot be
        built (an op without a lowering, a core that cannot be traced).

    Raises:
        ValueError / TypeError: the core itself fails on the tracing examples.
    """
    key = core_fingerprint(step_fn, (*arity, num_static), example_inputs, requires_grad)
    build = load_build(key) if key is not None else None
    if build is None:
        build = _build_inference(step_fn, arity, example_inputs, num_static)
        if key is not None:
            store_build(key, build)
    if build["unsupported"] is not None:
        return None, str(build["unsupported"])
    training = functools.partial(_training_kernels, step_fn, arity, example_inputs, requires_grad, num_static, key)
    return _register(build, key, training, step_fn, constants), None


def _register(
    build: dict[str, Any], key: str | None, training: Callable[[tuple[torch.dtype | None, ...]], TrainingBuild],
    step_fn: Callable[..., Any] | None = None, constants: Constants | None = None,
) -> int:
    """Register a build's inference kernels (its ``"inference"`` part) with ``training`` as the training builder.

    ``training`` takes the output dtypes; ``key`` names the trace (``None``: not known), so graphs compiled or
    saved in another process are answered only for the same trace (:mod:`flexsn_runtime.registry`).
    """
    dtypes = tuple(None if d is None else getattr(torch, d) for d in build["output_dtypes"] or ())
    return register_flexsn_kernel_handle(
        inference_kernel=_scan_kernel(build, "inference", dtypes),
        inference_info=build["inference_info"],
        inference_final_state_kernel=_scan_kernel(build, "inference_final_state", dtypes),
        inference_final_state_info=build["inference_info"],
        training=None,
        training_builder=functools.partial(training, dtypes),
        step_fn=step_fn,
        identity=key,
        constants=constants,
    )


def bundle_from_trace_cache(prefix: str) -> bool:
    """Register the kernels of the trace-cache entry whose fingerprint starts with hex ``prefix``; whether it did.

    The registry's bundle loader (:func:`flexsn_runtime.registry.set_bundle_loader`): a program saved by
    ``torch.export.save`` names its kernels by a handle built from their fingerprint
    (:mod:`flexsn_runtime.registry`), and a process that built no such neuron finds them here, when this
    machine's trace cache holds their entry, written by the same torch, Triton and FlexSN
    (:func:`flexsn_runtime.tracecache.key_by_prefix`). The training kernels come from the entry's training part on
    first need; without one, calls that need gradients are refused with that reason. Nothing is traced: there is no
    core here, so the numbers the kernels hold are not watched (a saved program keeps the kernels it was saved with).
    """
    key = key_by_prefix(prefix)
    build = load_build(key) if key is not None else None
    if key is None or build is None or build["unsupported"] is not None:
        return False
    _register(build, key, functools.partial(_cached_training_kernels, key))
    return True


def bundle_from_builds(key: str, inference: dict[str, Any], training: dict[str, Any] | None) -> int:
    """Register the kernels of decoded build parts (:func:`flexsn_runtime.tracecache.decode_entry`) under fingerprint ``key``.

    How a program saved with its kernels (:func:`flexsn_runtime.programs.load_program`) brings them into a process
    that built none of its neurons. ``training``: the training part, or ``None`` (calls that need gradients are then
    refused with that reason). Returns the new handle; the bundle stays registered for the process's life.

    Raises:
        ValueError: the inference part holds no kernels (the neuron ran the eager loop when the program was saved).
    """
    if inference["unsupported"] is not None:
        raise ValueError(f"the saved kernels of trace {key[:10]} are not usable: {inference['unsupported']}")
    return _register(inference, key, functools.partial(_given_training_kernels, training))


def _given_training_kernels(build: dict[str, Any] | None, output_dtypes: tuple[torch.dtype | None, ...]) -> TrainingBuild:
    """The training builder of a bundle registered from carried builds: their training part, or why there is none."""
    if build is None:
        return None, "the saved program carries no training kernels for this neuron; build its neurons first", None
    return _training_build(build, output_dtypes)


def _cached_training_kernels(key: str, output_dtypes: tuple[torch.dtype | None, ...]) -> TrainingBuild:
    """The training builder of a bundle loaded from the trace cache: the entry's training part, or why there is none."""
    build = load_build(key, "training")
    if build is None:
        return None, "the training kernels of this saved program are not in FlexSN's trace cache; build its neurons first", None
    return _training_build(build, output_dtypes)


set_bundle_loader(bundle_from_trace_cache)


def _build_inference(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None, num_static: int
) -> dict[str, Any]:
    """Trace and render the inference kernels of ``core``: the ``"inference"`` part of a build (see tracecache)."""
    build: dict[str, Any] = dict(inference=None, inference_final_state=None, unsupported=None, inference_info=None, output_dtypes=None)
    try:
        inf, fin, info = build_inference_kernels(core, *arity, example_inputs, num_static)
    except UnsupportedOpError as exc:
        build["unsupported"] = str(exc)
        return build
    except ValueError as exc:
        if not str(exc).startswith("tracing the core function failed"):
            raise
        if not _runs_eagerly(core, arity, example_inputs, num_static):
            if example_inputs is None:  # the default [4] examples may be what it fails on (a captured [C] mask)
                raise ValueError(
                    f"{exc} (traced on the default one-step examples of shape [4]: a core that reads a tensor of a "
                    "fixed per-step shape needs example_inputs= of that shape, one step of each input and state)"
                ) from exc
            raise  # the core itself fails: the user's error, raised as it is
        build["unsupported"] = f"the core runs in PyTorch but cannot be traced for the kernels ({_plain(exc)})"
        return build
    build.update(inference=[inf.code, inf.name], inference_final_state=[fin.code, fin.name], inference_info=info)
    # stored by name: None (the inputs' dtype) or e.g. "bool" (see ScanKernel.output_dtypes)
    build["output_dtypes"] = [None if d is None else str(d).removeprefix("torch.") for d in inf.output_dtypes]
    return build


def _build_training(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None,
    requires_grad: Sequence[bool] | None, num_static: int,
) -> dict[str, Any]:
    """Trace and render the BPTT kernels of ``core`` (whose inference trace worked): the ``"training"`` part of a build."""
    kernels, _, infos = BUILD_PARTS["training"]
    build: dict[str, Any] = dict.fromkeys((*kernels, *infos, "training_unsupported"))
    try:
        full, half = build_training_variants(core, *arity, example_inputs, requires_grad, num_static)
    except UnsupportedOpError as exc:
        # inference still runs fused; calls that need gradients run the eager loop
        build["training_unsupported"] = f"{exc} (in the backward pass)"
        return build
    except ValueError as exc:
        if "differentiable" in str(exc):
            return build  # no gradient flows through this core: inference kernels serve every call
        # the inference trace of the same core worked: a limit of the training trace (an op
        # without an autograd formula, e.g. torch.heaviside), not a mistake in the core
        build["training_unsupported"] = f"the training trace failed ({_plain(exc)})"
        return build
    for prefix, pair in (("", full), ("half_", half)):
        if pair is None:
            continue
        fwd, bwd, info = pair
        assert fwd.final_state is not None and bwd.final_state is not None
        build.update({
            f"{prefix}forward": [fwd.code, fwd.name],
            f"{prefix}forward_final_state": [fwd.final_state.code, fwd.final_state.name],
            f"{prefix}backward": [bwd.code, bwd.name],
            f"{prefix}backward_final_state": [bwd.final_state.code, bwd.final_state.name],
            f"{prefix}training_info": info,
        })
    return build


def _training_kernels(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None,
    requires_grad: Sequence[bool] | None, num_static: int, key: str | None, output_dtypes: tuple[torch.dtype | None, ...],
) -> TrainingBuild:
    """A handle's training builder (:func:`flexsn_runtime.registry.ensure_training_kernels`): from the trace cache, else traced.

    Traced on a thread of its own (:func:`flexsn_trace.run_isolated`): the
    first call that needs gradients may come while ``torch.compile`` traces
    the caller. Warns once when calls needing gradients must run the eager
    loop. Holds no reference to the ``FlexSNKernel`` (the registry keeps it).
    """
    build = load_build(key, "training") if key is not None else None
    if build is None:
        build = run_isolated(lambda: _build_training(core, arity, example_inputs, requires_grad, num_static), "flexsn-training-build")
        if key is not None:
            store_build(key, build, "training")
    reason = build["training_unsupported"]
    if reason is not None:
        warn_fallback(set(), f"{reason}; calls that need gradients run the eager PyTorch loop", stacklevel=6)
    return _training_build(build, output_dtypes)


def _training_build(build: dict[str, Any], output_dtypes: tuple[torch.dtype | None, ...]) -> TrainingBuild:
    """A build's training part as a training builder returns it: the pair, why there is none, the 16-bit pair."""
    return _training_pair(build, "", output_dtypes), build["training_unsupported"], _training_pair(build, "half_", output_dtypes)


def _training_pair(build: dict[str, Any], prefix: str, output_dtypes: tuple[torch.dtype | None, ...]) -> TrainingKernels | None:
    """The training pair stored under ``prefix`` in a build's training part (see ``BUILD_PARTS``), or ``None``."""
    info = build[f"{prefix}training_info"]
    fwd_dtypes = output_dtypes if info is None else forward_dtypes(output_dtypes, info)
    chunk = 1 if info is None else info.chunk
    fwd, bwd = _scan_kernel(build, f"{prefix}forward", fwd_dtypes), _scan_kernel(build, f"{prefix}backward", output_dtypes, chunk)
    if fwd is None or bwd is None or info is None:
        return None
    fwd.final_state = _scan_kernel(build, f"{prefix}forward_final_state", fwd_dtypes)
    bwd.final_state = _scan_kernel(build, f"{prefix}backward_final_state", output_dtypes, chunk)
    return TrainingKernels(fwd, bwd, info)


def _training_bundle(serial: str) -> FlexSNKernelHandle | None:
    """The bundle of the kernel ``serial`` names (:func:`flexsn_runtime.compile_time.enrol`), its training kernels
    built if left for later; ``None`` when the kernel is gone or has no handle."""
    handle = getattr(enrolled(serial), "handle", None)
    return None if handle is None else ensure_training_kernels(handle)


@constant_under_compile
def trains_fused(serial: str) -> bool:
    """Whether the kernel ``serial`` names has training kernels (built now if left for later).

    A constant to ``torch.compile``: Dynamo runs it once while tracing instead of tracing into the build. It takes
    the kernel's serial name, not its handle: under ``torch.compile(dynamic=True)`` an ``int`` read from an object
    is a symbolic value, which Dynamo cannot hand to such a function (:mod:`flexsn_runtime.compile_time`).
    """
    bundle = _training_bundle(serial)
    return bundle is not None and bundle.training is not None


@constant_under_compile
def training_reason(serial: str) -> str | None:
    """Why the named kernel's calls that need gradients run the eager loop (``None``: they do not); as :func:`trains_fused`."""
    bundle = _training_bundle(serial)
    return None if bundle is None else bundle.training_unsupported


def _runs_eagerly(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None, num_static: int = 0
) -> bool:
    """Whether ``core`` runs in plain PyTorch on the tracing examples and returns the right count."""
    examples = tracing_examples(example_inputs, arity[0], arity[1], num_static)
    try:
        with torch.no_grad(), private_generators():
            as_tensor_tuple(core(*examples), "the core", arity[1] + arity[2])
    except Exception:  # noqa: BLE001 - any failure means the core, not the tracer, is at fault
        return False
    return True


def settled_constants(
    core: Callable[..., Any], step_fn: Callable[..., Any], arity: tuple[int, int, int],
    example_inputs: Sequence[torch.Tensor] | None, num_static: int,
) -> tuple[Constants, str | None]:
    """The numbers ``core`` reads from outside its arguments (:func:`flexsn_trace.find_constants`), and why fused
    kernels cannot keep them (``None``: they can). ``step_fn`` is the core the kernels are traced from (its captured
    tensors lifted, taking ``num_static`` static inputs last: stand-ins on the examples' device, so that a core
    capturing CUDA tensors steps on CPU examples as its trace does).

    A core that changes a place it also reads (``C.n += 1``; ``RECORD.append(v)``, whose length is watched) gives the
    eager loop a new value at each step, while fused kernels keep the one they were traced with, and every call
    would find it changed and trace them again. When the core reads such numbers, one eager step on the tracing
    examples tells, whether or not the side-effect search (:func:`flexsn_trace.side_effects.side_effects`) saw the
    statement (``for log in LOGS: log.append(h)`` it does not): a watched place that moves on a second step is not a
    constant of the kernels (a flag set on the first step settles; a counter never does). The step runs whether or
    not the kernels then come from the trace cache, so the answer does not depend on the cache, and draws nothing
    from the caller's generators (:func:`flexsn_trace.private_generators`). On a reason the constants come back
    without items: the eager loop reads them itself.
    """
    constants = find_constants(core)
    moved = _moved_by_a_step(step_fn, arity, example_inputs, num_static, constants)
    if moved:  # once more, from where that step left them
        constants = find_constants(core)
        moved = _moved_by_a_step(step_fn, arity, example_inputs, num_static, constants)
    if not moved:
        return constants, None
    return Constants([], [], constants.unwatched, constants.side_effects), (
        f"FlexSN: a step of the core changes numbers it also reads ({', '.join(moved)}): the eager loop reads the new "
        "value at each step, while fused kernels would keep the one they were traced with (to run fused, keep such "
        "bookkeeping out of the core, e.g. count calls in the module's forward, and pass a number that changes as a "
        "static input)"
    )


def _moved_by_a_step(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None, num_static: int,
    constants: Constants,
) -> list[str]:
    """The watched numbers of ``constants`` one eager step of ``core`` changes, its backward included (a surrogate's
    ``backward`` counting its calls: the training trace runs it); ``[]`` without any, or when the step fails (the
    trace then says why). A step whose backward fails (an in-place write to an input) is run forward only."""
    if not constants.items:
        return []
    examples = tracing_examples(example_inputs, arity[0], arity[1], num_static)
    for backward in (True, False):
        try:
            with torch.set_grad_enabled(backward), private_generators():
                leaves = [e.detach().requires_grad_(backward and e.is_floating_point()) for e in examples]
                result = core(*leaves)
                if backward:
                    outs = [o for o in (result if isinstance(result, (tuple, list)) else (result,))
                            if isinstance(o, torch.Tensor) and o.requires_grad]
                    sources = [t for t in leaves if t.requires_grad]
                    if outs and sources:
                        torch.autograd.grad(outs, sources, [torch.ones_like(o) for o in outs], allow_unused=True)
            return constants.changed()
        except Exception:  # noqa: BLE001 - the build traces the core next and reports its own problem
            continue
    return []


def used_captures(
    core: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None, num_static: int
) -> Captures:
    """The floating tensors ``core`` captures (:func:`flexsn_trace.find_captures`) that its traced step reads.

    Empty when there are none, or when the lifted core cannot be traced (the
    build then reports the core's own problem).
    """
    found = find_captures(core)
    if not len(found):
        return found
    examples = tracing_examples(example_inputs, arity[0], arity[1], num_static)
    x = examples[0]
    # on the examples' device: a user's CUDA example_inputs beside CPU stand-ins failed this trace, and lifted nothing
    lifted = (*examples, *(torch.zeros(x.shape, dtype=w.dtype, device=x.device) for w in found.values()))
    try:
        graph = generate_inference_graph(found.lifted(), lifted)
    except Exception:  # noqa: BLE001 - a core that does not trace this way: build it as it is
        return found.select([False] * len(found))
    return found.select(used_arguments(graph, len(examples)))


def _plain(exc: BaseException) -> str:
    """A tracing error in the user's terms (what the core did, not the tracer's internals)."""
    text = str(exc)
    if "FakeTensor" in text:
        return "the core uses a tensor it captures from outside (a closure or global); pass it as an input or state"
    if "data-dependent" in text or "_local_scalar_dense" in text:
        return ("the core reads tensor values on the host (a Python `if`, `bool()`, `.item()`, `.tolist()` or "
                "`.numpy()` on a tensor); "
                "write the branch with torch.where so every element takes both paths")
    return text


def _scan_kernel(
    build: dict[str, Any], name: str, output_dtypes: tuple[torch.dtype | None, ...], chunk: int = 1
) -> ScanKernel | None:
    entry = build.get(name)
    if entry is None:
        return None
    code, fn_name = entry
    return ScanKernel(str(code), str(fn_name), name, output_dtypes=output_dtypes, per_thread=elements_per_thread(name, chunk))
