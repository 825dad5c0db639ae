"""Metadata extracted from a forward step graph (SpikingJelly's ``spikingjelly.activation_based.triton_kernel.flexsn.info.FlexSNInfo``)."""

from __future__ import annotations

from typing import Literal, NamedTuple

import torch
from torch import fx

__all__ = ["FlexSNInfo", "SavedSource", "arithmetic_signature", "extract_info", "graph_output_nodes", "placeholders"]

SavedKind = Literal["input", "prev_state", "return", "static", "restated_state", "fallback_input", "guard"]


class SavedSource(NamedTuple):
    """Where the backward kernel finds one saved tensor at step ``t``.

    ``kind == "input"``: input sequence ``slot`` at step ``t`` (nothing is
    copied: the input sequence itself is kept for backward).
    ``kind == "prev_state"``: the state ``slot`` *before* step ``t``, i.e.
    ``state_seq[slot][t - 1]``, or the initial state at ``t == 0``.
    ``kind == "return"``: forward-kernel return ``slot`` at step ``t``.
    ``kind == "static"``: static input ``slot``, the same at every step
    (read once per program, never stored per step).
    With a carrier (:mod:`flexsn_trace.carrier`, ``FlexSNInfo.carrier``):
    ``kind == "restated_state"``: the state ``slot`` before step ``t``,
    recomputed from the carrier at step ``t - 1`` (the initial state at
    ``t == 0``); ``kind == "fallback_input"``: input sequence ``slot`` at
    step ``t`` where the guard is false, zero elsewhere (not read there);
    ``kind == "guard"``: where the carrier's inversion may be used (a
    boolean computed from the static inputs; the kernels answer it once per
    program, false when it fails for any of the program's neurons).
    """

    kind: SavedKind
    slot: int


class FlexSNInfo(NamedTuple):
    """Names and counts of a step graph ``[*inputs, *states, *statics] -> [*outputs, *states, *saved]``.

    The first nine fields follow SpikingJelly's ``FlexSNInfo``; ``saved_sources`` is our
    extension that lets saved tensors alias inputs and state sequences
    instead of being copied out by the forward kernel.

    Attributes:
        num_inputs, num_outputs, num_states: the core's arity.
        fwd_core_args: placeholder names, inputs then states.
        fwd_core_returns: the graph's return names (may repeat).
        fwd_core_recipients: one fresh variable name per graph return.
        fwd_kernel_returns: names the forward kernel stores as sequences,
            without duplicates: outputs, new states, then saved
            intermediates that are neither.
        num_fwd_kernel_returns: ``len(fwd_kernel_returns)``.
        c2k_return_mapping: for each saved value (graph return past the
            outputs and states), its index in ``fwd_kernel_returns`` or -1
            when it is an input or a previous state (not a kernel return).
        saved_sources: for each saved value, a :class:`SavedSource`.
        num_static: static inputs (SpikingJelly 2.0's ``static_inputs``):
            trailing placeholders after the states, the same tensor at
            every step (a parameter such as a decay or a threshold).
        carrier: the forward-kernel return the backward restates states and
            recovers inputs from (:mod:`flexsn_trace.carrier`), or -1.
        chunk: 1, or the steps per chunk of a pair whose backward recomputes
            the steps (:mod:`flexsn_trace.recompute`): the saved values are
            then the step's arguments, and the final-state forward stores the
            state sequences only after every ``chunk``-th step.
        differentiable: for a training info, per output then state, whether
            it carries a gradient (:attr:`TrainingGraphs.tangent_mask`):
            ``False`` where no argument reaches it through a differentiable
            op (a hard threshold ``(h >= 1).float()``), so it requires no grad
            in the loop either; ``()`` for an inference info.
        reaches: for a training info, per output then state, the step
            arguments (inputs, states, static inputs) that reach it through
            differentiable ops (:func:`flexsn_trace.reach.reached_arguments`):
            which results a call's results require grad follows from it
            (:func:`flexsn_trace.reach.scan_requires_grad`); ``()`` for an inference info.
        reads_step: per output then state, whether it reads an input or a
            state (so an elementwise step gives it their per-step shape); a
            result made from static inputs or constants alone keeps theirs.
    """

    num_inputs: int
    num_outputs: int
    num_states: int
    fwd_core_args: tuple[str, ...]
    fwd_core_returns: tuple[str, ...]
    fwd_core_recipients: tuple[str, ...]
    fwd_kernel_returns: tuple[str, ...]
    num_fwd_kernel_returns: int
    c2k_return_mapping: tuple[int, ...]
    saved_sources: tuple[SavedSource, ...] = ()
    num_static: int = 0
    carrier: int = -1
    chunk: int = 1
    differentiable: tuple[bool, ...] = ()
    reaches: tuple[tuple[int, ...], ...] = ()
    reads_step: tuple[bool, ...] = ()


