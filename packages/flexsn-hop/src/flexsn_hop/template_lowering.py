"""Experimental (#16): ``flexsn::inference`` lowered to an Inductor ``TritonTemplate``, so Inductor fuses neighbours.

Under ``torch.compile`` a FlexSN inference scan is the custom op ``flexsn::inference``, which Inductor
calls as an opaque kernel: the tensor a BatchNorm writes is read back by the scan, the spikes it writes
are read back by a residual add. With :func:`enable_template_lowering`, Inductor lowers the op (as
``torch/_inductor/kernel/flex/flex_attention.py`` lowers FlexAttention's operator) to the scan rendered as
a ``TritonTemplate`` (:mod:`flexsn_codegen.inductor_template`), and its scheduler fuses pointwise producers
of the input sequences into the template's loads (prologue fusion) and pointwise consumers of output 0
into its store (epilogue fusion), subject to Inductor's own rules (``torch/_inductor/scheduler.py``: a
prologue that reads no more bytes than it writes, an epilogue of the output's size).

What is lowered: CUDA inference calls (no gradients; training graphs keep ``flexsn::training`` and
``flexsn::backward`` opaque) with float32, float16 or bfloat16 sequences of static sizes and floating
outputs. Anything else, or a call this module cannot lower (or whose template Inductor fails to build),
runs as the opaque op (PyTorch's ``fallback_handler``, what Inductor does without a lowering), with one
warning per reason. Off by default:
the neighbour pass (:mod:`flexsn_hop.neighbour_pass`) already fuses the common neighbours, forward and
backward, on every device; this path is for the pointwise ops that pass does not take and for measuring.
Whether it is on, and a digest of the lowering's source, are part of Inductor's FX-graph cache key (a no-op
post-grad pass whose ``uuid`` says so), so a graph compiled with it off, or by another version of it, is not
served with it on.
"""

from __future__ import annotations

import hashlib
import math
import operator
import sys
import threading
import warnings
from pathlib import Path
from typing import Any
from unittest.mock import patch

import torch

from flexsn_codegen.inductor_template import render_inference_template, step_parts
from flexsn_runtime.layout import strides_in_order
from flexsn_runtime.op_impls import inference_kernel
from flexsn_runtime.registry import lookup_flexsn_kernel_handle
from flexsn_runtime.statics import padded_shape

__all__ = ["enable_template_lowering", "template_lowering_enabled"]

_STATE: dict[str, Any] = {"enabled": False, "installed": False}
_LOCK = threading.Lock()
_TEMPLATES: dict[str, Any] = {}  # source digest -> TritonTemplate (Inductor refuses a second one of a name)
_TOLD: set[str] = set()
_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
#: the template's launch: the eager kernels' default (flexsn_runtime.launchers). Offering Inductor's autotuning
#: four launches (512/4, 2048/8, 256/2 besides) only lengthened compiles: the convnet's inference step was no
#: faster (tools/results/gpu-2026-11-30c/ run10 against run8)
_BLOCK_NCL, _NUM_WARPS = 1024, 4


class _NotLowered(Exception):
    """Why a call stays the opaque op (told once per reason)."""


def template_lowering_enabled() -> bool:
    """Whether Inductor lowers ``flexsn::inference`` to a ``TritonTemplate`` (see the module docstring)."""
    return bool(_STATE["enabled"])


def enable_template_lowering(on: bool = True) -> bool:
    """Turn the experimental template lowering of FlexSN inference scans on or off (off by default).

    Takes effect for graphs compiled afterwards (``torch._dynamo.reset()`` to recompile a function).
    Imports Inductor's lowering module when turned on.

    Returns:
        Whether the lowering is registered (``False``, with a warning, where this PyTorch's Inductor has no
        ``TritonTemplate`` of the form it needs).

    Raises:
        TypeError: ``on`` is not a bool.
    """
    if not isinstance(on, bool):
        raise TypeError(f"enable_template_lowering(on) takes a bool, got {type(on).__name__}")
    with _LOCK:
        _STATE["enabled"] = on
        if on and not _STATE["installed"]:
            try:
                _install()
            except Exception as exc:  # noqa: BLE001 - private Inductor API drift: say so, change nothing else
                _STATE["enabled"] = False
                warnings.warn(f"FlexSN: the template lowering could not be registered with Inductor: {exc!r}",
                              RuntimeWarning, stacklevel=2)
                return False
            _STATE["installed"] = True
    return bool(_STATE["installed"])


