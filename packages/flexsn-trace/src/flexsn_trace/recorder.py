"""Record the aten operations a step function runs into an FX graph.

What ``torch.fx.experimental.proxy_tensor.make_fx`` does in its ``"real"``
mode, for the small, shape-static step functions FlexSN traces: the function
runs on real example tensors under a ``TorchDispatchMode``
(``torch.utils._python_dispatch``), and each aten call becomes a
``call_function`` node. Autograd runs above the dispatcher, so a
``torch.autograd.grad`` inside the function records the backward's aten calls
too (the joint graph of :mod:`flexsn_trace.joint`).

Why our own: ``make_fx`` imports ``torch._inductor.config`` and, through it,
``torch._dynamo``: measured 3.7 to 3.9 s in a fresh process on the H200 image
(torch 2.11, bytecode present) and 1.1 s on a 2-core CPU machine, before the
first kernel is built. The recorder imports nothing of torch's compiler.

In-place calls stay in the recorded graph; :func:`functional_in_place` turns
those nothing else observes into their functional forms, for the inference and
the joint trace alike, and the callers functionalize the function only for
what it leaves.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence, TypeVar

import torch
import torch.utils._pytree as pytree
from torch import fx
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["FOREIGN_PREFIX", "VIEW_OPS", "functional_in_place", "is_view", "op_name", "record"]

#: the ``get_attr`` name prefix of a tensor the recorded function read from outside its arguments
#: (a tensor in a list, a dict, a class attribute, a ``functools.partial`` argument): a constant of
#: the graph whose value may change after the trace, which codegen must not inline
FOREIGN_PREFIX = "_foreign_tensor"


#: the message of a refused host read: the callers turn a failed trace into their fallback and its message
_HOST_READ = (
    "data-dependent operation {}: the core reads a tensor's value on the host (.item(), .tolist(), .numpy(), "
    "float(), bool(), a Python `if` on a tensor); a fused kernel computes every element alike, so the step must "
    "stay in tensor ops (torch.where instead of if)"
)


class _HostReads(TorchFunctionMode):
    """Refuses the reads of a tensor's values that never reach the dispatcher (a CPU tensor's ``tolist`` and
    ``numpy``, ``numpy.asarray(t)``): a trace would keep the values they returned as constants of the kernels,
    silently (a buffer read as ``self.th.tolist()[0]`` would keep its traced value). ``.item()`` and ``float()``
    reach the dispatcher as ``aten._local_scalar_dense``, which :class:`_Recorder` refuses."""

    _READS = frozenset({torch.Tensor.tolist, torch.Tensor.numpy, torch.Tensor.__array__})

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func in self._READS:
            raise RuntimeError(_HOST_READ.format(f"Tensor.{func.__name__}"))
        return func(*args, **(kwargs or {}))


def _meta_like(t: torch.Tensor) -> torch.Tensor:
    """A meta-device tensor with ``t``'s shape, strides and dtype (what codegen reads from ``meta["val"]``)."""
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


V = TypeVar("V")


def _kept(table: dict[int, tuple[torch.Tensor, V]], t: torch.Tensor) -> V | None:
    """What ``table`` keeps for tensor ``t`` (keyed by ``id``, the tensor kept beside it so the id is not reused), or ``None``."""
    hit = table.get(id(t))
    return hit[1] if hit is not None and hit[0] is t else None


