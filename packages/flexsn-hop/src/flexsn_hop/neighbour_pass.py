"""The ``torch.compile`` graph pass that runs a scan's pointwise producers inside its step.

Inductor hands every graph Dynamo captured to its "pre-grad" passes before
AOTAutograd differentiates it (``torch._inductor.config.pre_grad_custom_pass``,
run by ``torch._inductor.fx_passes.pre_grad.pre_grad_passes``). There,
:func:`fuse_neighbours` finds each FlexSN scan (a ``flexsn::inference`` /
``flexsn::training`` custom-op node of ``FlexSN(backend="triton")``, or a
``flex_sn_scan`` node of ``backend="hop"``), asks
:func:`flexsn_hop.neighbours.find_prologue` what computes its input
sequences, and replaces the scan by ONE ``flex_sn_scan`` node whose step is
the absorbed ops followed by the neuron's step::

    y = bn(conv(x)).view(T, B, C, H, W); s = lif(y)
    # becomes
    mean, invstd = batch statistics of conv(x)          (outside: one read)
    s = flex_sn_scan(step, conv(x).view(T, B, ...), mean, invstd, weight, bias)
    # step(x_t, v, m, i, w, b) = lif((x_t - m) * i * w + b, v)

The scan's fused kernels (built by :func:`flexsn_hop.runtime_fusion.fused_kernel_for`)
then read the convolution output once and never write the normalised
tensor; their backward kernel differentiates the absorbed ops too, and the
statics' gradients flow on through the batch statistics. A scan whose
kernels cannot be built falls back as ``flex_sn_scan`` always does (the
eager loop, one warning naming the reason).

:func:`install_neighbour_pass` (called when ``flexsn_hop`` is imported)
adds the pass in front of any pre-grad pass already configured. It rewrites
every graph Inductor compiles, with or without CUDA graphs;
``enable_neighbour_fusion(False)`` or ``FLEXSN_FUSE_NEIGHBOURS=0`` turns it off
(read when a graph is compiled: call ``torch._dynamo.reset()`` after a change).
"""

from __future__ import annotations

import logging
import operator
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import fx, nn

from flexsn_trace.env import env_flag

from .neighbours import Epilogue, Prologue, find_epilogue, find_prologue, same_shape, tensor_value
from .scan import flex_sn_scan, hop_kernels_registered
from .scan_sites import ScanSite, scan_site

__all__ = [
    "enable_neighbour_fusion",
    "fuse_neighbours",
    "install_neighbour_pass",
    "neighbour_fusion_enabled",
]

log = logging.getLogger(__name__)
_enabled: bool | None = None  # None: the default, on
_WARNED: set[str] = set()


def enable_neighbour_fusion(enabled: bool | None = True) -> None:
    """Absorb a scan's pointwise producers under ``torch.compile`` (``True``, and ``None``: the default) or not (``False``).

    ``FLEXSN_FUSE_NEIGHBOURS=0`` turns the pass off whatever this says. Compiled
    graphs keep the form they were compiled with: call ``torch._dynamo.reset()``
    after a change.

    Raises:
        TypeError: ``enabled`` is neither a ``bool`` nor ``None``.
    """
    global _enabled
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"enable_neighbour_fusion expects True, False or None, got {type(enabled).__name__}")
    _enabled = enabled


def neighbour_fusion_enabled() -> bool:
    """Whether :func:`fuse_neighbours` rewrites the graph Inductor compiles now.

    ``False`` with ``FLEXSN_FUSE_NEIGHBOURS=0``; else what
    :func:`enable_neighbour_fusion` set, by default ``True``. Measured on an
    H200 (``tools/results/gpu-2026-11-28j/``, the convnet of ``tools/bench_net.py``):
    the fused step's GPU time is 3.13 ms against 4.16 ms (training) and 0.76
    against 0.92 ms (inference). Under CUDA graphs that is the step's time; in
    the default mode, where the step waits on the host, the fused one took
    0.82-1.13x the unfused one's time in training and 0.77-0.98x in inference
    (six and three processes), since the backward sums a BatchNorm's four statics
    in one reduction (before, four: 1.02-1.16x, so only CUDA graphs fused by default).
    """
    if not env_flag("FLEXSN_FUSE_NEIGHBOURS"):
        return False
    return True if _enabled is None else _enabled


