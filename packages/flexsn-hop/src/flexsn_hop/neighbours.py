"""Which pointwise producers of a scan's input sequences can run inside its step.

Under ``torch.compile`` a FlexSN scan is one opaque node (a ``flexsn::*``
custom op, or ``flex_sn_scan`` with a traced body), so Inductor writes what
feeds it to memory and the scan reads it back: BatchNorm's normalised output,
a scaled or biased input, a residual sum. This module finds, in the graph
Dynamo hands to Inductor (the "pre-grad" graph of torch-level calls), the
pointwise subgraph that computes each input sequence of a scan, and sorts
the values it reads into

* *full leaves*: tensors of the sequence's own shape (the convolution output
  under a BatchNorm, the other operand of a residual add), which become the
  scan's input sequences;
* *static leaves*: tensors that broadcast to one step (a per-channel scale
  ``[C, 1, 1]``, a scalar tensor), which become static inputs read in place
  (SpikingJelly 2.0's ``static_inputs`` position);
* Python numbers, kept as constants of the step.

``torch.nn.functional.batch_norm`` counts as pointwise once its statistics
are known: its per-channel mean, inverse standard deviation, weight and bias
become static leaves computed outside the scan (``flexsn_hop.neighbour_pass``
emits them), so the batch statistics still read the input once, and the
normalisation ``(x - mean) * invstd * weight + bias`` (per channel) runs
inside the scan's loads. Autograd through the rewritten
graph is exact: the scan's backward kernel returns the gradients of the
full leaves and the per-channel statics (summed over time and the broadcast
dimensions), and autograd carries the statics' gradients through the batch
statistics, as PyTorch's own BatchNorm backward does
(``torch.nn.functional.batch_norm``; Ioffe & Szegedy 2015).

Only nodes whose single user is the next node of the chain are absorbed
(a value read twice is materialised anyway), shapes must be known to match
(with symbolic sizes, ``torch.compile(dynamic=True)`` or after a second batch
size, what the shape environment proves without a new guard: :func:`same_shape`),
and dtypes must match the sequence's. Everything else stays where it is.
"""

from __future__ import annotations

import functools
import inspect
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F
from torch import fx
from torch.fx.experimental.symbolic_shapes import statically_known_true, sym_eq

__all__ = ["BatchNormParts", "Epilogue", "Prologue", "find_epilogue", "find_prologue", "same_shape", "tensor_value"]

#: torch-level functions that act elementwise (with broadcasting) on their tensor arguments
POINTWISE_FUNCTIONS: frozenset[Callable[..., Any]] = frozenset(
    {
        operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
        torch.add, torch.sub, torch.mul, torch.div, torch.neg, torch.relu, torch.sigmoid, torch.tanh,
        torch.exp, torch.abs, torch.clamp, F.relu, F.silu, F.sigmoid, F.tanh,
    }
)
#: ``Tensor`` methods that act elementwise (in-place forms are never absorbed)
POINTWISE_METHODS: frozenset[str] = frozenset(
    {"add", "sub", "mul", "div", "neg", "relu", "sigmoid", "tanh", "exp", "abs", "clamp"}
)
_VIEW_METHODS = frozenset({"view", "reshape", "flatten", "unflatten"})
_VIEW_FUNCTIONS: frozenset[Callable[..., Any]] = frozenset({torch.reshape, torch.flatten, torch.unflatten})


def tensor_value(node: object) -> torch.Tensor | None:
    """The example (fake) tensor Dynamo recorded for ``node`` (its sizes may be symbolic), or ``None``."""
    if not isinstance(node, fx.Node):
        return None
    value = node.meta.get("example_value", node.meta.get("val"))
    return value if isinstance(value, torch.Tensor) else None


def known(condition: Any) -> bool:
    """Whether ``condition`` (a ``bool``, or a ``SymBool`` of symbolic sizes) holds for every size the graph takes.

    A symbolic condition the shape environment cannot prove is ``False`` and adds no guard: the pass decides on
    what serves every call of the compiled graph, and where it cannot tell it leaves the graph as it was.
    """
    return bool(statically_known_true(condition))