class _Recorder(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's __init_subclass__
    """Runs each aten call and appends it to ``graph``; tensors map to nodes by identity."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ in torch._dynamo.disable when
        # this is true, importing all of Dynamo at the first call; a trace never
        # runs under Dynamo's frame hook (flexsn_trace.isolation), so nothing is lost.
        return False

    def __init__(self, graph: fx.Graph, root: torch.nn.Module, device: torch.device | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.graph = graph
        self.root = root
        # the examples' device: a foreign tensor elsewhere (a CUDA parameter in a class attribute beside CPU
        # examples) is traced as a copy here, so the trace completes and codegen names it instead of a device error
        self.device = device
        self.moved: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        # id -> (tensor, node): the tensor is kept alive so its id is not reused during the trace
        self.nodes: dict[int, tuple[torch.Tensor, fx.Node]] = {}
        self.num_constants = 0
        # tensors a ``torch.tensor(...)`` call inside the function made (aten.lift_fresh's argument)
        self.fresh: dict[int, tuple[torch.Tensor, bool]] = {}

    def bind(self, t: torch.Tensor, node: fx.Node) -> None:
        node.meta["val"] = _meta_like(t)
        self.nodes[id(t)] = (t, node)

    def node_of(self, t: torch.Tensor) -> fx.Node:
        node = _kept(self.nodes, t)
        if node is not None:
            return node
        # a tensor no traced call produced: made by the function (``torch.tensor(...)`` inside it,
        # FOREIGN_PREFIX otherwise: read from outside its arguments, so codegen must not bake its value)
        prefix = "_tensor_constant" if _kept(self.fresh, t) else FOREIGN_PREFIX
        name = f"{prefix}{self.num_constants}"
        self.num_constants += 1
        setattr(self.root, name, t)  # as it is: codegen refuses one that requires grad (it would get none)
        node = self.graph.get_attr(name)
        self.bind(t, node)
        return node

    def _here(self, t: torch.Tensor) -> torch.Tensor:
        """``t``, or for a foreign tensor on another device than the examples its copy on theirs (one per tensor)."""
        if t.device == self.device or (t.dim() == 0 and t.device.type == "cpu"):
            return t
        if _kept(self.nodes, t) is not None:
            return t  # traced: the examples' own computation
        moved = _kept(self.moved, t)
        if moved is None:
            # a meta tensor has no values to copy (nor does codegen need them: it refuses foreign tensors)
            copy = torch.zeros(t.shape, dtype=t.dtype, device=self.device) if t.is_meta else t.detach().to(self.device)
            moved = copy.requires_grad_(t.requires_grad)
            self.moved[id(t)] = (t, moved)
        return moved

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.aten._local_scalar_dense.default:
            raise RuntimeError(_HOST_READ.format("aten._local_scalar_dense"))  # a RuntimeError, as make_fx's
        if func is torch.ops.aten.lift_fresh.default or func is torch.ops.aten.lift_fresh_copy.default:
            func = torch.ops.aten.lift_fresh_copy.default  # as make_fx: a constant is copied, never aliased
            if args and isinstance(args[0], torch.Tensor) and _kept(self.nodes, args[0]) is None:
                self.fresh[id(args[0])] = (args[0], True)
        if self.device is not None:
            args, kwargs = pytree.tree_map_only(torch.Tensor, self._here, (args, kwargs))
        out = func(*args, **kwargs)
        node_args, node_kwargs = pytree.tree_map_only(torch.Tensor, self.node_of, (args, kwargs))
        # named for the op's packet (add, add_1, ...), as make_fx names them
        name = func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else None
        node = self.graph.create_node("call_function", func, tuple(node_args), dict(node_kwargs), name=name)
        if isinstance(out, torch.Tensor):
            self.bind(out, node)
        elif isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                if isinstance(o, torch.Tensor):
                    self.bind(o, self.graph.call_function(operator.getitem, (node, i)))
        return out


def record(
    fn: Callable[..., Any], examples: Sequence[torch.Tensor], names: Sequence[str] | None = None
) -> fx.GraphModule:
    """Run ``fn(*examples)`` once and return the aten graph of what it computed.

    Args:
        fn: a function of tensors returning a tensor or a (nested) tuple of
            tensors and ``None``s.
        examples: real tensors, one per argument (distinct objects: a tensor
            passed twice would map both placeholders to the second).
        names: the placeholders' names (default ``arg0``, ``arg1``, ...).

    Returns:
        ``torch.fx.GraphModule`` with one placeholder per example,
        one node per aten call (``meta["val"]``: a meta tensor with the
        result's shape, strides and dtype), tensor constants the function
        created as ``get_attr`` attributes, and an output node returning the
        results' nodes in ``fn``'s structure (an input returned as it is stays
        its placeholder).

    Raises:
        RuntimeError: ``fn`` reads a tensor's value on the host (``.item()``, ``.tolist()``, ``.numpy()``).
        Whatever ``fn`` raises.
    """
    graph = fx.Graph()
    root = torch.nn.Module()
    mode = _Recorder(graph, root, examples[0].device if examples else None)
    names = [f"arg{i}" for i in range(len(examples))] if names is None else list(names)
    for name, e in zip(names, examples):
        mode.bind(e, graph.placeholder(name))
    with _HostReads(), mode:
        result = fn(*examples)
    graph.output(pytree.tree_map_only(torch.Tensor, mode.node_of, result))
    return fx.GraphModule(root, graph)


#: aten views (names without the namespace): a write through one reaches its base
VIEW_OPS = frozenset({
    "view", "_unsafe_view", "reshape", "expand", "squeeze", "unsqueeze", "permute", "t", "select", "slice", "alias",
    "detach", "as_strided", "transpose", "diagonal", "unfold", "narrow", "split", "chunk", "unbind",
})


def op_name(target: Any) -> str | None:
    """An aten operator's name without namespace or overload (``"fill_"``); ``None`` for other targets."""
    schema = getattr(target, "_schema", None)
    return None if schema is None else str(schema.name).split("::")[-1]


def is_view(node: Any) -> bool:
    """Whether ``node`` calls an aten view (:data:`VIEW_OPS`)."""
    return isinstance(node, fx.Node) and node.op == "call_function" and op_name(node.target) in VIEW_OPS


def _unshared(target: fx.Node, mutation: fx.Node, order: dict[fx.Node, int]) -> bool:
    """No node but ``mutation``'s later users can see ``target``'s memory after ``mutation`` writes it.

    Walks from ``target`` up through the views it was taken from: no step
    input may be written, no other view may share the memory, and a base's
    other readers must all come before the write.
    """
    node, child = target, mutation
    while True:
        if node.op != "call_function":
            return False  # a step input (or a constant): its writes are not local to the graph
        for u in node.users:
            if u is child or u is mutation:
                continue
            if is_view(u) or (node is not target and order[u] > order[mutation]):
                return False
        if not is_view(node):
            return True
        base = node.args[0]
        if not isinstance(base, fx.Node):
            return False
        node, child = base, node


_FUNCTIONAL: dict[Any, Any] = {}


def functional_overload(op: Any) -> Any:
    """The functional overload of the in-place aten op ``op`` (``pow_.Scalar`` -> ``pow.Tensor_Scalar``), or ``None``.

    Matched by the arguments' names and types, not by the overload's name: the names do not
    always agree (torch 2.13: ``pow_.Scalar`` takes ``(Tensor self, Scalar exponent)``, ``pow.Scalar``
    ``(Scalar self, Tensor exponent)``; ``float_power_.Scalar``, ``ldexp_.default`` likewise), and a
    same-named overload of another schema would compute something else, or fail to lower.
    """
    if op in _FUNCTIONAL:
        return _FUNCTIONAL[op]
    name = str(op_name(op))
    packet = getattr(torch.ops.aten, name[:-1], None) if name.endswith("_") else None
    args = [(a.name, str(a.type)) for a in op._schema.arguments]
    found = None
    for overload in packet.overloads() if packet is not None else ():
        candidate = getattr(packet, overload)
        if [(a.name, str(a.type)) for a in candidate._schema.arguments] == args and not candidate._schema.is_mutable:
            found = candidate
            break
    _FUNCTIONAL[op] = found
    return found


def functional_in_place(graph: fx.Graph) -> bool:
    """Replace in-place calls on unaliased tensors by their functional forms; ``True`` when none is left.

    The recorder already points every later use of a mutated tensor at the
    in-place call's node, so ``fill_(x, 0)`` can become ``fill(x, 0)`` when
    nothing else sees ``x``'s memory afterwards (:func:`_unshared`).
    Autograd's backward formulas and some decompositions (torch 2.11:
    ``fill_``, ``masked_fill_``, ``logical_or_`` on fresh tensors) write in
    place this way; AOTAutograd functionalizes them. What is left
    needs ``torch.func.functionalize`` of the traced function.
    """
    order = {n: i for i, n in enumerate(graph.nodes)}
    left = False
    for node in graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op != "call_function" or schema is None or not schema.is_mutable:
            continue
        target = node.args[0] if node.args else None
        functional = functional_overload(node.target)
        if functional is None or not isinstance(target, fx.Node) or not _unshared(target, node, order):
            left = True
            continue
        node.target = functional
    return not left