def _install() -> None:
    from torch._inductor import config
    from torch._inductor.custom_graph_pass import CustomGraphPass
    from torch._inductor.lowering import fallback_handler, register_lowering

    op = torch.ops.flexsn.inference.default
    opaque = fallback_handler(op, add_to_fallback_set=False)  # type: ignore[no-untyped-call]  # Inductor is untyped

    class _CacheKey(CustomGraphPass):
        """No-op post-grad pass whose ``uuid`` puts the lowering's on/off in Inductor's FX-graph cache key."""

        def __init__(self, previous: Any) -> None:
            self.previous = previous

        def __call__(self, graph: torch.fx.Graph) -> None:
            if self.previous is not None:
                self.previous(graph)

        def uuid(self) -> Any:
            previous = self.previous.uuid() if isinstance(self.previous, CustomGraphPass) else None
            return ("flexsn-template-lowering", _code_digest(), _STATE["enabled"], previous)

    config.post_grad_custom_post_pass = _CacheKey(config.post_grad_custom_post_pass)

    @register_lowering(op, type_promotion_kind=None)
    def lower_inference(handle: Any, flat_args: list[Any], final_state: bool) -> Any:
        if _STATE["enabled"]:
            try:
                return _emit(int(handle), list(flat_args), bool(final_state))
            except _NotLowered as why:
                _tell(str(why))
            except Exception as exc:  # noqa: BLE001 - Inductor's template machinery failed: the op still runs
                _tell(f"building the template failed ({type(exc).__name__}: {exc})")
        return opaque(handle, flat_args, final_state)


def _code_digest() -> str:
    """SHA-256 of this module's and the template renderer's sources: a graph compiled by another version of the
    lowering is not served from Inductor's FX-graph cache (the cache key holds the graph, not the lowerings)."""
    from flexsn_codegen import inductor_template

    if "digest" not in _STATE:
        text = "".join(Path(m.__file__).read_text() for m in (sys.modules[__name__], inductor_template) if m.__file__)
        _STATE["digest"] = hashlib.sha256(text.encode()).hexdigest()[:20]
    return str(_STATE["digest"])


def _tell(reason: str) -> None:
    if reason not in _TOLD:
        _TOLD.add(reason)
        warnings.warn(f"FlexSN: an inference scan stays Inductor's opaque op (no template lowering): {reason}",
                      RuntimeWarning, stacklevel=3)


def _ints(sizes: Any) -> list[int]:
    out = []
    for s in sizes:
        try:
            out.append(int(s))
        except TypeError:
            raise _NotLowered("symbolic sizes (the template is rendered for static ones)") from None
    return out


def _reads_a_result_after_output0(node: torch.fx.Node) -> bool:
    """Whether a node fed by the scan's output 0 (through any chain of nodes) also reads another of its results.

    Such a consumer could become the template's epilogue, which runs inside the loop over time at output 0's
    store, before the final states are written after the loop: it would read them unwritten. Inductor's
    scheduler tracks the template's mutated buffers apart from its output, and is expected to refuse such a
    fusion, but nothing here relies on that: a graph with such a node keeps the opaque op. ``node`` is the
    ``flexsn::inference`` call of Inductor's post-grad graph; a use of it other than ``getitem`` counts as such
    a reader; the graph's ``output`` node (which returns spikes and states alike) does not.
    """
    first: list[torch.fx.Node] = []
    others: set[torch.fx.Node] = set()
    for user in node.users:
        if user.op != "call_function" or user.target is not operator.getitem:
            return True
        if user.args[1] == 0:
            first.append(user)
        else:
            others.add(user)
    if not others:
        return False
    seen: set[torch.fx.Node] = set()
    stack = list(first)
    while stack:
        for user in stack.pop().users:
            if user not in seen and user.op != "output":  # the graph's results: no kernel reads them there
                seen.add(user)
                if any(arg in others for arg in user.all_input_nodes):
                    return True
                stack.append(user)
    return False


def _open_pointwise(node: Any) -> bool:
    """Whether IR ``node`` is a pointwise computation whose layout is still open (not yet a buffer, or a buffer of
    ``FlexibleLayout``)."""
    from torch._inductor import ir

    return isinstance(node, ir.Pointwise) or (
        isinstance(node, ir.ComputedBuffer) and isinstance(node.layout, ir.FlexibleLayout) and isinstance(node.data, ir.Pointwise)
    )