def same_shape(a: Any, b: Any) -> bool:
    """Whether shapes ``a`` and ``b`` (sizes ``int`` or ``SymInt``) are known equal (:func:`known`)."""
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and known(sym_eq(a, b))


@dataclass
class BatchNormParts:
    """A ``torch.nn.functional.batch_norm`` call, read as ``(x - mean) * invstd * weight + bias`` per channel.

    Attributes:
        input: the normalised tensor ``[N, C, *spatial]`` (a full leaf).
        running_mean, running_var: buffers ``[C]`` (or ``None``).
        weight, bias: the affine parameters ``[C]`` (or ``None``).
        training: batch statistics (and running-stat updates) vs. the running statistics.
        momentum, eps: as passed (Python numbers).
    """

    input: fx.Node
    running_mean: fx.Node | None
    running_var: fx.Node | None
    weight: fx.Node | None
    bias: fx.Node | None
    training: bool
    momentum: float
    eps: float


@dataclass
class Prologue:
    """The pointwise subgraph that computes one input sequence of a scan.

    Attributes:
        seq: the scan's argument (``[T, *step]``).
        root: the value computed per step: ``seq`` itself, or the tensor
            ``[T * B, *rest]`` that ``seq`` views as ``[T, B, *rest]``.
        nodes: absorbed nodes in graph order (``root`` last).
        full: full leaves (``root``'s shape and dtype), in first-use order.
        statics: static leaves (broadcast to ``root``'s shape, size 1 along dim 0).
        batch_norms: the absorbed ``batch_norm`` calls.
    """

    seq: fx.Node
    root: fx.Node
    nodes: list[fx.Node] = field(default_factory=list)
    full: list[fx.Node] = field(default_factory=list)
    statics: list[fx.Node] = field(default_factory=list)
    batch_norms: dict[fx.Node, BatchNormParts] = field(default_factory=dict)

    @property
    def viewed(self) -> bool:
        """Whether ``seq`` is a ``[T, B, *rest]`` view of a ``[T * B, *rest]`` root."""
        return self.root is not self.seq


@dataclass
class Epilogue:
    """The pointwise consumers of one output sequence of a scan, run inside its step.

    Attributes:
        out: the scan's output (a ``getitem`` of the scan node, ``[T, *step]``).
        root: ``out``, or its ``[T * B, *rest]`` view that the consumers read.
        nodes: the absorbed consumers in graph order (``tail`` last).
        full: full leaves (``root``'s shape and dtype, defined before the scan).
        statics: static leaves (broadcast to ``root``'s shape, size 1 along dim 0).
    """

    out: fx.Node
    root: fx.Node
    nodes: list[fx.Node] = field(default_factory=list)
    full: list[fx.Node] = field(default_factory=list)
    statics: list[fx.Node] = field(default_factory=list)

    @property
    def viewed(self) -> bool:
        """Whether the consumers read a ``[T * B, *rest]`` view of the ``[T, B, *rest]`` output."""
        return self.root is not self.out

    @property
    def tail(self) -> fx.Node:
        """The last absorbed consumer: its value is what the scan returns in place of ``out``."""
        return self.nodes[-1]


def _is_view(node: fx.Node) -> bool:
    return (node.op == "call_method" and node.target in _VIEW_METHODS) or (
        node.op == "call_function" and node.target in _VIEW_FUNCTIONS
    )


def _split_root(seq: fx.Node) -> fx.Node | None:
    """The ``[T * B, *rest]`` tensor that ``seq`` (``[T, B, *rest]``) views, or ``None``."""
    if not _is_view(seq) or not seq.args or not isinstance(seq.args[0], fx.Node):
        return None
    src, v_src, v_seq = seq.args[0], tensor_value(seq.args[0]), tensor_value(seq)
    if v_src is None or v_seq is None or v_seq.dim() < 2 or v_src.dim() != v_seq.dim() - 1:
        return None
    if not known(v_seq.shape[0] * v_seq.shape[1] == v_src.shape[0]) or not same_shape(v_seq.shape[2:], v_src.shape[1:]):
        return None
    return src if len(src.users) == 1 else None  # any layout: the rewrite reshapes (a view for dense memory)


