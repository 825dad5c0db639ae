"""Chunked recomputation along time: when the backward recomputes the steps instead of reading saved values.

A BPTT kernel pair is memory-bound: each per-step sequence the forward saves
is written once and read back once by the backward, two passes over
``[T, NCL]`` next to the step's own inputs and outputs (LIF training: six
passes, two of them the saved membrane). The alternative is the time-axis
form of gradient checkpointing (Chen et al., "Training Deep Nets with
Sublinear Memory Cost", 2016; Griewank and Walther's checkpointing of
reverse-mode programs): the forward stores the states only before every
``chunk``-th step, and the backward, for each chunk from the last, reads
that checkpoint and the chunk's inputs, recomputes the chunk's states
forward in registers, then runs the chunk's backward steps in reverse. Its
saved traffic is one read of each input sequence plus ``2 / chunk`` passes
per state; elementwise recomputation is free next to memory traffic.

:func:`prefer_recompute` makes the choice for one traced step, once, by
counting passes (:func:`saved_passes` against :func:`recompute_passes`);
the kernels (``flexsn_codegen``) read the chosen chunk length from
``FlexSNInfo.chunk``. ``FLEXSN_RECOMPUTE=0`` keeps the saved-value pair.
"""

from __future__ import annotations

from torch import fx

from .env import env_flag
from .info import graph_output_nodes, placeholders
from .joint import recompute_partition

__all__ = ["chunk_length", "prefer_recompute", "recompute_passes", "saved_passes"]


def chunk_length(num_inputs: int, num_states: int) -> int:
    """Steps per chunk for a core with this arity.

    The backward keeps a chunk's inputs, states and incoming gradients in
    registers and unrolls the chunk in its source, so a longer chunk saves
    state passes (``2 / chunk`` per state) but compiles longer: on an H200 a
    fresh process's first ``ParametricLIFNode`` training step took 0.55-0.65 s
    at chunk 2, 0.78-0.91 s at 4 and 1.03-1.32 s at 8 (0.67-0.86 s saving the
    values; ``tools/results/gpu-2026-12-04/run7``), while chunk 8 ran LIF
    training back to back 6% faster than 4 and the 2x2 step no faster
    (``run2``). So 4 steps, fewer above eight sequences a step so the
    kernel does not spill, never below 2.
    """
    per_step = max(num_inputs + num_states, 1)
    return max(2, min(4, 32 // per_step))


def saved_passes(fwd: fx.Graph, num_inputs: int, num_states: int, num_outputs: int) -> float:
    """``[NCL]`` passes per step a saved-value pair adds to a training step with final states only.

    ``fwd`` is ``[*inputs, *states, *statics] -> [*outputs, *new_states, *saved]``.
    A saved input is read once more; a saved output once (the forward
    writes it anyway); a saved state before the step, a new state or an
    intermediate is written for the backward and read by it (a state
    sequence written once however many saved values read it). Static
    inputs are read once per program: no pass.
    """
    phs = placeholders(fwd)
    outs = graph_output_nodes(fwd)
    visible = num_outputs + num_states
    written: set[object] = set()
    reads = 0
    for node in outs[visible:]:
        if node in phs:
            i = phs.index(node)
            if i < num_inputs:
                reads += 1
            elif i < num_inputs + num_states:
                reads += 1
                written.add(("state", i - num_inputs))
            continue
        reads += 1
        if node in outs[:num_outputs]:
            continue
        if node in outs[num_outputs:visible]:
            written.add(("state", outs.index(node, num_outputs) - num_outputs))
        else:
            written.add(node)
    return float(reads + len(written))


def recompute_passes(num_inputs: int, num_states: int, chunk: int) -> float:
    """``[NCL]`` passes per step the chunked recomputation adds: every input read again, each state's checkpoint
    written and read every ``chunk`` steps."""
    return num_inputs + 2.0 * num_states / chunk


def prefer_recompute(
    joint: fx.Graph, num_primals: int, num_results: int, fwd: fx.Graph, num_inputs: int, num_static: int,
) -> tuple[fx.Graph, fx.Graph, int] | None:
    """The recomputing pair and its chunk length, when it moves fewer bytes than the pair ``fwd`` belongs to.

    Args:
        joint: the step's joint graph (:func:`flexsn_trace.joint.trace_joint`).
        num_primals, num_results: its primals (inputs, states, statics) and results (outputs, new states).
        fwd: the forward graph of the saved-value pair (after
            :func:`flexsn_trace.saved.minimize_saved` and a carrier).
        num_inputs, num_static: the core's input sequences and static inputs.

    Returns:
        ``(fwd, bwd, chunk)`` (:func:`flexsn_trace.joint.recompute_partition`), or
        ``None``: ``FLEXSN_RECOMPUTE=0``, a core without states (nothing to recompute
        along time), a step drawing random numbers, or no fewer passes.
    """
    num_states = num_primals - num_inputs - num_static
    if not env_flag("FLEXSN_RECOMPUTE") or num_states < 1:
        return None
    chunk = chunk_length(num_inputs, num_states)
    num_outputs = num_results - num_states
    if recompute_passes(num_inputs, num_states, chunk) >= saved_passes(fwd, num_inputs, num_states, num_outputs):
        return None
    pair = recompute_partition(joint, num_primals, num_results)
    return None if pair is None else (*pair, chunk)