def _reindexing_view(node: Any) -> bool:
    """Whether IR ``node`` is a view that maps its indices onto its data's (a reshape, permute, expand...), not one
    with a layout of its own (``ReinterpretView``) or a dtype reinterpretation."""
    from torch._inductor import ir

    return isinstance(node, ir.BaseView) and not isinstance(node, (ir.ReinterpretView, ir.DtypeView))


def _open_producer(x: Any) -> bool:
    """Whether sequence ``x`` is (a view of) a pointwise computation whose layout is still open: Inductor may fuse
    it into the template's loads as the prologue."""
    from torch._inductor import ir

    node: Any = x.data if isinstance(x, ir.TensorBox) else x
    while _reindexing_view(node):
        node = node.data
    return isinstance(node, ir.StorageBox) and _open_pointwise(node.data)


def _layout_request(x: Any, walk: list[int]) -> list[int]:
    """The memory order the template asks of input sequence ``x`` (``require_stride_order``): the walk's, except
    for a prologue candidate (:func:`_open_producer`), left contiguous. Asked for another order through its
    views, such a producer became a BatchNorm kernel of its own beside the template, 126 µs on the convnet
    (``tools/results/gpu-2026-11-30d/`` run4, run5: Inductor no longer saw the template read it); left contiguous,
    it was fused into the template's loads (run3), which the walk makes read the tensor it reads in its order."""
    return list(range(len(walk))) if _open_producer(x) else walk


def _memory_order(x: Any, rank: int) -> list[int]:
    """The dims of sequence ``x`` from the outermost to the innermost in memory, time first: the order of the
    strides at which ``x`` reads the tensor of fixed layout it reads in full (:func:`_read_strides`): its own
    buffer, through its views, or what a pointwise producer of ``x`` reads (Inductor then fuses that producer
    into the template's loads as the prologue: a BatchNorm over a channels-last convolution output walked in
    the contiguous order took 492 µs against 137 µs in the convolution's order on the H200,
    ``tools/results/gpu-2026-11-30d/`` run2 and run7). Contiguous where that tells nothing, where time is not
    outermost, or where the producer fails Inductor's prologue rule (:func:`_fusable_prologue`): Inductor then
    writes it to memory in the contiguous layout the template leaves it (:func:`_layout_request`), and the walk
    follows that (run10). (A view's ``get_layout`` is its buffer's, in the buffer's dims: not asked.)"""
    contiguous = list(range(rank))
    strides = _read_strides(x, rank)
    if strides is None:
        return contiguous
    order = sorted(range(rank), key=lambda d: (-strides[d], d))
    return order if order[0] == 0 else contiguous


def _inlining_loader(node: Any) -> Any:
    """``node``'s loader, where it is (a view of) a pointwise buffer of open layout, that buffer's own computation.

    Inductor's loader of such a buffer, once realized, loads it (``ComputedBuffer.make_loader``), which tells
    nothing of what it reads; its computation reads the tensors the prologue will read. One level deep."""
    from torch._inductor import ir

    if isinstance(node, ir.MutableBox):  # TensorBox, StorageBox
        return _inlining_loader(node.data)
    if isinstance(node, ir.ComputedBuffer) and _open_pointwise(node):
        return node.data.make_loader()
    if _reindexing_view(node):
        try:
            reindex = node.make_reindexer()
        except NotImplementedError:
            return node.make_loader()
        inner = _inlining_loader(node.data)
        return lambda index: inner(reindex(index))
    return node.make_loader()


