"""Trace a single-step neuron function into aten-level FX graphs.

Behaviour follows SpikingJelly's ``spikingjelly.activation_based.triton_kernel.torch2triton.torch2graph``
(``make_fx`` for the inference graph, ``aot_function`` with min-cut
rematerialization for the forward/backward pair used by BPTT training), with
our own recorder (:mod:`flexsn_trace.recorder`) in ``make_fx``'s place and a
joint trace split by a minimum cut (:mod:`flexsn_trace.joint`) in
AOTAutograd's: both of torch's import its compiler (``torch._dynamo``), seconds
before a fresh process's first kernel.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, ParamSpec, Sequence, TypeVar

import torch
from torch import fx

from .carrier import CarrierGraphs, find_carrier
from .contract import as_tensor_tuple
from .env import env_flag
from .info import graph_output_nodes
from .joint import partition_joint, trace_joint
from .masked import masked_writes_to_where
from .reach import reached_arguments
from .recompute import prefer_recompute
from .recorder import functional_in_place, record
from .saved import minimize_saved

__all__ = [
    "TrainingGraphs",
    "generate_forward_and_backward_graph",
    "generate_inference_graph",
    "generate_joint_graph",
    "private_generators",
    "trace_training_graphs",
]


#: torch.fx's tracer patches module-level state while it runs (its ``_Patcher``):
#: two threads tracing at once break each other, so tracing is serialized.
_TRACE_LOCK = threading.RLock()
_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextlib.contextmanager
def private_generators() -> Iterator[None]:
    """A block whose random draws leave the caller's generators as they were (:func:`torch.random.fork_rng`): the
    CPU generator, and the current CUDA device's once CUDA is initialized (not while a CUDA graph is captured).

    A trace, or a probing step, runs the core on example tensors. A core that draws (``torch.rand_like``) would
    otherwise move the generator, so that building a neuron changed what a network built after it draws (its
    initial weights), unlike ``backend="torch"``, which traces nothing.
    """
    # not torch.cuda.is_available() alone: forking an uninitialised device would create its context
    initialised = torch.cuda.is_available() and torch.cuda.is_initialized()  # type: ignore[no-untyped-call]
    cuda = initialised and not torch.cuda.is_current_stream_capturing()
    with torch.random.fork_rng(devices=[torch.cuda.current_device()] if cuda else []):
        yield


def _serialized(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` holding the process-wide tracing lock, its draws kept from the caller's generators."""

    @functools.wraps(fn)
    def locked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _TRACE_LOCK, private_generators():
            return fn(*args, **kwargs)

    return locked


def _check_example_inputs(example_inputs: Sequence[Any]) -> tuple[torch.Tensor, ...]:
    if not isinstance(example_inputs, (list, tuple)):
        raise TypeError(
            f"example_inputs must be a tuple of tensors, got {type(example_inputs).__name__}"
        )
    for i, e in enumerate(example_inputs):
        if not isinstance(e, torch.Tensor):
            raise TypeError(f"example_inputs[{i}] must be a torch.Tensor, got {type(e).__name__}")
    return tuple(example_inputs)