def placeholders(graph: fx.Graph) -> list[fx.Node]:
    """Return the graph's placeholder nodes in order."""
    return [n for n in graph.nodes if n.op == "placeholder"]


def graph_output_nodes(graph: fx.Graph) -> list[object]:
    """Return the flat list of values the graph's output node returns.

    Raises:
        ValueError: the graph has no output node.
    """
    for n in graph.nodes:
        if n.op == "output":
            ret = n.args[0]
            if isinstance(ret, (list, tuple)):
                return list(ret)
            return [ret]
    raise ValueError("graph has no output node")


def extract_info(
    fwd_graph: fx.Graph, num_inputs: int, num_states: int, num_outputs: int, num_static: int = 0
) -> FlexSNInfo:
    """Extract :class:`FlexSNInfo` from a forward step graph.

    Args:
        fwd_graph: graph with signature
            ``[*inputs, *states, *statics] -> [*outputs, *states, *intermediates]``
            (an inference graph simply has no intermediates).
        num_inputs, num_states, num_outputs: the core's arity.
        num_static: the number of static inputs (trailing placeholders).

    Returns:
        :class:`FlexSNInfo`.

    Raises:
        ValueError: counts are negative, the graph has a different number
            of placeholders than ``num_inputs + num_states + num_static``, or fewer
            returns than ``num_outputs + num_states``, or a return is not a
            graph value.
    """
    for name, value in (
        ("num_inputs", num_inputs), ("num_states", num_states), ("num_outputs", num_outputs), ("num_static", num_static)
    ):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")
    args = placeholders(fwd_graph)
    if len(args) != num_inputs + num_states + num_static:
        counted = "num_inputs + num_states" + (" + num_static" if num_static else "")
        raise ValueError(
            f"forward graph has {len(args)} placeholders, expected {counted} = {num_inputs + num_states + num_static}"
        )
    rets = graph_output_nodes(fwd_graph)
    visible = num_outputs + num_states
    if len(rets) < visible:
        raise ValueError(
            f"forward graph returns {len(rets)} values, expected at least num_outputs + num_states = {visible}"
        )
    for i, r in enumerate(rets):
        if not isinstance(r, fx.Node):
            raise ValueError(f"forward graph return {i} is {r!r}, not a graph value")
    ret_nodes = [r for r in rets if isinstance(r, fx.Node)]
    arg_index = {n: i for i, n in enumerate(args)}
    reads: dict[fx.Node, bool] = {}
    for node in fwd_graph.nodes:  # topological: whether an input or a state flows into each value
        if node.op == "placeholder":
            reads[node] = arg_index[node] < num_inputs + num_states
        else:
            reads[node] = any(reads.get(a, False) for a in node.all_input_nodes)

    kernel_returns: list[fx.Node] = list(ret_nodes[:visible])
    c2k: list[int] = []
    sources: list[SavedSource] = []
    for node in ret_nodes[visible:]:
        if node in arg_index:
            i = arg_index[node]
            c2k.append(-1)
            if i < num_inputs:
                sources.append(SavedSource("input", i))
            elif i < num_inputs + num_states:
                sources.append(SavedSource("prev_state", i - num_inputs))
            else:
                sources.append(SavedSource("static", i - num_inputs - num_states))
            continue
        if node not in kernel_returns:
            kernel_returns.append(node)
        k = kernel_returns.index(node)
        c2k.append(k)
        sources.append(SavedSource("return", k))
    return FlexSNInfo(
        num_inputs=num_inputs,
        num_outputs=num_outputs,
        num_states=num_states,
        fwd_core_args=tuple(n.name for n in args),
        fwd_core_returns=tuple(n.name for n in ret_nodes),
        fwd_core_recipients=tuple(f"ret_{i}" for i in range(len(ret_nodes))),
        fwd_kernel_returns=tuple(n.name for n in kernel_returns),
        num_fwd_kernel_returns=len(kernel_returns),
        c2k_return_mapping=tuple(c2k),
        saved_sources=tuple(sources),
        num_static=num_static,
        reads_step=tuple(reads[r] for r in ret_nodes[:visible]),
    )