def _read_strides(x: Any, rank: int) -> list[int] | None:
    """Per dim of ``x``, the stride at which its loader reads a tensor of fixed layout that it reads in full
    (every dim of size above 1 at its own, linear stride); the first such read, ``None`` without one, and
    ``None`` for a prologue candidate that fails :func:`_fusable_prologue` (its reads are not what the template
    will read). The rule is applied here because it needs the same reads, traced once."""
    from torch._inductor import ir
    from torch._inductor.dependencies import MemoryDep, extract_read_writes, index_vars_squeeze

    size = _ints(x.get_size())
    args, _ = index_vars_squeeze(size, prefix="d")  # the variables extract_read_writes names (0 for a size-1 dim)
    dims = list(args[0])
    try:  # indexing buffers of open layout as they are now, as Inductor does to list a node's reads
        with patch.object(ir.FlexibleLayout, "allow_indexing", True):
            reads = extract_read_writes(_inlining_loader(x), size, prefix="d").reads
    except Exception:  # noqa: BLE001 - a loader this cannot trace keeps the contiguous order
        return None
    buffers = {dep.name: _buffer(dep.name) for dep in reads if isinstance(dep, MemoryDep)}
    if _open_producer(x) and not _fusable_prologue(buffers.values(), math.prod(size), x.get_dtype().itemsize):
        return None  # Inductor writes it to memory in the layout the template asks (contiguous): walk that
    for dep in reads:
        if not isinstance(dep, MemoryDep):
            continue
        fixed = isinstance(getattr(buffers[dep.name], "layout", None), ir.FixedLayout)
        coeffs: list[int] = []
        for var, n in zip(dims, size):
            if not getattr(var, "is_Symbol", False):  # a size-1 dim's index, 0
                coeffs.append(0)
                continue
            try:  # an index Inductor wrote with divisions or modulos (a view) is not linear: no stride to read
                slope = dep.index.diff(var)  # a sympy expression's derivative (Inductor's indices are sympy)
            except Exception:  # noqa: BLE001
                break
            if slope.free_symbols or not slope.is_Integer or (n > 1 and not slope.is_positive):
                break
            coeffs.append(int(slope))
        full = [c for c, n in zip(coeffs, size) if n > 1]
        if fixed and len(coeffs) == rank and len(set(full)) == len(full):
            return coeffs
    return None


def _buffer(name: str) -> Any:
    """Inductor's buffer (or graph input) of that name in the graph being lowered, ``None`` if there is none."""
    from torch._inductor.virtualized import V

    try:
        return V.graph.get_buffer(name)
    except Exception:  # noqa: BLE001 - not a buffer of this graph
        return None


def _fusable_prologue(read: Any, numel: int, itemsize: int) -> bool:
    """Whether a pointwise producer of ``numel`` elements of ``itemsize`` bytes, reading buffers ``read``, passes
    Inductor's rule for prologue fusion: it reads at most 1.1 times the bytes it writes
    (``torch/_inductor/scheduler.py``, ``check_prologue_fusion_heuristics_fusable``, ``BYTES_THRESHOLD_MULTIPLIER``).
    A BatchNorm passes (the convolution's output and per-channel vectors); a residual sum of two sequences does
    not, and is written to memory before the template reads it. A buffer counts at most the producer's size."""
    total = 0
    for buf in read:
        try:
            total += min(math.prod(_ints(buf.get_size())), numel) * buf.get_dtype().itemsize
        except Exception:  # noqa: BLE001 - a read this cannot size (not a buffer, symbolic): count it as a full one
            total += numel * itemsize
    return total <= 1.1 * numel * itemsize


def _inductor_order(order: list[int]) -> list[int]:
    """Inductor's stride order (``ir.get_stride_order``: each dim's rank, 0 for the innermost) of a memory order."""
    ranks = [0] * len(order)
    for r, d in enumerate(reversed(order)):
        ranks[d] = r
    return ranks