@functools.lru_cache(maxsize=1)
def _batch_norm_signature() -> inspect.Signature:
    return inspect.signature(F.batch_norm)


def _batch_norm_parts(node: fx.Node) -> BatchNormParts | None:
    """``node`` as :class:`BatchNormParts`, when every argument is what the rewrite can take."""
    if node.op != "call_function" or node.target is not F.batch_norm:
        return None
    try:
        bound = _batch_norm_signature().bind(*node.args, **node.kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    a = bound.arguments
    tensors = [a["running_mean"], a["running_var"], a["weight"], a["bias"]]
    if not isinstance(a["input"], fx.Node) or any(t is not None and not isinstance(t, fx.Node) for t in tensors):
        return None
    numbers = (a["momentum"], a["eps"])
    if not isinstance(a["training"], bool) or not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers):
        return None
    if not a["training"] and (a["running_mean"] is None or a["running_var"] is None):
        return None
    mean, var, weight, bias = tensors
    return BatchNormParts(a["input"], mean, var, weight, bias, a["training"], float(a["momentum"]), float(a["eps"]))


def _pointwise(node: fx.Node) -> bool:
    if node.op == "call_method":
        return node.target in POINTWISE_METHODS
    if node.op != "call_function" or node.target not in POINTWISE_FUNCTIONS:
        return False
    return not node.kwargs.get("inplace", False) and not any(a is True for a in node.args[1:])  # F.relu(x, True)


def _tensor_args(node: fx.Node) -> list[fx.Node]:
    found: list[fx.Node] = []
    fx.node.map_arg((node.args, node.kwargs), lambda n: found.append(n) or n)  # type: ignore[func-returns-value]
    return found


class _Planner:
    """Grows a :class:`Prologue` backwards from its root (no graph change)."""

    def __init__(self, prologue: Prologue | Epilogue, like: torch.Tensor) -> None:
        self.p = prologue  # its ``full`` / ``statics`` lists receive the leaves (an Epilogue's too)
        self.like = like  # the root's example value

    def full_leaf(self, node: fx.Node) -> bool:
        v = tensor_value(node)
        return v is not None and v.dtype == self.like.dtype and same_shape(v.shape, self.like.shape)

    def static_leaf(self, node: fx.Node) -> bool:
        """Broadcasts to one step: right-aligned to the root's shape, size 1 (or absent) along dim 0."""
        v = tensor_value(node)
        if v is None or not v.is_floating_point() or v.device != self.like.device or v.dim() > self.like.dim():
            return False
        aligned = self.like.shape[self.like.dim() - v.dim() :]
        if not all(known(d == 1) or known(d == s) for d, s in zip(v.shape, aligned)):
            return False
        return v.dim() < self.like.dim() or known(v.shape[0] == 1)

    def leaf(self, node: fx.Node) -> bool:
        """Record ``node`` as a leaf; ``False`` when it is neither kind."""
        if self.full_leaf(node):
            if node not in self.p.full:
                self.p.full.append(node)
            return True
        if self.static_leaf(node):
            if node not in self.p.statics:
                self.p.statics.append(node)
            return True
        return False

    def absorb(self, node: fx.Node, single_use: bool = True) -> bool:
        """Absorb ``node`` and, recursively, its producers; ``False`` (nothing recorded) when it cannot be."""
        if single_use and len(node.users) != 1:
            return False
        if not self.full_leaf(node):
            return False
        bn = _batch_norm_parts(node)
        if bn is not None and isinstance(self.p, Prologue):
            return self._absorb_batch_norm(node, bn)
        if not _pointwise(node):
            return False
        assert isinstance(self.p, Prologue)
        saved = (list(self.p.nodes), list(self.p.full), list(self.p.statics), dict(self.p.batch_norms))
        for a in _tensor_args(node):
            if a in self.p.nodes:  # read twice by this node (x * x)
                continue
            if not (self.absorb(a) or self.leaf(a)):
                self.p.nodes, self.p.full, self.p.statics, self.p.batch_norms = saved
                return False
        self.p.nodes.append(node)
        return True

    def _absorb_batch_norm(self, node: fx.Node, bn: BatchNormParts) -> bool:
        assert isinstance(self.p, Prologue)
        if not self.full_leaf(bn.input) or self.like.dim() < 2:
            return False
        channels = self.like.shape[1]
        for t in (bn.running_mean, bn.running_var, bn.weight, bn.bias):
            v = tensor_value(t) if t is not None else None
            if t is not None and (v is None or not same_shape(v.shape, (channels,)) or v.device != self.like.device):
                return False
        self.leaf(bn.input)
        self.p.batch_norms[node] = bn
        self.p.nodes.append(node)
        return True