#: ops that only convert a tensor's dtype: a kernel computing in float32 rounds through them to its storage
_CASTS = ("aten._to_copy.default", "prims.convert_element_type.default", "aten.to.dtype", "aten.type_as.default")
#: ops with arguments whose default is read from their dtype: (position, name) of each such argument
_DTYPE_DEFAULTS = {"aten.nan_to_num.default": ((2, "posinf"), (3, "neginf"))}  # the dtype's largest finite values


def _dtype_defaults(node: fx.Node) -> tuple[object, ...]:
    """The dtype an op reads a left-out argument's default from (``torch.nan_to_num``'s ``posinf``/``neginf``:
    ``torch.finfo(dtype).max``/``min``), or ``()``: an ``inf`` becomes 65504 in a float16 step, 3.4e38 in float32."""
    args = _DTYPE_DEFAULTS.get(str(node.target), ())
    if not any((node.args[i] if len(node.args) > i else node.kwargs.get(name)) is None for i, name in args):
        return ()
    val = node.meta.get("val")
    return (str(val.dtype),) if isinstance(val, torch.Tensor) else ("unknown dtype",)


def arithmetic_signature(graph: fx.Graph) -> tuple[object, ...]:
    """What ``graph``'s step computes, as a value to compare traces of one core at different dtypes.

    Per node, its op and arguments (earlier nodes by position, constants as they are), with two things
    left out that the fused kernels do not take from a trace: conversions to a floating dtype (a node
    converting to ``float32``/``bfloat16``/``float16`` stands for its input; the kernels compute in float32
    and store in the sequences' dtype) and which floating dtype an op is asked for. Two traces with equal
    signatures differ at most in rounding; a different constant (``torch.finfo(x.dtype).eps``), branch
    (``if x.dtype == torch.bfloat16``) or default an op reads from its dtype (``torch.nan_to_num``'s ``posinf``)
    shows.
    """
    index: dict[fx.Node, object] = {}

    def arg(a: object) -> object:
        if isinstance(a, fx.Node):
            return index[a]
        if isinstance(a, torch.dtype):
            return "floating" if a.is_floating_point else str(a)
        if isinstance(a, (list, tuple)):
            return tuple(arg(b) for b in a)
        if isinstance(a, dict):
            return tuple(sorted((k, arg(v)) for k, v in a.items()))
        return a if isinstance(a, (int, float, bool, str, type(None))) else repr(a)

    out: list[object] = []
    for node in graph.nodes:
        if node.op == "call_function" and str(node.target) in _CASTS:
            dtype = node.kwargs.get("dtype", node.args[1] if len(node.args) > 1 else None)
            if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
                index[node] = index[node.args[0]]
                continue
        index[node] = len(out)
        out.append((node.op, str(node.target), arg(node.args), arg(dict(node.kwargs)), *_dtype_defaults(node)))
    return tuple(out)