def _emit(handle: int, flat_args: list[Any], final_state: bool) -> list[Any]:
    """The template call for one ``flexsn::inference(handle, flat_args, final_state)`` node."""
    from torch._inductor import ir
    from torch._inductor.lowering import empty_strided
    from torch._inductor.select_algorithm import SymbolicGridFn, TritonTemplate, autotune_select_algorithm
    from torch._inductor.virtualized import V

    kernel, info = inference_kernel(lookup_flexsn_kernel_handle(handle), final_state)
    ni, ns, no, nw = info.num_inputs, info.num_states, info.num_outputs, info.num_static
    if len(flat_args) not in (ni + nw, ni + ns + nw) or no < 1:
        raise _NotLowered(f"{len(flat_args)} arguments for {ni} input(s), {ns} state(s), {nw} static(s)")
    zero_init = len(flat_args) == ni + nw
    x0 = flat_args[0]
    device, dtype = x0.get_device(), x0.get_dtype()
    if device is None or device.type != "cuda":
        raise _NotLowered(f"sequences on {device} (the template is a CUDA kernel)")
    if dtype not in _FLOATS:
        raise _NotLowered(f"dtype {dtype}")
    size = _ints(x0.get_size())
    if len(size) < 2 or math.prod(size) == 0:
        raise _NotLowered(f"sequence shape {size} (the template needs [T >= 1, *step] with neurons)")
    body, statics = flat_args[: len(flat_args) - nw], flat_args[len(flat_args) - nw :]
    for t in body:
        if t.get_dtype() != dtype or t.get_device() != device:
            raise _NotLowered("sequences and states of mixed dtypes or devices")
    if any(_ints(t.get_size()) != size for t in body[:ni]) or any(_ints(t.get_size()) != size[1:] for t in body[ni:]):
        raise _NotLowered("sequences or states whose shapes differ from the first input's")
    step = size[1:]
    static_shapes: list[tuple[int, ...]] = []
    for w in statics:
        shape = padded_shape(_ints(w.get_size()), step)  # the kernels' broadcasting rule, in the step's rank
        if shape is None:
            raise _NotLowered(f"a static input of shape {_ints(w.get_size())} beside steps {step}")
        static_shapes.append(shape)
    out_dtypes: list[torch.dtype] = [
        kernel.output_dtypes[k] or dtype if k < len(kernel.output_dtypes) else dtype for k in range(no)
    ]
    if any(d not in _FLOATS for d in out_dtypes):
        raise _NotLowered(f"an output of dtype {[d for d in out_dtypes if d not in _FLOATS][0]} (floating outputs only)")
    try:
        parts = step_parts(kernel.code)
    except ValueError as exc:
        raise _NotLowered(str(exc)) from None
    # a walk over the graph: after the checks of the call itself
    current = getattr(V.graph, "current_node", None)
    if current is None or _reads_a_result_after_output0(current):
        raise _NotLowered("a node fed by the spikes also reads the scan's states or other outputs (it could be fused "
                          "into the template's loop over time, before the final states are written)")
    order = _memory_order(x0, len(size))  # the walk: the sequences' dims, outermost first (time first)
    seqs = [ir.ExternKernel.require_stride_order(t, _inductor_order(_layout_request(t, order))) for t in body[:ni]]
    small = [ir.ExternKernel.require_contiguous(t) for t in (*body[ni:], *statics)]
    step_order = tuple(d - 1 for d in order[1:])  # the per-step dims in memory order (flexsn_runtime.layout's Order)
    seq_strides, step_strides = list(strides_in_order(size, step_order)), list(strides_in_order(step, step_order))
    contiguous = strides_in_order(step, tuple(range(len(step))))

    def buffer(shape: list[int], strides: list[int], dt: torch.dtype) -> Any:
        return empty_strided(shape, strides, dtype=dt, device=device)

    written = [buffer(size, seq_strides, out_dtypes[k]) for k in range(1, no)]
    written += [buffer(step, step_strides, dtype) if final_state else buffer(size, seq_strides, dtype) for _ in range(ns)]
    arg_strides: dict[str, list[int]] = {f"s0_{j}": list(contiguous) for j in range(len(body) - ni)}
    for k, shape in enumerate(static_shapes):  # contiguous in the step's rank, 0 along the broadcast dims
        dense = strides_in_order(shape, tuple(range(len(shape))))
        arg_strides[f"w{k}"] = [0 if n == 1 else st for n, st in zip(shape, dense)]
    for k in range(1, no):
        arg_strides[f"y{k}"] = seq_strides
    for j in range(ns):
        arg_strides[f"sf{j}" if final_state else f"sq{j}"] = step_strides if final_state else seq_strides
    source = render_inference_template(parts, ni, ns, no, nw, len(step), zero_init, final_state, arg_strides, order[1:])
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    template = _TEMPLATES.get(digest)
    if template is None:

        @SymbolicGridFn
        def grid(t: Any, ncl: Any, meta: dict[str, Any], *, cdiv: Any) -> tuple[Any, int, int]:
            return (cdiv(ncl, meta["BLOCK_NCL"]), 1, 1)

        template = _TEMPLATES[digest] = TritonTemplate(name=f"flexsn_scan_{digest}", grid=grid, source=source)
    inputs = [*seqs, *small]
    layout = ir.FixedLayout(device, out_dtypes[0], size, stride=seq_strides)
    choices: list[Any] = []
    error = template.maybe_append_choice(
        choices=choices, input_nodes=[*inputs, *written], layout=layout, mutated_inputs=written or None,
        call_sizes=[size[0], math.prod(step)], BLOCK_NCL=_BLOCK_NCL, num_warps=_NUM_WARPS, num_stages=1,
    )
    if error is not None or not choices:
        raise _NotLowered(f"Inductor refused the template: {error!r}")
    picked = autotune_select_algorithm(  # type: ignore[no-untyped-call]  # Inductor is untyped
        f"flexsn_scan_{digest}", choices, [*inputs, *written], layout)
    out = picked[0] if isinstance(picked, tuple) else picked  # (node, choice) in later releases
    return [out, *written]