def _distinct(examples: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """Clone repeated example tensors.

    The recorder maps tensors to graph placeholders by identity: passing one
    tensor for two arguments (``(torch.zeros(4),) * 2``) would make every
    use of the first argument read the second one.
    """
    seen: set[int] = set()
    out = []
    for e in examples:
        out.append(e.clone() if id(e) in seen else e)
        seen.add(id(e))
    return tuple(out)


def _unaliased(fn: Callable[..., Any]) -> Callable[..., tuple[torch.Tensor, ...]]:
    """Wrap ``fn`` so no output aliases an input or another output.

    An output that is an input (or a view of one) would be a placeholder or a
    view node, not a value the kernels store as a result of the step; a clone
    keeps every output a computed node (and lowers to a plain copy).
    """

    def wrapped(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        outs = as_tensor_tuple(fn(*args), "the core function", error=ValueError)
        seen: set[int] = {id(a) for a in args}
        fixed = []
        for o in outs:
            if id(o) in seen or o._base is not None:
                o = o.clone()
            seen.add(id(o))
            fixed.append(o)
        return tuple(fixed)

    return wrapped


def _clean(graph: fx.Graph) -> fx.Graph:
    graph.eliminate_dead_code()
    graph.lint()
    return graph


@_serialized
def generate_inference_graph(fn: Callable[..., Any], example_inputs: Sequence[torch.Tensor]) -> fx.Graph:
    """Trace ``fn`` for inference into an aten-level FX graph.

    Args:
        fn: a callable on tensors, e.g. a neuron core
            ``(*inputs, *states) -> (*outputs, *new_states)``.
        example_inputs: tensors (any shape/dtype/device, usually small fp32
            CPU tensors) used for tracing; the graph has one placeholder each.

    Returns:
        ``torch.fx.Graph`` whose output node returns a tuple of all results
        in order. In-place operations are functionalized away.

    Raises:
        TypeError: ``example_inputs`` is not a tuple of tensors.
        ValueError: ``fn`` does not return a tensor / tuple of tensors, or
            tracing fails (the message carries the original error).
    """
    examples = _distinct(_check_example_inputs(example_inputs))
    wrapped = _unaliased(fn)
    with _core_errors("tracing the core function"), torch.no_grad():
        gm = record(wrapped, examples)
        if not functional_in_place(gm.graph):
            # Only now pay for functionalization: it rejects old-style
            # autograd.Functions (no setup_context), common in surrogates.
            gm = record(torch.func.functionalize(wrapped, remove="mutations_and_views"), examples)
    masked_writes_to_where(gm.graph)
    return _clean(gm.graph)


@dataclass(frozen=True)
class TrainingGraphs:
    """Forward and backward graphs of one step, plus which gradients exist.

    Attributes:
        fwd: ``[*inputs, *states] -> [*outputs, *new_states, *saved]``.
        bwd: ``[*saved, *tangents] -> [*grad_inputs, *grad_states]``; one
            tangent per *differentiable* forward result (see ``tangent_mask``).
        tangent_mask: for each of the ``len(results)`` forward results,
            whether the backward graph takes a gradient for it (hard
            thresholds yield ``False``).
        grad_mask: for each example input, whether the backward graph
            produces a gradient (``False`` entries are ``None`` outputs).
        num_results: number of values ``fn`` returns.
        carrier: when the pair saves one carrier sequence
            (:func:`flexsn_trace.carrier.find_carrier`), its helper graphs;
            ``fwd`` and ``bwd`` are then its pair.
        half_pair: ``None``, or the ``(fwd, bwd)`` pair 16-bit sequences run:
            with a carrier, the pair without it (the sequences it replaces
            saved as they are: a float32 carrier moves more bytes than the two
            16-bit sequences it replaces); with ``chunk > 1``, the saved-value
            pair without a carrier (on half the bytes the recomputing
            backward's arithmetic shows: ``tools/results/gpu-2026-12-04/``).
        chunk: 1, or the chunk length of a pair whose backward recomputes
            the steps from states stored every ``chunk`` steps
            (:mod:`flexsn_trace.recompute`; no carrier then).
        reaches: per forward result, the example inputs that reach it through
            differentiable ops (:func:`flexsn_trace.reach.reached_arguments`),
            so that a call can tell which results require grad as the loop's do.
    """

    fwd: fx.Graph
    bwd: fx.Graph
    tangent_mask: tuple[bool, ...]
    grad_mask: tuple[bool, ...]
    num_results: int
    carrier: CarrierGraphs | None = None
    half_pair: tuple[fx.Graph, fx.Graph] | None = None
    chunk: int = 1
    reaches: tuple[tuple[int, ...], ...] = ()


@contextlib.contextmanager
def _core_errors(what: str) -> Iterator[None]:
    """Errors from running arbitrary user code while tracing, as a ``ValueError`` that carries them.

    A ``ValueError`` passes as it is (ours already say what failed).
    """
    try:
        yield
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"{what} failed: {type(exc).__name__}: {exc}") from exc


def _joint(
    wrapped: Callable[..., tuple[torch.Tensor, ...]], examples: tuple[torch.Tensor, ...], flags: tuple[bool, ...]
) -> tuple[tuple[torch.Tensor, ...], fx.GraphModule, tuple[tuple[int, ...], ...]]:
    """The step's results on ``examples`` with gradients enabled, its joint trace (:func:`flexsn_trace.joint.trace_joint`),
    and per result the arguments that reach it (:func:`flexsn_trace.reach.reached_arguments`).

    Raises:
        ValueError: no result is differentiable with respect to the inputs ``flags`` marks, or the core
            fails (the message carries the original error).
    """
    leaves = tuple(e.detach().clone().requires_grad_(f) for e, f in zip(examples, flags))
    # Which results carry gradient decides which tangents the backward takes.
    with _core_errors("tracing the core function for training"), torch.enable_grad():
        probe = wrapped(*leaves)
    if not any(o.requires_grad for o in probe):
        raise ValueError(
            "no output of the core function is differentiable with respect to the inputs "
            f"marked requires_grad={list(flags)}"
        )
    with _core_errors("tracing the core function for training"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the probe above showed the core's own warnings once
        joint = trace_joint(wrapped, examples, flags, probe)
    return probe, joint, reached_arguments(probe, leaves)


@_serialized
def generate_joint_graph(fn: Callable[..., Any], example_inputs: Sequence[torch.Tensor]) -> fx.Graph:
    """Trace ``fn`` and its gradient into one graph: ``(*primals, *tangents) -> (*results, *grads)``.

    Every floating-point example is differentiated; this is the graph :func:`trace_training_graphs`
    splits, before the split. A custom ``torch.autograd.Function``'s backward shows in it as run at the
    examples' dtypes, which :func:`flexsn_trace.arithmetic_signature` compares across dtypes.

    Args:
        fn: the step function.
        example_inputs: one tensor per argument of ``fn``, as :func:`trace_training_graphs` takes them
            (a step's tensors ``[*shape]``, static inputs in their own shape).

    Returns:
        The joint ``torch.fx.Graph`` (primals, then one tangent per result).

    Raises:
        TypeError / ValueError: as :func:`trace_training_graphs`.
    """
    examples = _distinct(_check_example_inputs(example_inputs))
    flags = tuple(e.is_floating_point() or e.is_complex() for e in examples)
    return _clean(_joint(_unaliased(fn), examples, flags)[1].graph)


@_serialized
def trace_training_graphs(
    fn: Callable[..., Any],
    example_inputs: Sequence[torch.Tensor],
    requires_grad: Sequence[bool] | None = None,
    num_inputs: int | None = None,
    minimize: bool = True,
    num_static: int = 0,
) -> TrainingGraphs:
    """Trace forward and backward graphs of ``fn``.

    One joint trace of the step and its ``torch.autograd.grad``
    (:func:`flexsn_trace.joint.trace_joint`), split by a minimum cut
    (:func:`flexsn_trace.joint.partition_joint`) so cheap intermediates are
    recomputed in the backward graph instead of saved, as AOTAutograd's
    ``min_cut_rematerialization_partition`` does.

    Args:
        fn: the step function.
        example_inputs: example tensors, one per argument: the inputs and
            states of one step (``[*shape]``, any per-step shape; the dtype
            the kernels are traced for, float32 unless 16-bit sequences are
            traced), then static inputs in their own (broadcastable) shape.
        requires_grad: per-input flags; ``None`` marks every floating-point
            input as differentiable.
        num_inputs: how many leading arguments are per-step inputs (the rest
            are states); when given and ``minimize`` is true, saved values
            the backward graph can recompute are dropped
            (:func:`flexsn_trace.saved.minimize_saved`), and where one
            stored carrier sequence can replace several, it does
            (:func:`flexsn_trace.carrier.find_carrier`; not with
            ``FLEXSN_CARRIER=0``); where recomputing the steps from states
            stored every few steps moves fewer bytes than either, that pair
            is taken (:func:`flexsn_trace.recompute.prefer_recompute`).
        minimize: see ``num_inputs``.
        num_static: how many trailing arguments are static inputs (the
            same tensor at every step); saved values computed from them
            alone are recomputed, not saved.

    Returns:
        :class:`TrainingGraphs`.

    Raises:
        TypeError: ``example_inputs`` is not a tuple of tensors.
        ValueError: ``requires_grad`` has the wrong length, ``fn`` does not
            return tensors, no output is differentiable, or tracing fails
            (the message carries the original error).
    """
    examples = _distinct(_check_example_inputs(example_inputs))
    if requires_grad is None:
        flags = tuple(e.is_floating_point() or e.is_complex() for e in examples)
    else:
        flags = tuple(bool(r) for r in requires_grad)
        if len(flags) != len(examples):
            raise ValueError(
                f"requires_grad has {len(flags)} entries but there are {len(examples)} example inputs"
            )
    probe, joint, reaches = _joint(_unaliased(fn), examples, flags)
    tangent_mask = tuple(bool(o.requires_grad) for o in probe)
    grad_mask = tuple(g is not None for g in graph_output_nodes(joint.graph)[len(probe):])
    fwd, bwd = partition_joint(joint.graph, len(examples), len(probe))
    fwd, bwd = _clean(fwd), _clean(bwd)
    carrier, half_pair, chunk = None, None, 1
    if minimize and num_inputs is not None:
        fwd, bwd = minimize_saved(fwd, bwd, num_inputs, len(probe), num_static)
        num_states = len(examples) - num_inputs - num_static
        if env_flag("FLEXSN_CARRIER"):
            carrier = find_carrier(fwd, bwd, num_inputs, len(probe) - num_states, num_states)
        if carrier is not None:
            half_pair, (fwd, bwd) = (fwd, bwd), (carrier.fwd, carrier.bwd)
        recompute = prefer_recompute(joint.graph, len(examples), len(probe), fwd, num_inputs, num_static)
        if recompute is not None:
            half_pair = half_pair or (fwd, bwd)
            fwd, bwd, chunk = recompute
            fwd, bwd = _clean(fwd), _clean(bwd)
            carrier = None
    return TrainingGraphs(
        fwd=fwd,
        bwd=bwd,
        tangent_mask=tangent_mask,
        grad_mask=grad_mask,
        num_results=len(probe),
        carrier=carrier,
        half_pair=half_pair,
        chunk=chunk,
        reaches=reaches,
    )


def generate_forward_and_backward_graph(
    fn: Callable[..., Any],
    example_inputs: Sequence[torch.Tensor],
    requires_grad: Sequence[bool] | None = None,
) -> tuple[fx.Graph, fx.Graph]:
    """Trace optimized forward and backward FX graphs.

    Thin wrapper over :func:`trace_training_graphs` that returns only the
    graphs: ``fwd: [*inputs, *states] -> [*outputs, *states, *saved]`` and
    ``bwd: [*saved, *tangents] -> [*grads]``.

    Raises:
        TypeError / ValueError: as :func:`trace_training_graphs`.
    """
    graphs = trace_training_graphs(fn, example_inputs, requires_grad)
    return graphs.fwd, graphs.bwd
