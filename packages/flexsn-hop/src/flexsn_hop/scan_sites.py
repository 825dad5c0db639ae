"""FlexSN scans in a Dynamo-captured graph, read as ``flex_sn_scan``'s arguments.

Two node kinds run a scan in the graph Dynamo hands to Inductor: a
``flexsn::inference`` / ``flexsn::training`` custom-op node (``FlexSN(backend="triton")``,
``flexsn_runtime.FlexSNKernel``), whose step function the handle registry keeps,
and a ``flex_sn_scan`` node (``backend="hop"``) whose step is a ``GraphModule``
attribute. :func:`scan_site` reads either as a :class:`ScanSite`, what
:mod:`flexsn_hop.neighbour_pass` needs to rewrite it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import fx

from flexsn_runtime import lookup_flexsn_kernel_handle

from .scan import flex_sn_scan

__all__ = ["ScanSite", "scan_site"]


@dataclass
class ScanSite:
    """One scan node of a pre-grad graph, read as ``flex_sn_scan``'s arguments.

    Attributes:
        node: the ``flexsn::*`` custom-op or ``flex_sn_scan`` node.
        step_fn: the step it runs, ``(*inputs, *states, *lifted)``.
        counts: ``(num_inputs, num_states, num_outputs)``.
        seqs, init, lifted: its input sequences, initial states (empty with
            ``zero_init``) and static inputs (graph nodes).
        final_state, zero_init: as ``flex_sn_scan``'s flags.
    """

    node: fx.Node
    step_fn: Callable[..., Any]
    counts: tuple[int, int, int]
    seqs: list[Any]
    init: list[Any]
    lifted: list[Any]
    final_state: bool
    zero_init: bool


def _custom_op_targets() -> tuple[Any, ...]:
    ops = torch.ops.flexsn
    return (ops.inference.default, ops.training.default)


def scan_site(gm: fx.GraphModule, node: fx.Node) -> ScanSite | None:
    """``node`` as a :class:`ScanSite`, or ``None`` when it is not a scan the pass can rewrite."""
    if node.op != "call_function":
        return None
    if node.target is flex_sn_scan:
        return _hop_site(gm, node)
    if node.target in _custom_op_targets():
        return _op_site(node)
    return None


def _op_site(node: fx.Node) -> ScanSite | None:
    names = ("handle", "flat_args", "final_state")
    args = dict(zip(names, node.args)) | {k: v for k, v in node.kwargs.items() if k in names}
    handle, flat, final_state = args.get("handle"), args.get("flat_args"), args.get("final_state")
    if not isinstance(handle, int) or not isinstance(flat, (list, tuple)) or not isinstance(final_state, bool):
        return None
    try:
        bundle = lookup_flexsn_kernel_handle(handle)
    except (RuntimeError, ValueError, TypeError):
        return None
    info = bundle.arity_info
    if bundle.step_fn is None or info is None:
        return None
    ni, ns, no, nst = info.num_inputs, info.num_states, info.num_outputs, info.num_static
    if len(flat) not in (ni + nst, ni + ns + nst):
        return None
    zero_init = len(flat) == ni + nst and ns > 0
    body = list(flat[: len(flat) - nst])
    return ScanSite(node, bundle.step_fn, (ni, ns, no), body[:ni], body[ni:], list(flat[len(body) :]), final_state, zero_init)


def _hop_site(gm: fx.GraphModule, node: fx.Node) -> ScanSite | None:
    if len(node.args) < 5 or not isinstance(node.args[0], fx.Node) or node.args[0].op != "get_attr":
        return None
    ni, ns, no = node.args[1:4]
    if not (isinstance(ni, int) and isinstance(ns, int) and isinstance(no, int)):
        return None
    try:
        step_fn = functools.reduce(getattr, str(node.args[0].target).split("."), gm)
    except AttributeError:
        return None
    zero_init, final_state = node.kwargs.get("zero_init_states", False), node.kwargs.get("final_state", False)
    if not isinstance(zero_init, bool) or not isinstance(final_state, bool):
        return None
    flat = list(node.args[4:])
    n_init = 0 if zero_init else ns
    return ScanSite(node, step_fn, (ni, ns, no), flat[:ni], flat[ni : ni + n_init], flat[ni + n_init :], final_state, zero_init)
