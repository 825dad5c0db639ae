"""Training-call bookkeeping worked out once per handle, and once per call signature.

A training step of a small layer is host-bound: the forward and backward
kernels take microseconds, so every lookup around them shows up in the step
time (``tools/host_probe.py``, ``tools/host_timeline.py``). A :class:`TrainingPlan`
holds what the launchers would otherwise recompute per call: the kernel for the
``final_state`` flag, where the forward's returns land among the op's
outputs, and which tensors the backward reads. A :class:`TrainingCall` holds
what one call's autograd node needs of that call's arguments; every call of
one call signature (:mod:`flexsn_runtime.call_cache`) shares one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import torch

from flexsn_codegen import backward_saved_args, final_state_forward_returns
from flexsn_trace import FlexSNInfo, scan_requires_grad

from .scan_kernel import ScanKernel
from .registry import FlexSNKernelHandle, ensure_training_kernels, training_kernels

__all__ = ["Spec", "TrainingCall", "TrainingPlan", "final_state_extras", "plan_for"]

#: shape, dtype and device of a tensor a backward produces a gradient for
Spec = tuple[tuple[int, ...], torch.dtype, torch.device]


@dataclass(frozen=True)
class TrainingPlan:
    """One handle's training kernels and their calling convention, for one ``final_state`` flag.

    Attributes:
        handle: the registry handle.
        info: the training :class:`~flexsn_trace.FlexSNInfo`.
        forward, backward: the kernels for this flag.
        final_state: state sequences are not stored; final states are returned.
        n_inputs, n_states, n_outputs: the core's arity.
        n_static: its static inputs (flat arguments after the states).
        output_of_return: forward-kernel return ``k`` -> index in the op's outputs
            (only for returns the op outputs).
        saved: :func:`flexsn_codegen.backward_saved_args` of ``info``.
        stored: forward-kernel returns stored as sequences (all of them, or
            with ``final_state`` :func:`flexsn_codegen.final_state_forward_returns`).
    """

    handle: int
    info: FlexSNInfo
    forward: ScanKernel
    backward: ScanKernel
    final_state: bool
    n_inputs: int
    n_states: int
    n_outputs: int
    n_static: int
    output_of_return: dict[int, int]
    saved: tuple[tuple[str, int], ...]
    stored: tuple[int, ...]
    #: the registry entry, kept so a retained graph can bring it back (``revive_flexsn_kernel_handle``)
    bundle: FlexSNKernelHandle
    #: per call pattern (which flat arguments require grad, ``T``): :meth:`non_differentiable`'s answer
    _without_grad: dict[tuple[tuple[bool, ...], int | None], tuple[int, ...]] = field(default_factory=dict, compare=False)

    def non_differentiable(self, flat_args: Sequence[torch.Tensor], explicit: bool) -> tuple[int, ...]:
        """The op's outputs (outputs then states) that require no grad in this call, as the eager loop's do not.

        A result no argument that requires grad reaches through differentiable ops
        (:func:`flexsn_trace.scan_requires_grad` over ``info.reaches``): a spike from a hard
        threshold, a spike counter started from zeros, an output computed from an input that
        requires no grad. The op marks them non-differentiable (``ctx.mark_non_differentiable``).
        Worked out once per pattern of flags and ``T``.

        Args:
            flat_args: the call's ``[*input_seqs, *init_states if explicit, *static_inputs]``.
            explicit: the initial states were passed (else they are zeros, which require no grad).
        """
        flags = tuple([bool(t.requires_grad) for t in flat_args])
        length = flat_args[0].shape[0]
        steps = length if isinstance(length, int) else None  # a symbolic T: every T the flags allow
        key = (flags, steps)
        known = self._without_grad.get(key)
        if known is None:
            known = self._without_grad[key] = self._work_out(flags, steps, explicit)
        return known

    def _work_out(self, flags: tuple[bool, ...], steps: int | None, explicit: bool) -> tuple[int, ...]:
        info, ni, ns = self.info, self.n_inputs, self.n_states
        if len(info.reaches) != self.n_outputs + ns or steps == 0:
            # an info without them, or no step (the empty results follow SpikingJelly's rules): what no argument reaches
            return tuple(k for k, d in enumerate(info.differentiable) if not d)
        step_args = flags if explicit else (*flags[:ni], *([False] * ns), *flags[ni:])
        grad = scan_requires_grad(info.reaches, ni, ns, self.n_outputs, step_args, steps)
        states = grad.final_states if self.final_state else grad.state_seqs
        return tuple(k for k, r in enumerate((*grad.outputs, *states)) if not r)

    @property
    def n_grads(self) -> int:
        """Gradients the backward takes: outputs then states (sequences or final states)."""
        return self.n_outputs + self.n_states


def final_state_extras(info: FlexSNInfo) -> list[int]:
    """Forward-kernel returns, past the outputs, that the final-state forward also returns (saved for backward)."""
    return [k for k in final_state_forward_returns(info) if k >= info.num_outputs]


def plan_for(handle: int, final_state: bool, dtype: torch.dtype = torch.float32) -> TrainingPlan:
    """The (cached) :class:`TrainingPlan` of ``handle`` for sequences of ``dtype``.

    The kernels are :func:`flexsn_runtime.registry.training_kernels`'
    choice for ``dtype``.

    Raises:
        RuntimeError: unknown handle, or a handle without training kernels.
    """
    bundle = ensure_training_kernels(handle)
    key = ("training", final_state, dtype)
    plan: TrainingPlan | None = bundle.plans.get(key)
    if plan is not None:
        return plan
    pair = training_kernels(bundle, dtype)
    if pair is None:
        why = f": {bundle.training_unsupported}" if bundle.training_unsupported else ""
        raise RuntimeError(f"the FlexSN training kernels are unavailable for this handle{why}")
    fwd, bwd, info = pair
    if final_state:
        assert fwd.final_state is not None and bwd.final_state is not None
        fwd, bwd = fwd.final_state, bwd.final_state
        vis = info.num_outputs + info.num_states
        output_of_return = {k: k for k in range(info.num_outputs)}
        output_of_return.update({k: vis + i for i, k in enumerate(final_state_extras(info))})
    else:
        output_of_return = {k: k for k in range(info.num_fwd_kernel_returns)}
    plan = TrainingPlan(
        handle=handle,
        info=info,
        forward=fwd,
        backward=bwd,
        final_state=final_state,
        n_inputs=info.num_inputs,
        n_states=info.num_states,
        n_outputs=info.num_outputs,
        n_static=info.num_static,
        output_of_return=output_of_return,
        saved=tuple(backward_saved_args(info)),
        stored=tuple(final_state_forward_returns(info) if final_state else range(info.num_fwd_kernel_returns)),
        bundle=bundle,
    )
    bundle.plans[key] = plan
    return plan


class TrainingCall:
    """What the autograd node of one training call keeps besides its saved tensors.

    Worked out from the call's flat arguments ``[*input_seqs, *init_states?,
    *static_inputs]`` (statics in layout form); everything here is fixed by
    the call signature (shapes, dtypes, devices, whether initial states were
    passed), so the calls of one signature share one (:func:`flexsn_runtime.routing.signature_runner`).

    Attributes:
        plan: the handle's :class:`TrainingPlan` for the call's ``final_state`` and dtype.
        meta: the input sequences' shape ``[T, *S]``, dtype and device.
        step: ``S``, the per-step shape.
        static_specs: each static input's shape, dtype and device (the gradients it gets).
        explicit: the initial states were passed (else the kernels made zero
            states, which get no gradient).
        zero_init: where omitted zero initial states sit among the saved tensors (rebuilt by :meth:`restore`).
        n_flat: the number of flat arguments (each gets a gradient or ``None``).
        n_grads: the forward's differentiable outputs: outputs then states.
        non_differentiable: the op's outputs that require no grad in this call
            (:meth:`TrainingPlan.non_differentiable`).
    """

    __slots__ = (
        "plan", "meta", "step", "static_specs", "explicit", "zero_init", "n_flat", "n_grads", "non_differentiable", "_sources",
    )

    def __init__(self, plan: TrainingPlan, flat_args: Sequence[torch.Tensor]) -> None:
        ni = plan.n_inputs
        x = flat_args[0]
        n = len(flat_args)
        first_static = n - plan.n_static
        self.plan = plan
        self.meta: Spec = (tuple(x.shape), x.dtype, x.device)
        self.step = self.meta[0][1:]
        self.static_specs: tuple[Spec, ...] = tuple((tuple(w.shape), w.dtype, w.device) for w in flat_args[first_static:])
        self.explicit = explicit = first_static > ni
        self.n_flat, self.n_grads = n, plan.n_grads
        self.non_differentiable = plan.non_differentiable(flat_args, explicit)
        # per saved tensor, its index in (*flat_args, *forward outputs, None): -1 is an omitted zero state
        sources = []
        for kind, idx in plan.saved:
            if kind == "input":
                sources.append(idx)
            elif kind == "return":
                sources.append(n + plan.output_of_return[idx])
            elif kind == "static":
                sources.append(first_static + idx)
            else:
                sources.append(ni + idx if explicit else -1)
        self._sources = tuple(sources)
        #: where omitted zero initial states sit among the saved tensors
        self.zero_init = tuple(k for k, i in enumerate(sources) if i == -1)

    def empty(self) -> bool:
        """``T == 0`` or no neuron per step (SpikingJelly's rules run the backward); asked only where shapes are ints."""
        shape = self.meta[0]
        return shape[0] == 0 or math.prod(self.step) == 0

    @property
    def arity(self) -> tuple[int, int, int, bool, bool]:
        """``(num_outputs, num_inputs, num_states, final_state, explicit)``, as a backward plan takes it."""
        p = self.plan
        return (p.n_outputs, p.n_inputs, p.n_states, p.final_state, self.explicit)

    def saved(self, flat_args: Sequence[torch.Tensor], output: Sequence[torch.Tensor]) -> list[torch.Tensor | None]:
        """The tensors the backward reads (``plan.saved``), from the call's flat arguments and the forward's outputs.

        An omitted zero initial state is ``None`` (not kept alive; :meth:`restore` rebuilds it).
        """
        pool = (*flat_args, *output, None)
        return [pool[i] for i in self._sources]

    def restore(self, saved: Sequence[torch.Tensor | None], zeros: torch.Tensor | None) -> list[torch.Tensor]:
        """``saved`` with each omitted zero initial state rebuilt: ``zeros`` when given (read-only shared ones), else fresh zeros.

        Fresh zeros take the memory order of the first saved sequence (a step of it, as
        ``zeros_like`` keeps a dense tensor's strides), so a backward in a channels-last launch
        reads them as they are instead of copying them (``flexsn_runtime.op_plans``).
        """
        out = list(saved)
        if not self.zero_init:
            return out  # type: ignore[return-value]
        if zeros is not None:  # the eager path, every call: nothing else to look at
            for i in self.zero_init:
                out[i] = zeros
            return out  # type: ignore[return-value]
        _, dtype, device = self.meta
        row = next((t for t in saved if t is not None and t.dim() == len(self.step) + 1 and t.shape[0] > 0), None)
        step = row[0] if row is not None and tuple(row.shape[1:]) == self.step else None  # whose strides the zeros take
        for i in self.zero_init:
            out[i] = torch.zeros_like(step, dtype=dtype) if step is not None else torch.zeros(self.step, dtype=dtype, device=device)
        return out  # type: ignore[return-value]

    def specs(self) -> list[Spec]:
        """Shape, dtype and device of each input sequence, initial state, then static input (the gradients to produce)."""
        p = self.plan
        shape, dtype, device = self.meta
        seq, step = (shape, dtype, device), (self.step, dtype, device)
        return [seq] * p.n_inputs + [step] * p.n_states + list(self.static_specs)

    def visible(self, grads: Sequence[torch.Tensor | None]) -> list[torch.Tensor | None]:
        """A backward's ``[*input grads, *initial-state grads, *static grads]`` as gradients of the flat arguments.

        Omitted initial states have no argument: their gradients are dropped.
        """
        p = self.plan
        if not self.explicit:
            grads = [*grads[: p.n_inputs], *grads[p.n_inputs + p.n_states :]]
        return list(grads[: self.n_flat])