def find_prologue(seq: fx.Node, scan: fx.Node) -> Prologue | None:
    """The absorbable pointwise producers of scan argument ``seq``, or ``None``.

    ``None`` when ``seq`` is read by another node too, has no example value,
    or nothing pointwise computes it (a prologue of views alone gains
    nothing).
    """
    if set(seq.users) != {scan}:
        return None
    root = _split_root(seq)
    single_use = True
    if root is None:
        root, single_use = seq, False  # the scan's own argument: its one user is the scan
    like = tensor_value(root)
    if like is None or like.dim() == 0 or known(like.shape[0] == 0) or not like.is_floating_point():
        return None
    prologue = Prologue(seq, root)
    planner = _Planner(prologue, like)
    if not planner.absorb(root, single_use=single_use):
        return None
    prologue.nodes.sort(key=_graph_order(root.graph))
    return prologue


def _merge_view(out: fx.Node) -> fx.Node | None:
    """The single user of ``out`` (``[T, B, *rest]``) that views it as ``[T * B, *rest]``, or ``None``."""
    if len(out.users) != 1:
        return None
    (view,) = out.users
    if not _is_view(view) or view.args[:1] != (out,):
        return None
    v_out, v_view = tensor_value(out), tensor_value(view)
    if v_out is None or v_view is None or v_out.dim() < 2 or v_view.dim() != v_out.dim() - 1:
        return None
    if not known(v_out.shape[0] * v_out.shape[1] == v_view.shape[0]) or not same_shape(v_out.shape[2:], v_view.shape[1:]):
        return None
    return view


def find_epilogue(out: fx.Node, scan: fx.Node) -> Epilogue | None:
    """The absorbable pointwise consumers of scan output ``out``, or ``None``.

    A chain of single-user pointwise nodes reading ``out`` (or its
    ``[T * B, *rest]`` view) and otherwise only tensors defined before the scan
    (full or static leaves) or numbers.
    """
    root = _merge_view(out) or out
    like = tensor_value(root)
    if like is None or like.dim() == 0 or known(like.shape[0] == 0) or not like.is_floating_point():
        return None
    order = _graph_order(scan.graph)
    epilogue = Epilogue(out, root)
    leaves = _Planner(epilogue, like)
    cur = root
    while len(cur.users) == 1:
        (user,) = cur.users
        value = tensor_value(user)
        if not _pointwise(user) or value is None or value.dtype != like.dtype or not same_shape(value.shape, like.shape):
            break
        kept = (list(epilogue.full), list(epilogue.statics))
        others = [a for a in _tensor_args(user) if a is not cur and a not in epilogue.nodes]
        if not all(order(a) < order(scan) and leaves.leaf(a) for a in others):
            epilogue.full, epilogue.statics = kept
            break
        epilogue.nodes.append(user)
        cur = user
    return epilogue if epilogue.nodes else None


def _graph_order(graph: fx.Graph) -> Callable[[fx.Node], int]:
    index = {n: k for k, n in enumerate(graph.nodes)}
    return index.__getitem__
