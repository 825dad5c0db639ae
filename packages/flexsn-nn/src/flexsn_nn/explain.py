"""``explain``: why a core runs fused or not, what was traced and generated, and what a step moves.

The analogue of ``torch._dynamo.explain`` for FlexSN: one call builds the
core's kernels (:class:`flexsn_runtime.FlexSNKernel`) and reports whether it
lowers, the op and the source line that block it with what to write instead,
the traced graphs, the generated Triton sources and their cache paths, the
tensors saved per step for training, and the bytes moved per element and step.
"""

from __future__ import annotations

import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch import fx
from torch.utils._python_dispatch import TorchDispatchMode

from flexsn_codegen import backward_saved_args, final_state_forward_returns, source_path
from flexsn_runtime import FlexSNKernel, FlexSNKernelHandle, TrainingKernels, dtype_reason, ensure_training_kernels, training_kernels
from flexsn_runtime.builders import tracing_examples
from flexsn_trace import generate_inference_graph

from .arity import resolve_counts
from .module import FlexSN

__all__ = ["Explanation", "NetworkExplanation", "explain", "explain_network"]

#: what to write instead of an op that mixes neurons (packet name -> advice)
_ADVICE = {
    **dict.fromkeys(("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"),
                    "a running sum over the elements of one step couples neurons; keep it as a state across time steps, "
                    "or compute it outside the neuron and pass it as an input"),
    **dict.fromkeys(("mm", "bmm", "addmm", "matmul", "dot", "mv", "linear", "baddbmm"),
                    "a matrix product mixes neurons; apply it before the neuron (nn.Linear / nn.Conv2d) and pass the "
                    "result as an input"),
    **dict.fromkeys(("sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "norm", "logsumexp"),
                    "a reduction over the elements of a step mixes neurons; compute it outside the neuron and pass it "
                    "as an input or a static input"),
    "copy_": "write the step out of place (v = v * 0.5 + x, not v.mul_(0.5).add_(x)); an in-place change of an "
             "argument reaches the caller's input sequence or state in the eager loop",
    **dict.fromkeys(("index", "index_put", "masked_select", "nonzero"),
                    "x[mask] has as many elements as the mask selects; write torch.where(mask, f(x), y), or assign "
                    "y[mask] = f(x[mask]) with a mask of y's shape whose selected values go nowhere else (that fuses)"),
}
_GENERIC_ADVICE = "write the step with elementwise ops; flexsn_codegen.supported_ops() lists the aten ops that lower"


@dataclass
class Explanation:
    """What :func:`explain` found (``str()`` gives a readable report).

    Attributes:
        lowers: inference runs on the fused kernels.
        trains_fused: calls that need gradients run on the fused BPTT kernels.
        reason: why inference falls back (``None`` when it lowers).
        training_reason: why training falls back (``None`` when it is fused).
        blocking_op: the aten op without a lowering (e.g. ``"aten.cumsum.default"``), if that is the reason.
        where: ``"file:line: code"`` of the user's call that produced it, when the trace recorded it.
        suggestion: what to write instead.
        captures: tensors the core reads from outside, lifted into static inputs.
        inference_graph: the traced step graph as Python code.
        sources: kernel kind -> ``(Triton source, cache path)``.
        saved_per_step: what the backward kernel reads for each step (training).
        bytes_per_element_step: ``{"inference": ..., "training": ...}`` bytes per neuron and step,
            final-state variants, for ``element_size`` bytes per element.
        dtype_fallbacks: ``"bfloat16 training"`` (a 16-bit dtype and mode) -> why calls of that dtype run the
            eager loop although float32 ones run fused: the core, or its gradient, reads the dtype
            (:func:`flexsn_runtime.dtype_reason`); empty when every dtype runs fused.
        without_gradient: the results (``"output 0"``, ``"state 1"``) no argument reaches through a differentiable
            op, e.g. a spike from a hard threshold written without a surrogate: they require no grad on any
            backend, as in PyTorch, so nothing upstream learns through them.
        module_route: for an explained neuron whose calls do not take the kernels as set up (``step_mode="s"``,
            the neurons' default, runs one step of the core per call; ``backend="torch"`` the eager loop), what
            they run and what to set instead; ``None`` otherwise.
        unwatched: reads of the core the place search cannot follow (``getattr(cfg, key)``; each
            ``"<expression> in <function> (<file>:<line>)"``): a number read there is a constant of the kernels
            that a later change does not reach (:func:`flexsn_trace.unfollowed.unfollowed_reads`).
        side_effects: statements of the step that change state outside its arguments (``RECORD.append(v)``),
            which the eager loop runs at every step and the fused kernels only while they are traced
            (:func:`flexsn_trace.side_effects.side_effects`); one that changes a number the core also reads makes
            the neuron run the eager loop (``reason``; :func:`flexsn_runtime.kernel_build.settled_constants`).
    """

    lowers: bool
    trains_fused: bool
    reason: str | None = None
    training_reason: str | None = None
    blocking_op: str | None = None
    where: str | None = None
    suggestion: str | None = None
    captures: tuple[str, ...] = ()
    inference_graph: str | None = None
    sources: dict[str, tuple[str, Path]] = field(default_factory=dict)
    saved_per_step: list[str] = field(default_factory=list)
    bytes_per_element_step: dict[str, float] = field(default_factory=dict)
    dtype_fallbacks: dict[str, str] = field(default_factory=dict)
    module_route: str | None = None
    without_gradient: tuple[str, ...] = ()
    unwatched: tuple[str, ...] = ()
    side_effects: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = self.summary()
        if self.saved_per_step:
            lines.append("saved per step for the backward: " + ", ".join(self.saved_per_step))
        for kind, moved in self.bytes_per_element_step.items():
            lines.append(f"bytes per element and step ({kind}): {moved:g}")
        for kind, (_, path) in self.sources.items():
            lines.append(f"{kind} kernel source: {path}")
        if self.inference_graph:
            lines += ["traced step:", self.inference_graph.strip()]
        return "\n".join(lines)

    def summary(self) -> list[str]:
        """The report's lines on how the neuron runs and why (without what was traced, saved and generated)."""
        lines = [f"fused inference: {'yes' if self.lowers else 'no'}; fused training: {'yes' if self.trains_fused else 'no'}"]
        if self.module_route:
            lines.append(f"this module: {self.module_route}")
        for label, value in (("reason", self.reason), ("training reason", self.training_reason),
                             ("blocking op", self.blocking_op), ("at", self.where), ("instead", self.suggestion)):
            if value:
                lines.append(f"{label}: {value}")
        for case, why in self.dtype_fallbacks.items():
            lines.append(f"{case} runs the eager loop: {why}")
        if self.captures:
            lines.append(f"lifted captured tensors: {', '.join(self.captures)}")
        if self.without_gradient:
            lines.append(f"without gradient (a hard threshold without a surrogate?): {', '.join(self.without_gradient)}")
        if self.unwatched:
            lines.append(f"reads a later change does not reach (constants of the kernels): {'; '.join(self.unwatched)}")
        if self.side_effects:  # the eager loop, when the neuron falls back to it, makes them at every step
            made = "made only while tracing" if self.lowers else "made at every step of the eager loop"
            lines.append(f"changes outside its arguments, {made}: {'; '.join(self.side_effects)}")
        return lines


@dataclass
class NetworkExplanation:
    """What :func:`explain_network` found: one :class:`Explanation` per FlexSN neuron of a network (``str()`` gives
    each neuron's summary under its module name).

    Attributes:
        neurons: the neurons' explanations by module name (``"features.3"``), in ``named_modules()`` order; a
            neuron reachable under two names is listed once.
        kinds: the neurons' class names by module name (``"LIFNode"``).
    """

    neurons: dict[str, Explanation]
    kinds: dict[str, str]

    def fused(self, training: bool = False) -> list[str]:
        """The neurons whose calls run inference (``training``: the BPTT step) on the fused kernels as they are set
        up: the core lowers, and the step mode and backend take the kernels (:attr:`Explanation.module_route` is
        ``None``)."""
        return [name for name, e in self.neurons.items()
                if (e.trains_fused if training else e.lowers) and e.module_route is None]

    @property
    def lowers(self) -> bool:
        """Every neuron's calls run inference on the fused kernels as the neuron is set up (:meth:`fused`)."""
        return len(self.fused()) == len(self.neurons)

    @property
    def trains_fused(self) -> bool:
        """Every neuron's calls that need gradients run on the fused BPTT kernels as the neuron is set up."""
        return len(self.fused(training=True)) == len(self.neurons)

    def __str__(self) -> str:
        n, fused, trained = len(self.neurons), len(self.fused()), len(self.fused(training=True))
        lines = [f"{n} FlexSN neuron{'s' if n != 1 else ''}: as set up, {fused} run inference fused, {trained} train fused"]
        for name, e in self.neurons.items():
            first, *rest = e.summary()
            lines.append(f"{name} ({self.kinds[name]}): {first}")
            lines += [f"    {line}" for line in rest]
        return "\n".join(lines)


def _module_route(m: FlexSN) -> str | None:
    """What a neuron's calls run when its settings keep them off the kernels (``Explanation.module_route``)."""
    if m.backend == "torch":
        return 'backend="torch" runs the eager loop over the core; backend="triton" runs the kernels below'
    if m.step_mode == "s":
        return ('step_mode="s" (the neurons\' default, as SpikingJelly\'s) runs one step of the core per call [*shape]; '
                'step_mode="m" (or functional.set_step_mode(net, "m")) runs [T, *shape] sequences on the kernels below')
    return None


def _op_packet(op: str) -> str:
    parts = op.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "aten" else parts[0]


class _FindOp(TorchDispatchMode):  # type: ignore[no-untyped-call]
    """Records the Python frame that dispatches ``op`` (the user's line, not torch's or ours)."""

    def __init__(self, op: str) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.op = op
        self.where: str | None = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if self.where is None and str(func) == self.op:
            frames = [f for f in traceback.extract_stack() if "/torch/" not in f.filename and "/flexsn_" not in f.filename]
            if frames:
                f = frames[-1]
                self.where = f"{f.filename}:{f.lineno}: {(f.line or '').strip()}"
        return func(*args, **(kwargs or {}))


def _where(core: Callable[..., Any], examples: Sequence[torch.Tensor], op: str) -> str | None:
    """``"file:line: code"`` of the user's call that dispatches ``op`` when ``core`` runs on ``examples``."""
    finder = _FindOp(op)
    try:
        with torch.no_grad(), finder:
            core(*examples)
    except Exception:  # noqa: BLE001 - the report then goes without the line
        return None
    return finder.where


def _bytes(bundle: FlexSNKernelHandle, pair: TrainingKernels | None, element_size: int) -> tuple[dict[str, float], list[str]]:
    """Bytes per element and step of the final-state kernels (training: ``pair``), and what training saves per step."""
    moved: dict[str, float] = {}
    saved: list[str] = []
    if bundle.inference_info is None:
        return moved, saved
    info = bundle.inference_info
    moved["inference"] = float((info.num_inputs + info.num_outputs) * element_size)
    if pair is not None:
        train = pair.info
        args = backward_saved_args(train)
        # an input the carrier recovers is read back only where its guard fails (flexsn_trace.carrier)
        kinds = {(src.kind, src.slot) for src in train.saved_sources}
        rare = {("input", i) for kind, i in kinds if kind == "fallback_input" and ("input", i) not in kinds}
        seqs = [a for a in args if a[0] in ("input", "return") and a not in rare]
        vis = range(train.num_outputs, train.num_outputs + train.num_states)
        # a recomputing pair (flexsn_trace.recompute) stores and reads the states every `chunk` steps
        every = {("return", k): train.chunk for k in vis} if train.chunk > 1 else {}
        saved = [
            f"{kind} {slot}" + (" (where the guard fails)" if (kind, slot) in rare else "")
            + (f" (every {every[kind, slot]} steps)" if (kind, slot) in every else "")
            for kind, slot in args
        ]
        forward = train.num_inputs + sum(1 / every.get(("return", k), 1) for k in final_state_forward_returns(train))
        backward = train.num_outputs + sum(1 / every.get(a, 1) for a in seqs) + train.num_inputs
        # a carrier keeps its own dtype (float32) whatever the sequences': written once, read once
        fixed = pair.forward.output_dtypes[train.carrier] if train.carrier >= 0 else None
        carrier = 0 if fixed is None else 2 * (fixed.itemsize - element_size)
        moved["training"] = float((forward + backward) * element_size + carrier)
    return moved, saved


def explain(
    core: Callable[..., Any],
    num_inputs: int | None = None,
    num_states: int | None = None,
    num_outputs: int | None = None,
    example_inputs: Sequence[torch.Tensor] | None = None,
    requires_grad: Sequence[bool] | None = None,
    num_static: int = 0,
    element_size: int = 4,
) -> Explanation:
    """Explain how FlexSN runs ``core`` (arguments as :class:`flexsn_runtime.FlexSNKernel`), or a built neuron.

    ``explain(neuron)`` takes a :class:`~flexsn_nn.FlexSN` (``LIFNode()``, ``ParametricLIFNode()``, ...)
    and reads its core, counts, examples, ``requires_grad`` flags and static inputs from it. A core
    function without static inputs may give ``num_states`` alone (SpikingJelly 2.0's form): the other
    counts are found as :class:`~flexsn_nn.FlexSN` finds them (:func:`flexsn_nn.arity.resolve_counts`).

    Builds the kernels (warnings are collected, not shown) and reports:
    whether inference and training run fused and why not, the blocking op,
    its source line and what to write instead, the captured tensors lifted
    into static inputs, the traced step, the generated Triton sources and
    their cache paths, what training saves per step, the bytes moved
    per element and step (``element_size`` bytes per element; the
    final-state kernels), which 16-bit dtypes run the eager loop because
    the core or its gradient reads the dtype, and what the construction
    warnings tell (reads a change does not reach, changes made only while tracing).

    Returns:
        :class:`Explanation`.

    Raises:
        TypeError / ValueError: as :class:`flexsn_runtime.FlexSNKernel` (a
        core that fails in PyTorch itself, bad counts or examples); TypeError:
        a core function without the three counts, or a neuron with other arguments.
    """
    route = None
    if isinstance(core, FlexSN):
        if (num_inputs, num_states, num_outputs, example_inputs, requires_grad, num_static) != (None, None, None, None, None, 0):
            raise TypeError("explain(neuron) reads the counts, examples, flags and static inputs from the neuron; pass only element_size")
        route = _module_route(core)
        core, num_inputs, num_states, num_outputs, example_inputs, requires_grad, num_static = core._kernel_arguments()
    if num_inputs is None or num_states is None or num_outputs is None:
        if is_network(core):
            raise TypeError(f"explain takes one neuron or core; {type(core).__name__} holds FlexSN neurons: "
                            "explain_network(net) explains each of them")
        if num_states is None or num_static:
            raise TypeError(
                "explain(core, num_inputs, num_states, num_outputs): a core function needs the three counts "
                f"(got {num_inputs}, {num_states}, {num_outputs}), or num_states alone without static inputs "
                "(SpikingJelly 2.0's form, the others found as FlexSN finds them); a built neuron needs none: explain(neuron)"
            )
        num_inputs, num_states, num_outputs = resolve_counts(core, num_inputs, num_states, num_outputs, None, example_inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report says it all
        kernel = FlexSNKernel(core, num_inputs, num_states, num_outputs, example_inputs, requires_grad, num_static)
    examples = tracing_examples(example_inputs, num_inputs, num_states, num_static)
    graph_code = None
    try:
        graph_code = fx.GraphModule(torch.nn.Module(), generate_inference_graph(kernel.step_fn, examples)).code
    except Exception:  # noqa: BLE001 - untraceable: the reason says so
        pass
    reason = kernel.fallback_reason
    op_match = re.search(r"cannot lower op '([^']+)'", reason or kernel.training_fallback_reason or "")
    op = op_match.group(1) if op_match else None
    result = Explanation(
        lowers=kernel.handle is not None,
        trains_fused=kernel.has_training_kernels,
        reason=reason,
        training_reason=kernel.training_fallback_reason if kernel.handle is not None else reason,
        blocking_op=op,
        where=_where(kernel.step_fn, examples, op) if op else None,
        suggestion=(_ADVICE.get(_op_packet(op), _GENERIC_ADVICE) if op else None),
        captures=kernel.captures.names(),
        inference_graph=graph_code,
        module_route=route,
        unwatched=kernel.constants.unwatched,
        side_effects=kernel.constants.side_effects,
    )
    if kernel.handle is not None:
        bundle = ensure_training_kernels(kernel.handle)  # explain shows every kernel
        # the pair sequences of this element size run (16-bit ones may have their own: registry.training_kernels)
        pair = training_kernels(bundle, torch.float16 if element_size < 4 else torch.float32)
        for kind, k in (("inference", bundle.inference_kernel), ("forward", pair.forward if pair else None),
                        ("backward", pair.backward if pair else None)):
            if k is not None:
                result.sources[kind] = (k.code, source_path(k.code))
        result.bytes_per_element_step, result.saved_per_step = _bytes(bundle, pair, element_size)
        if pair is not None:
            no = pair.info.num_outputs
            result.without_gradient = tuple(
                f"output {k}" if k < no else f"state {k - no}" for k, d in enumerate(pair.info.differentiable) if not d
            )
        for dtype in (torch.bfloat16, torch.float16):
            for training in (False, True) if kernel.has_training_kernels else (False,):
                why = dtype_reason(kernel, dtype, training)
                if why is not None:
                    result.dtype_fallbacks[f"{str(dtype).removeprefix('torch.')} {'training' if training else 'inference'}"] = why
    return result


def is_network(obj: object) -> bool:
    """Whether ``obj`` is a module holding FlexSN neurons but no neuron itself: what :func:`explain_network`
    explains (``explain`` and the ``flexsn explain`` command send it there)."""
    return isinstance(obj, torch.nn.Module) and not isinstance(obj, FlexSN) \
        and any(isinstance(m, FlexSN) for m in obj.modules())


def explain_network(net: torch.nn.Module, element_size: int = 4) -> NetworkExplanation:
    """Explain every FlexSN neuron of a network: :func:`explain` of each, under its module name.

    The analogue of ``torch._dynamo.explain(model)`` for the neurons: which of them run inference and training on
    the fused kernels, and for each that does not, why (the blocking op and its line, a step mode or backend that
    does not take the kernels, a dtype, a change outside the core's arguments). ``str()`` gives one summary per
    neuron; each :class:`Explanation` in ``neurons`` also holds the traced step and the kernel sources.

    Args:
        net: a module holding :class:`~flexsn_nn.FlexSN` neurons (a FlexSN itself counts as one).
        element_size: bytes per element, as :func:`explain` takes it.

    Returns:
        :class:`NetworkExplanation`.

    Raises:
        TypeError: ``net`` is not an ``nn.Module``.
        ValueError: ``net`` holds no FlexSN neuron.
    """
    if not isinstance(net, torch.nn.Module):
        raise TypeError(f"explain_network expects an nn.Module holding FlexSN neurons, got {type(net).__name__}")
    found = [(name or type(net).__name__, m) for name, m in net.named_modules() if isinstance(m, FlexSN)]
    if not found:
        raise ValueError(f"explain_network: {type(net).__name__} holds no FlexSN neuron (its modules: "
                         f"{sorted({type(m).__name__ for m in net.modules()})})")
    return NetworkExplanation(
        neurons={name: explain(m, element_size=element_size) for name, m in found},
        kinds={name: type(m).__name__ for name, m in found},
    )