class _Step(nn.Module):
    """Holds a plain step function so the fused step's graph can call it (``call_module``)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)

    def __flexsn_fingerprint__(self) -> Callable[..., Any]:
        """What it computes with, for the trace fingerprint (``flexsn_runtime.fingerprint``): its function.

        The fused step's kernels then get a handle that names them in every process, so
        Inductor's disk caches serve a fused graph to the next process, as an unfused one.
        """
        return self.fn


class _Rewrite:
    """Builds the fused step and its outer arguments for one site (graph changes only in :meth:`apply`)."""

    def __init__(
        self, gm: fx.GraphModule, site: ScanSite, prologues: dict[int, Prologue], epilogues: dict[int, Epilogue]
    ) -> None:
        self.gm, self.site, self.prologues, self.epilogues = gm, site, prologues, epilogues
        self.body = fx.Graph()
        self.outer_seqs: list[fx.Node] = []
        self.outer_shapes: list[tuple[Any, ...]] = []  # their shapes (sizes int or SymInt), for epilogue views
        self.outer_statics: list[fx.Node] = []
        self.env: dict[Any, fx.Node] = {}  # graph nodes and _Key values

    def outer(self, op: str, target: Any, *args: Any, **kwargs: Any) -> fx.Node:
        return self.gm.graph.create_node(op, target, args, kwargs)

    def apply(self) -> fx.Node:
        graph, scan = self.gm.graph, self.site.node
        with graph.inserting_before(scan):
            seq_phs = self._seq_inputs()
            state_phs = [self.body.placeholder(f"state_{j}") for j in range(self.site.counts[1])]
            lifted_phs = [self.body.placeholder(f"lifted_{k}") for k in range(len(self.site.lifted))]
            self._statics()
            step_args = []
            for i, x in enumerate(self.site.seqs):
                step_args.append(self._emit_prologue(self.prologues[i]) if i in self.prologues else seq_phs[i])
            result = self._call_step(tuple([*step_args, *state_phs, *lifted_phs]))
            self.body.output(self._emit_epilogues(result) if self.epilogues else result)
            root = nn.Module()
            root.step = self.site.step_fn if isinstance(self.site.step_fn, nn.Module) else _Step(self.site.step_fn)
            name = _free_name(self.gm, "flexsn_fused_step")
            self.gm.add_submodule(name, fx.GraphModule(root, self.body, class_name="FlexSNFusedStep"))
            ni, ns, no = self.site.counts
            kwargs: dict[str, Any] = {"final_state": True} if self.site.final_state else {}
            if self.site.zero_init:
                kwargs["zero_init_states"] = True
            args = (*self.outer_seqs, *self.site.init, *self.site.lifted, *self.outer_statics)
            new = graph.call_function(flex_sn_scan, (graph.get_attr(name), len(self.outer_seqs), ns, no, *args), kwargs)
        new.meta.update({k: v for k, v in scan.meta.items() if k in ("stack_trace", "nn_module_stack", "source_fn_stack")})
        scan.replace_all_uses_with(new)
        graph.erase_node(scan)
        for k, ep in self.epilogues.items():  # the scan's output k is now the last consumer's value
            with graph.inserting_after(new):
                value = graph.call_function(operator.getitem, (new, k))
            if ep.viewed:  # the consumers' own view, where it stood: its size arguments (nodes, when symbolic) come first
                with graph.inserting_before(ep.root):
                    value = _view_like(graph, ep.root, value)
            ep.tail.replace_all_uses_with(value)
            for n in [*reversed(ep.nodes), *([ep.root] if ep.viewed else []), ep.out]:
                graph.erase_node(n)
        for p in self.prologues.values():
            for n in [p.seq] if p.viewed else []:
                graph.erase_node(n)
            for n in reversed(p.nodes):
                graph.erase_node(n)
        return new

    def _call_step(self, args: tuple[fx.Node, ...]) -> Any:
        """The neuron's step on ``args`` in the fused step's graph: a call of its module, or a traced body inlined.

        A ``backend="hop"`` scan's body (a ``GraphModule``) is copied in node by node (its attributes read through
        the ``step`` submodule), so the fused step is one flat graph as a body Dynamo traced is: what the fused
        kernels rewrite in a body (a lifted float's ``.item()``, a lifted size) stays in reach.
        """
        fn = self.site.step_fn
        if not isinstance(fn, fx.GraphModule):
            return self.body.call_module("step", args)
        env: dict[fx.Node, Any] = {}
        placeholders = iter(args)
        for node in fn.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(placeholders)
            elif node.op == "output":
                return fx.node.map_arg(node.args[0], lambda n: env[n])
            elif node.op in ("get_attr", "call_module"):
                copy = self.body.node_copy(node, lambda n: env[n])
                copy.target = f"step.{node.target}"
                env[node] = copy
            else:
                env[node] = self.body.node_copy(node, lambda n: env[n])
        raise ValueError("the scan's body has no output")

    # ---------------------------------------------------------------- inputs

    def _seq_inputs(self) -> dict[int, fx.Node]:
        """Placeholders of the fused step's input sequences; the outer sequences in the same order."""
        phs: dict[int, fx.Node] = {}
        leaves: dict[fx.Node, fx.Node] = {}
        for i, x in enumerate(self.site.seqs):
            p = self.prologues.get(i)
            if p is None:
                phs[i] = self.body.placeholder(f"seq_{len(self.outer_seqs)}")
                self._outer_seq(x, x)
                continue
            for leaf in self._full_leaves(p.full, leaves):
                # the leaf has the root's shape: the view that made the scan's [T, B, ...] argument of it makes it so too
                self._outer_seq(_view_like(self.gm.graph, p.seq, leaf) if p.viewed else leaf, p.seq)
        for ep in self.epilogues.values():  # read at every step like the sequences the core takes
            for leaf in self._full_leaves(ep.full, leaves):
                self._outer_seq(self._as_output(leaf, ep.out) if ep.viewed else leaf, ep.out)
        return phs

    def _full_leaves(self, full: list[fx.Node], leaves: dict[fx.Node, fx.Node]) -> list[fx.Node]:
        """Placeholders for the full leaves not seen yet (returned, to be added as outer sequences), all in ``env``."""
        new: list[fx.Node] = []
        for leaf in full:
            if leaf not in leaves:
                leaves[leaf] = self.body.placeholder(f"seq_{len(self.outer_seqs) + len(new)}")
                new.append(leaf)
            self.env[leaf] = leaves[leaf]
        return new

    def _outer_seq(self, node: fx.Node, like: fx.Node) -> None:
        self.outer_seqs.append(node)
        self.outer_shapes.append(tuple(tensor_value(like).shape))  # type: ignore[union-attr]

    def _as_output(self, leaf: fx.Node, out: fx.Node) -> fx.Node:
        """``leaf`` (the consumers' ``[T * B, ...]`` shape) viewed as scan output ``out`` (``[T, B, ...]``): concrete
        sizes written out, symbolic ones taken from an outer sequence of that shape (``reshape_as``).

        Raises:
            ValueError: symbolic sizes and no outer sequence known to have ``out``'s shape (the scan stays unfused).
        """
        shape = tuple(tensor_value(out).shape)  # type: ignore[union-attr]
        if all(type(d) is int for d in shape):
            return self.outer("call_method", "reshape", leaf, shape)
        for node, have in zip(self.outer_seqs, self.outer_shapes):
            if same_shape(have, shape):
                return self.outer("call_method", "reshape_as", leaf, node)
        raise ValueError("no input sequence of the scan is known to have its output's symbolic shape")

    def _static(self, node: fx.Node, hint: str) -> fx.Node:
        ph = self.body.placeholder(f"static_{len(self.outer_statics)}_{hint}")
        self.outer_statics.append(node)
        return ph

    def _statics(self) -> None:
        """Static leaves and the batch norms' statistics: computed outside, placeholders inside (in ``env``)."""
        ends: list[Prologue | Epilogue] = [*self.prologues.values(), *self.epilogues.values()]
        for p in ends:
            like = tensor_value(p.root)
            assert like is not None
            for leaf in p.statics:
                if leaf in self.env:
                    continue
                v = tensor_value(leaf)
                assert v is not None
                outer = leaf
                if not p.viewed and v.dim() == like.dim():  # [1, *step]: drop the time dim
                    outer = self.outer("call_method", "squeeze", leaf, 0)
                self.env[leaf] = self._static(outer, "leaf")
            if not isinstance(p, Prologue):
                continue
            for bn_node, bn in p.batch_norms.items():
                for key, outer in self._batch_norm_statics(bn, like).items():
                    self.env[_Key(bn_node, key)] = self._static(outer, key)

    def _batch_norm_statics(self, bn: Any, like: torch.Tensor) -> dict[str, fx.Node]:
        """``mean``, ``invstd`` (and ``weight``, ``bias``) as ``[C, 1, ...]`` outside the scan.

        Training mode reads the batch statistics (and updates the running ones).
        The step computes ``(x - mean) * invstd * weight + bias``, BatchNorm's own
        order of operations. (Folding them into ``scale`` / ``shift`` would save
        the backward kernel two per-channel partial sums, but Inductor fuses
        ``rsqrt(var + eps) * weight`` into the statistics' Welford reduction,
        and Triton 3.6 fails to compile that kernel for CUDA (``PassManager::run
        failed`` in ``make_ttgir``; tools/results/gpu-2026-11-23/net-16c/).)
        """
        rank = like.dim()
        if bn.training:
            src = bn.input if like.dtype in (torch.float32, torch.float64) else self.outer("call_method", "float", bn.input)
            dims = [0, *range(2, rank)]
            vm = self.outer("call_function", torch.var_mean, src, dim=dims, correction=0)
            var, mean = self.outer("call_function", operator.getitem, vm, 0), self.outer("call_function", operator.getitem, vm, 1)
            if bn.running_mean is not None and bn.running_var is not None:
                self._update_running_stats(bn, mean, var, self._per_channel_count(bn.input, like))
        else:
            mean, var = bn.running_mean, bn.running_var
        stats = {"mean": mean, "invstd": self.outer("call_function", torch.rsqrt, self.outer("call_function", operator.add, var, bn.eps))}
        if bn.weight is not None:
            stats["weight"] = bn.weight
        if bn.bias is not None:
            stats["bias"] = bn.bias
        per_channel = (-1, *([1] * (rank - 2)))  # [C] statistics as [C, 1, ...]; -1: C may be symbolic
        return {k: self.outer("call_method", "reshape", t, per_channel) for k, t in stats.items()}

    def _per_channel_count(self, x: fx.Node, like: torch.Tensor) -> int | fx.Node:
        """How many values of ``x`` (``like``'s shape, ``[N, C, ...]``) each channel's statistics average: an ``int``,
        or a graph node computing it when the sizes are symbolic (a constant would hold one call's sizes)."""
        n: object = like.numel() // like.shape[1]  # a SymInt under symbolic sizes, whatever the stubs say
        if isinstance(n, int):
            return n
        numel, channels = self.outer("call_method", "numel", x), self.outer("call_method", "size", x, 1)
        return self.outer("call_function", operator.floordiv, numel, channels)

    def _update_running_stats(self, bn: Any, mean: fx.Node, var: fx.Node, n: int | fx.Node) -> None:
        """``running = (1 - momentum) * running + momentum * batch`` (unbiased variance), as BatchNorm does."""
        m = bn.momentum
        batch_var = self.outer("call_method", "detach", var)
        if isinstance(n, fx.Node):  # symbolic: at least 2 (Dynamo specialises sizes 0 and 1), as BatchNorm's training needs
            factor = self.outer("call_function", operator.truediv, n, self.outer("call_function", operator.sub, n, 1))
            batch_var = self.outer("call_function", operator.mul, batch_var, factor)
        elif n > 1:
            batch_var = self.outer("call_function", operator.mul, batch_var, n / (n - 1))
        for running, batch in ((bn.running_mean, self.outer("call_method", "detach", mean)), (bn.running_var, batch_var)):
            self.outer("call_method", "mul_", running, 1.0 - m)
            self.outer("call_method", "add_", running, batch, alpha=m)

    # ---------------------------------------------------------------- the step

    def _emit_prologue(self, p: Prologue) -> fx.Node:
        like = tensor_value(p.root)
        assert like is not None
        for node in p.nodes:
            if node in p.batch_norms:
                self.env[node] = self._emit_batch_norm(node, p)
            else:
                self.env[node] = self.body.node_copy(node, lambda n: self.env[n])
        value = self.env[p.root]
        if like.dtype not in (torch.float32, torch.float64):  # the statistics are fp32: back to the sequence's dtype
            value = self.body.call_method("to", (value, like.dtype))
        return value

    def _emit_epilogues(self, result: fx.Node) -> tuple[fx.Node, ...]:
        """The step's ``(*outputs, *states)`` with each absorbed consumer chain applied to its output."""
        ni, ns, no = self.site.counts
        values = self.body.call_function(_as_tuple, (result,))
        outs = [self.body.call_function(operator.getitem, (values, i)) for i in range(no + ns)]
        for k, ep in self.epilogues.items():
            self.env[ep.root] = outs[k]
            for node in ep.nodes:
                self.env[node] = self.body.node_copy(node, lambda n: self.env[n])
            outs[k] = self.env[ep.tail]
        return tuple(outs)

    def _emit_batch_norm(self, node: fx.Node, p: Prologue) -> fx.Node:
        bn = p.batch_norms[node]
        value = self.body.call_function(torch.sub, (self.env[bn.input], self.env[_Key(node, "mean")]))
        value = self.body.call_function(torch.mul, (value, self.env[_Key(node, "invstd")]))
        if bn.weight is not None:
            value = self.body.call_function(torch.mul, (value, self.env[_Key(node, "weight")]))
        if bn.bias is not None:
            value = self.body.call_function(torch.add, (value, self.env[_Key(node, "bias")]))
        return value


def _view_like(graph: fx.Graph, view: fx.Node, tensor: fx.Node) -> fx.Node:
    """``view`` (a ``view`` / ``reshape`` / ``flatten`` / ``unflatten`` node) applied to ``tensor`` instead of its input.

    Its size arguments are reused as they are (``int`` or, with symbolic sizes, the graph's size nodes), so the
    result has the view's shape for every call of the compiled graph; a ``view`` becomes a ``reshape`` (``tensor``
    may lie in another memory order than the view's input). Inserted at the insertion point."""
    target = "reshape" if view.op == "call_method" and view.target == "view" else view.target
    return graph.create_node(view.op, target, (tensor, *view.args[1:]), dict(view.kwargs))


def _as_tuple(result: Any) -> tuple[Any, ...]:
    """A step's result as a tuple (a lone tensor counts as a 1-tuple, as in :func:`flexsn_hop.eager_scan`)."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


@dataclass(frozen=True)
class _Key:
    """An environment key for a value the rewrite made up (a batch norm's statistic)."""

    node: fx.Node
    what: str


def _free_name(gm: fx.GraphModule, base: str) -> str:
    k = 0
    while hasattr(gm, f"{base}_{k}"):
        k += 1
    return f"{base}_{k}"


def _plans(site: ScanSite) -> tuple[dict[int, Prologue], dict[int, Epilogue]]:
    """What feeds each input sequence and what consumes each output sequence, where absorbable."""
    args = [*site.seqs, *site.init, *site.lifted]
    prologues: dict[int, Prologue] = {}
    for i, x in enumerate(site.seqs):
        if isinstance(x, fx.Node) and args.count(x) == 1:
            p = find_prologue(x, site.node)
            if p is not None:
                prologues[i] = p
    epilogues: dict[int, Epilogue] = {}
    for user in site.node.users:
        k = user.args[1] if user.target is operator.getitem and len(user.args) == 2 else None
        if isinstance(k, int) and 0 <= k < site.counts[2] and k not in epilogues:
            ep = find_epilogue(user, site.node)
            if ep is not None:
                epilogues[k] = ep
    return prologues, epilogues


def fuse_neighbours(graph: fx.Graph) -> int:
    """Rewrite every FlexSN scan of ``graph`` whose input sequences have absorbable producers.

    ``graph``: a Dynamo-captured (pre-grad) graph with its ``owning_module``.
    Returns the number of scans rewritten (0 when the pass is disabled).
    A rewrite that fails leaves that scan as it was, with one warning.
    """
    gm = graph.owning_module
    if not neighbour_fusion_enabled() or not isinstance(gm, fx.GraphModule):
        return 0
    rewritten = 0
    for node in list(graph.nodes):
        site = scan_site(gm, node)
        prologues, epilogues = _plans(site) if site is not None else ({}, {})
        if site is None or not (prologues or epilogues):
            continue
        before = set(graph.nodes)
        try:
            _Rewrite(gm, site, prologues, epilogues).apply()
        except Exception as exc:  # noqa: BLE001 - leave the scan as it was
            for n in reversed(list(graph.nodes)):
                if n not in before and not n.users:
                    graph.erase_node(n)
            message = f"flexsn: absorbing the producers of a scan failed ({type(exc).__name__}: {exc}); it stays unfused"
            if message not in _WARNED:
                _WARNED.add(message)
                warnings.warn(message, stacklevel=2)
            continue
        absorbed = sum(len(p.nodes) for p in prologues.values()) + sum(len(e.nodes) for e in epilogues.values())
        log.debug("flexsn: absorbed %d producer op(s) into a scan", absorbed)
        _count("scans_fused")
        _count("ops_absorbed", absorbed)
        rewritten += 1
    if rewritten:
        graph.lint()
        gm.recompile()
    return rewritten


def _count(name: str, n: int = 1) -> None:
    try:
        from torch._dynamo.utils import counters

        counters["flexsn"][name] += n
    except Exception:  # pragma: no cover - private API drift: counting is for tests and logs only
        pass


class _NeighbourPass:
    """The pre-grad pass: :func:`fuse_neighbours`, then the pass configured before it (if any)."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(self, graph: fx.Graph) -> None:
        fuse_neighbours(graph)
        previous = self.previous
        for fn in previous if isinstance(previous, (list, tuple)) else [previous] if previous is not None else []:
            fn(graph)


def install_neighbour_pass() -> bool:
    """Put :func:`fuse_neighbours` in ``torch._inductor.config.pre_grad_custom_pass`` (once, keeping any pass set before).

    Returns ``False`` (with a warning) when this PyTorch has no such setting, and
    ``False`` without one when ``flex_sn_scan`` is no operator here
    (:func:`flexsn_hop.hop_kernels_registered`: the rewrite would have nothing to emit,
    and importing Inductor against drifted internals could break ``torch.compile``).
    """
    if not hop_kernels_registered():
        return False
    try:
        from torch._inductor import config
    except Exception as exc:  # pragma: no cover - private API drift
        warnings.warn(f"flexsn_hop: Inductor's config is unavailable ({exc!r}); no neighbour fusion", stacklevel=2)
        return False
    current = getattr(config, "pre_grad_custom_pass", _MISSING)
    if current is _MISSING:  # pragma: no cover - private API drift
        warnings.warn("flexsn_hop: torch._inductor.config has no pre_grad_custom_pass; no neighbour fusion", stacklevel=2)
        return False
    if not isinstance(current, _NeighbourPass):
        config.pre_grad_custom_pass = _NeighbourPass(current)
    # The rewrite depends on this process's kernel handles, so it must run before Inductor's cache
    # lookup (the "early" timing, keyed on the rewritten graph); that is also what "default" picks for
    # a pass without uuid(), but with a warning on every compile of a new process.
    if getattr(config, "pre_grad_pass_timing", None) == "default":
        config.pre_grad_pass_timing = "early"
    return True


_MISSING = object()
