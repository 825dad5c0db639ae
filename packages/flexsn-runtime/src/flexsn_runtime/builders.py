"""Kernel builders: core function -> compiled scan kernels (SpikingJelly's ``spikingjelly.activation_based.triton_kernel.flexsn`` kernel builders)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from flexsn_codegen import (
    Hoisted,
    backward_invariant_sources,
    UnsupportedOpError,
    generate_triton_code_str,
    render_backward_kernel,
    render_forward_kernel,
    render_inference_kernel,
    sanitize_name,
)
from flexsn_trace import (
    CarrierGraphs,
    arithmetic_signature,
    FlexSNInfo,
    check_counts,
    check_tensor_list,
    extract_info,
    generate_inference_graph,
    generate_joint_graph,
    graph_output_nodes,
    split_invariants,
    trace_training_graphs,
)

from .registry import TrainingKernels
from .scan_kernel import ScanKernel, elements_per_thread

__all__ = [
    "build_inference_final_state_kernel",
    "build_inference_kernel",
    "build_inference_kernels",
    "build_training_kernels",
    "build_training_variants",
    "default_example_inputs",
    "dtype_dependence",
    "tracing_examples",
]


def default_example_inputs(num_inputs: int, num_states: int) -> tuple[torch.Tensor, ...]:
    """Example tensors used for tracing when none are given: ``[4]`` fp32 CPU zeros each.

    Tracing only records the ops, so any per-step shape works for an
    elementwise core; CPU keeps building possible without a GPU.
    """
    return tuple(torch.zeros(4) for _ in range(num_inputs + num_states))


def _check_arity(num_inputs: int, num_states: int, num_outputs: int) -> None:
    check_counts(num_inputs, num_states, num_outputs, who="FlexSN kernel builder", need_result=True)


def tracing_examples(
    example_inputs: Sequence[torch.Tensor] | None, num_inputs: int, num_states: int, num_static: int = 0
) -> tuple[torch.Tensor, ...]:
    """The tracing examples: one per input and state, then one per static input.

    A static input is traced at the inputs' example shape (its dtype from
    its example when given, else float32): the step function is
    elementwise, and the kernels read a static input of any broadcasting
    shape through its layout (:mod:`flexsn_runtime.statics`).
    """
    n = num_inputs + num_states
    if example_inputs is None:
        examples = default_example_inputs(num_inputs, num_states)
        return (*examples, *(torch.zeros_like(examples[0]) for _ in range(num_static)))
    items = tuple(example_inputs)
    if num_static and len(items) == n + num_static:
        items, static_examples = items[:n], items[n:]
    else:
        static_examples = ()
    examples = check_tensor_list(
        items, "example_inputs", n,
        f"example_inputs must hold num_inputs + num_states = {n} tensors (one step of each input, then each state"
        + (f", optionally then one per static input: {n + num_static}" if num_static else "") + ")",
    )
    if len({e.numel() for e in examples}) > 1:
        raise ValueError(
            "example_inputs must all have the same number of elements (one step of each input and state, one "
            f"per-step shape), got shapes {[tuple(e.shape) for e in examples]}"
        )
    x = examples[0].detach()
    dtypes = [w.dtype for w in static_examples] or [torch.float32] * num_static
    return (*(e.detach() for e in examples), *(torch.zeros(x.shape, dtype=dt, device=x.device) for dt in dtypes))


def _check_returns(count: int, num_outputs: int, num_states: int) -> None:
    if count != num_outputs + num_states:
        raise ValueError(
            f"the core returned {count} values, expected num_outputs + num_states = {num_outputs + num_states}"
        )


def _name(core_fn: Callable[..., Any], suffix: str) -> str:
    return sanitize_name(f"{getattr(core_fn, '__name__', 'core')}_{suffix}")


def output_dtypes(graph: Any, num_outputs: int) -> tuple[torch.dtype | None, ...]:
    """The dtype each of a traced step's first ``num_outputs`` results is stored in.

    ``None`` for a floating result (it follows the inputs' dtype at run time,
    as PyTorch's type promotion does); the traced dtype for a bool or integer
    result (a spike returned as ``x >= 1``, a count).
    """
    dtypes: list[torch.dtype | None] = []
    for node in graph_output_nodes(graph)[:num_outputs]:
        val = getattr(node, "meta", {}).get("val")
        dt = val.dtype if isinstance(val, torch.Tensor) else None
        dtypes.append(None if dt is None or dt.is_floating_point else dt)
    return tuple(dtypes)


def forward_dtypes(dtypes: Sequence[torch.dtype | None], info: FlexSNInfo) -> tuple[torch.dtype | None, ...]:
    """The training forward kernel's return dtypes: ``dtypes`` (the outputs'), and float32 for a carrier.

    The backward restates states and recovers inputs from the carrier
    (:mod:`flexsn_trace.carrier`): stored in float32, it is the forward's own
    value, so spikes and resets recomputed from it are the forward's in every dtype.
    """
    out = list(dtypes)
    if info.carrier >= 0:
        out += [None] * (info.carrier + 1 - len(out))
        out[info.carrier] = torch.float32
    return tuple(out)


def _codegen(graph: Any, name: str, static_positions: Sequence[int]) -> tuple[str, str, Hoisted | None]:
    """Triton source of a step graph, with what it computes from static inputs alone hoisted into a prologue.

    Returns ``(step_code, step_name, hoisted)`` (:func:`flexsn_trace.split_invariants`; ``hoisted``
    is ``None`` when nothing is invariant).
    """
    split = split_invariants(graph, static_positions) if static_positions else None
    if split is None or split.prologue is None:
        code, fn = generate_triton_code_str(graph, name)
        return code, fn, None
    code, fn = generate_triton_code_str(split.loop, name)
    pro_code, pro_fn = generate_triton_code_str(split.prologue, f"{name}_invariants")
    return code, fn, (pro_code, pro_fn, split.num_invariants)


def _trace_inference(
    core_fn: Callable[..., Any], arity: tuple[int, int, int], example_inputs: Sequence[torch.Tensor] | None,
    num_static: int = 0,
) -> tuple[str, str, FlexSNInfo, tuple[torch.dtype | None, ...], Hoisted | None]:
    """Trace ``core_fn`` for inference: ``(step_code, step_name, info)``.

    Raises:
        flexsn_codegen.UnsupportedOpError: an op without a lowering, or a core
            whose arithmetic depends on the per-step shape (:func:`_check_shape_free`).
    """
    num_inputs, num_states, num_outputs = arity
    _check_arity(num_inputs, num_states, num_outputs)
    examples = tracing_examples(example_inputs, num_inputs, num_states, num_static)
    graph = generate_inference_graph(core_fn, examples)
    _check_returns(len(graph_output_nodes(graph)), num_outputs, num_states)
    info = extract_info(graph, num_inputs, num_states, num_outputs, num_static)
    full_code, _ = generate_triton_code_str(graph, _name(core_fn, "step"))
    _check_shape_free(core_fn, examples, full_code)
    first = num_inputs + num_states
    step_code, step_name, hoisted = _codegen(graph, _name(core_fn, "step"), range(first, first + num_static))
    return step_code, step_name, info, output_dtypes(graph, num_outputs), hoisted


def _check_shape_free(core_fn: Callable[..., Any], examples: tuple[torch.Tensor, ...], step_code: str) -> None:
    """Refuse a core whose traced arithmetic changes with the per-step shape (e.g. ``x / x.shape[-1]``).

    The kernels run one traced step at every shape, so a shape read while
    tracing would be baked in as a constant: the core is traced again at
    every dimension plus one, and the two step functions must be the same.
    A core that cannot run at the other shape is left to the first trace.

    Raises:
        flexsn_codegen.UnsupportedOpError: the two traces differ.
    """
    try:
        code, _ = generate_triton_code_str(generate_inference_graph(core_fn, _larger(examples)), _name(core_fn, "step"))
    except Exception:  # noqa: BLE001 - the core only runs at its example shape: nothing to compare
        return
    if code != step_code:
        shapes = [tuple(e.shape) for e in examples]
        raise UnsupportedOpError(
            "a shape-dependent step",
            f"traced at per-step shapes {shapes} and one larger, the core computes different values "
            "(it reads a tensor's shape, e.g. x.shape[-1], or draws a Python random number, e.g. random.random(), "
            "which a trace would bake in); the fused kernels run one traced step at every shape and call",
        )


def dtype_dependence(
    core_fn: Callable[..., Any], arity: tuple[int, int], example_inputs: Sequence[torch.Tensor] | None,
    num_static: int, dtype: torch.dtype, training: bool = False,
) -> str | None:
    """Why kernels traced from ``core_fn`` at its examples' dtype cannot run sequences of ``dtype``, or ``None``.

    The kernels run one traced step at every storage dtype (float32 arithmetic), so a dtype read while
    tracing (``torch.finfo(x.dtype).eps``, ``if x.dtype == torch.bfloat16``) would be baked in. The core
    is traced again with its inputs and states in ``dtype`` (static inputs as they are) and the two steps'
    :func:`flexsn_trace.arithmetic_signature` compared: conversions and rounding may differ, nothing else.
    With ``training`` the step and its gradient are traced together (:func:`flexsn_trace.generate_joint_graph`),
    so a custom ``torch.autograd.Function`` whose backward alone reads the dtype shows too.
    A core that cannot be traced at ``dtype`` is left to the eager loop's own error (``None``).

    Args:
        arity: ``(num_inputs, num_states)``.
        example_inputs: the tracing examples the kernels were built from (``None``: the defaults).
        training: compare the gradient's trace as well (a call that trains).
    """
    num_inputs, num_states = arity
    examples = tracing_examples(example_inputs, num_inputs, num_states, num_static)
    n, traced = num_inputs + num_states, examples[0].dtype
    if dtype == traced:
        return None
    trace = generate_joint_graph if training else generate_inference_graph
    try:
        there = trace(core_fn, (*(e.to(dtype) for e in examples[:n]), *examples[n:]))
        here = trace(core_fn, examples)
    except Exception:  # noqa: BLE001 - the core fails at that dtype: the loop raises its own error
        return None
    if arithmetic_signature(here) == arithmetic_signature(there):
        return None
    part = "step" if not training or dtype_dependence(core_fn, arity, example_inputs, num_static, dtype) else "gradient"
    return (
        f"the core computes a different {part} for {dtype} sequences than for {traced} ones, at which the kernels "
        "were traced (it reads a tensor's dtype, e.g. torch.finfo(x.dtype).eps, if x.dtype == ..., or "
        "torch.nan_to_num's posinf/neginf, whose defaults are the dtype's largest values"
        + (", in a custom torch.autograd.Function's backward" if part == "gradient" else "")
        + "); the fused kernels run one traced step at every dtype"
    )


def build_inference_kernels(
    core_fn: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
    example_inputs: Sequence[torch.Tensor] | None = None, num_static: int = 0,
) -> tuple[ScanKernel, ScanKernel, FlexSNInfo]:
    """Trace once, render both inference kernels: ``(sequences, final_state, info)``.

    Same arguments and errors as :func:`build_inference_kernel`; ``num_static``
    static inputs follow the states in ``core_fn``'s arguments (and,
    optionally, in ``example_inputs``, for their dtypes).
    """
    arity = (num_inputs, num_states, num_outputs)
    step_code, step_name, info, dtypes, hoisted = _trace_inference(core_fn, arity, example_inputs, num_static)
    seq = render_inference_kernel(step_code, step_name, *arity, False, num_static, hoisted)
    fin = render_inference_kernel(step_code, step_name, *arity, True, num_static, hoisted)
    return (
        ScanKernel(*seq, "inference", output_dtypes=dtypes),
        ScanKernel(*fin, "inference_final_state", output_dtypes=dtypes),
        info,
    )


def build_inference_kernel(
    core_fn: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
    example_inputs: Sequence[torch.Tensor] | None = None, final_state_only: bool = False,
) -> tuple[ScanKernel, FlexSNInfo]:
    """Build the single-pass inference scan kernel (no autograd; SpikingJelly's ``build_inference_kernel``).

    Args:
        core_fn: ``(*inputs, *states) -> (*outputs, *new_states)`` on per-step
            tensors of one shape.
        num_inputs, num_states, num_outputs: its arity (``num_inputs >= 1``).
        example_inputs: one per-step tensor per input and state for tracing;
            default ``[4]`` fp32 CPU tensors.
        final_state_only: build the variant that stores final states only.

    Returns:
        ``(kernel, info)``; ``kernel`` follows the inference calling
        convention of :mod:`flexsn_codegen.templates`.

    Raises:
        TypeError / ValueError: bad arity or examples, or the core returns
            the wrong number of values.
        flexsn_codegen.UnsupportedOpError: the core uses an op with no
            Triton lowering.
    """
    arity = (num_inputs, num_states, num_outputs)
    step_code, step_name, info, dtypes, _ = _trace_inference(core_fn, arity, example_inputs)
    code, name = render_inference_kernel(step_code, step_name, *arity, final_state_only)
    return ScanKernel(code, name, "inference_final_state" if final_state_only else "inference", output_dtypes=dtypes), info


def build_inference_final_state_kernel(
    core_fn: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
    example_inputs: Sequence[torch.Tensor] | None = None,
) -> tuple[ScanKernel, FlexSNInfo]:
    """SpikingJelly's name for :func:`build_inference_kernel` with ``final_state_only=True``.

    Same arguments, returns and errors as :func:`build_inference_kernel`.
    """
    return build_inference_kernel(core_fn, num_inputs, num_states, num_outputs, example_inputs, True)


def build_training_kernels(
    core_fn: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
    example_inputs: Sequence[torch.Tensor] | None = None, requires_grad: Sequence[bool] | None = None,
    num_static: int = 0,
) -> tuple[ScanKernel, ScanKernel, FlexSNInfo]:
    """Build the BPTT forward and reverse-time backward kernels.

    Traces ``core_fn`` with ``aot_function`` (min-cut rematerialization),
    then drops saved values the backward step can recompute. Outputs
    without gradient (hard thresholds) have no tangent in the AOT backward
    graph; the rendered backward kernel keeps the full calling convention
    anyway (SpikingJelly's shim).

    Args:
        core_fn, num_inputs, num_states, num_outputs, example_inputs: as in
            :func:`build_inference_kernel`.
        requires_grad: per input/state flags; ``None`` = all floating.
            Only the input flags can drop gradients: states always carry
            them through time (an initial state's flag only decides whether
            autograd keeps its gradient). Static inputs are always traced
            as differentiable (a gradient nobody asks for is dropped).
        num_static: as in :func:`build_inference_kernels`.

    Returns:
        ``(forward_kernel, backward_kernel, info)``, for sequences of any
        dtype. The kernels carry their final-state variants
        (``.final_state``) used when state sequences are not stored.
        :func:`build_training_variants` also gives the pair 16-bit
        sequences run faster on.

    Raises:
        TypeError / ValueError: as :func:`build_inference_kernel`, or no
            output is differentiable.
        flexsn_codegen.UnsupportedOpError: an op has no lowering.
    """
    full, _ = build_training_variants(core_fn, num_inputs, num_states, num_outputs, example_inputs, requires_grad, num_static)
    return full.forward, full.backward, full.info


def build_training_variants(
    core_fn: Callable[..., Any], num_inputs: int, num_states: int, num_outputs: int,
    example_inputs: Sequence[torch.Tensor] | None = None, requires_grad: Sequence[bool] | None = None,
    num_static: int = 0,
) -> tuple[TrainingKernels, TrainingKernels | None]:
    """:func:`build_training_kernels` from one trace, with the variant for 16-bit sequences.

    Returns:
        ``(kernels, half)``: ``kernels`` as :func:`build_training_kernels`
        returns them; ``half`` is ``None``, or the pair float16 / bfloat16
        sequences run (:attr:`flexsn_trace.TrainingGraphs.half_pair`: when
        ``kernels`` save a float32 carrier, the pair that saves the sequences
        it replaces as they are; when they recompute the steps, the
        saved-value pair; :func:`flexsn_runtime.registry.training_kernels` picks).

    Raises:
        As :func:`build_training_kernels`.
    """
    _check_arity(num_inputs, num_states, num_outputs)
    examples = tracing_examples(example_inputs, num_inputs, num_states, num_static)
    flags = None
    if requires_grad is not None:
        flags = [bool(r) for r in requires_grad]
        if len(flags) == num_inputs + num_states:
            # BPTT carries gradients through every (floating) state, whatever the
            # initial state's flag: a state masked out of the per-step trace would
            # cut the path from later outputs back to earlier inputs.
            for j in range(num_states):
                flags[num_inputs + j] = flags[num_inputs + j] or examples[num_inputs + j].is_floating_point()
            flags += [w.is_floating_point() for w in examples[len(flags) :]]
    graphs = trace_training_graphs(core_fn, examples, flags, num_inputs=num_inputs, num_static=num_static)
    _check_returns(graphs.num_results, num_outputs, num_states)
    arity = (num_inputs, num_states, num_outputs, num_static)
    full = _render_training(core_fn, graphs.fwd, graphs.bwd, graphs.tangent_mask, arity, graphs.carrier, graphs.chunk, graphs.reaches)
    _check_training_shape_free(core_fn, examples, flags, arity, full)
    half = None
    if graphs.half_pair is not None:
        half = _render_training(core_fn, *graphs.half_pair, graphs.tangent_mask, arity, None, 1, graphs.reaches)
    return full, half


def _larger(examples: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    """The tracing examples one larger in every dimension (the shape checks' second trace)."""
    return tuple(torch.zeros(tuple(d + 1 for d in e.shape), dtype=e.dtype, device=e.device) for e in examples)


def _check_training_shape_free(
    core_fn: Callable[..., Any], examples: Sequence[torch.Tensor], flags: Sequence[bool] | None,
    arity: tuple[int, int, int, int], kernels: TrainingKernels,
) -> None:
    """Refuse a core whose training kernels change with the per-step shape.

    The inference trace checks the forward arithmetic (:func:`_check_shape_free`);
    a backward can still read a shape the forward does not (a custom
    ``torch.autograd.Function`` whose ``backward`` divides by ``x.shape[-1]``),
    and AOTAutograd would bake it in. So the training trace runs again at every
    dimension plus one and both kernels' sources must be the same. A core that
    cannot be traced at the other shape is left to the first trace.

    Raises:
        flexsn_codegen.UnsupportedOpError: the two traces differ.
    """
    num_inputs, num_states, num_outputs, num_static = arity
    try:
        other = trace_training_graphs(core_fn, _larger(examples), flags, num_inputs=num_inputs, num_static=num_static)
        again = _render_training(core_fn, other.fwd, other.bwd, other.tangent_mask, arity, other.carrier, other.chunk)
    except Exception:  # noqa: BLE001 - the core only runs at its example shape: nothing to compare
        return
    if (again.forward.code, again.backward.code) != (kernels.forward.code, kernels.backward.code):
        shapes = [tuple(e.shape) for e in examples]
        raise UnsupportedOpError(
            "a shape-dependent step",
            f"traced for training at per-step shapes {shapes} and one larger, the forward or backward computes "
            "different values (a backward reads a tensor's shape, e.g. a custom autograd.Function dividing by "
            "x.shape[-1]); the fused kernels run one traced step at every shape",
        )


def _render_training(
    core_fn: Callable[..., Any], fwd_graph: Any, bwd_graph: Any, mask: tuple[bool, ...],
    arity: tuple[int, int, int, int], carrier: CarrierGraphs | None, chunk: int = 1,
    reaches: tuple[tuple[int, ...], ...] = (),
) -> TrainingKernels:
    """Render one forward/backward graph pair as BPTT kernels.

    ``carrier``: its helper graphs, when it saves one; ``chunk``: the steps per chunk of a
    pair whose backward recomputes the steps (:mod:`flexsn_trace.recompute`), else 1;
    ``reaches``: :attr:`flexsn_trace.TrainingGraphs.reaches`, kept in the info.
    """
    num_inputs, num_states, num_outputs, num_static = arity
    info = extract_info(fwd_graph, num_inputs, num_states, num_outputs, num_static)._replace(
        chunk=chunk, differentiable=tuple(mask), reaches=reaches
    )
    rebuild = None
    if carrier is not None:
        info = carrier.info(info)
        guard = carrier.guard
        rebuild = (
            generate_triton_code_str(carrier.restate, _name(core_fn, "restate")),
            None if guard is None else generate_triton_code_str(guard, _name(core_fn, "guard")),
        )
    first = num_inputs + num_states
    fwd_code, fwd_name, fwd_pro = _codegen(fwd_graph, _name(core_fn, "fwd_step"), range(first, first + num_static))
    bwd_code, bwd_name, bwd_pro = _codegen(bwd_graph, _name(core_fn, "bwd_step"), backward_invariant_sources(info))
    dtypes = forward_dtypes(output_dtypes(fwd_graph, num_outputs), info)
    fwd = ScanKernel(*render_forward_kernel(fwd_code, fwd_name, info, False, fwd_pro), "forward", output_dtypes=dtypes)
    fwd.final_state = ScanKernel(
        *render_forward_kernel(fwd_code, fwd_name, info, True, fwd_pro), "forward_final_state", output_dtypes=dtypes
    )
    # a recomputing backward runs the forward step too
    steps = (fwd_code, fwd_name, fwd_pro) if chunk > 1 else None
    per = elements_per_thread("backward", chunk)
    bwd = ScanKernel(*render_backward_kernel(bwd_code, bwd_name, info, mask, False, bwd_pro, rebuild, steps), "backward", per_thread=per)
    bwd.final_state = ScanKernel(
        *render_backward_kernel(bwd_code, bwd_name, info, mask, True, bwd_pro, rebuild, steps), "backward_final_state",
        per_thread=per,
    )
    return TrainingKernels(fwd, bwd, info)
