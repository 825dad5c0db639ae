"""A call signature's launch, worked out once: the host-time fast path of repeated eager calls.

:func:`~flexsn_runtime.launchers.launch_args`,
:func:`~flexsn_runtime.launchers.launch_inference` and
:func:`~flexsn_runtime.launchers.launch_forward` derive a launch from its
tensors on every call: the memory order of each sequence
(:mod:`flexsn_runtime.layout`), the static inputs' index ints, the output
dtypes and allocations, the cached launcher's key (every argument's dtype
and 16-byte alignment). For one call signature of the call cache
(:mod:`flexsn_runtime.call_cache`: shapes, dtypes, devices) all of that is
fixed as long as the tensors are contiguous and 16-byte aligned, which is
how they nearly always come. A :class:`LaunchPlan` holds it; a call checks
contiguity (one C getter per tensor) and alignment (an ``or`` of the
pointers) and launches. A call that is not like that gets ``None`` and
takes the derived path: same kernel, same results, a few microseconds more.

Tensors in another dense memory order with time outermost (a channels-last
convolution's output viewed ``[T, B, C, H, W]``, which Inductor's layout choice
gives a compiled network's neurons, or a channels-last network run eagerly)
launch from a plan too: it keeps the order and every tensor's strides, a call
compares strides instead of asking for contiguity, and the outputs are
allocated in that order, as the derived launch allocates them.

Host-bound steps (short sequences, small layers) gain what the plan skips:
about a third of the host time to the first launch (``tools/host_probe.py``).
"""

from __future__ import annotations

import functools
import math
from typing import Callable, Generic, NamedTuple, Sequence, TypeVar

import torch

from flexsn_trace import FlexSNInfo

from .launchers import launch_args
from .layout import Order, backward_order, empty_in_order, fit_orders, in_order, stored_shape, strides_in_order
from .scan_kernel import NO_ALT, ScanKernel
from .statics import PartialsLayout, partials_layout, static_dims
from .step_buffers import StepBuffers, missing_grad, state_grad_targets

__all__ = ["BackwardPlan", "LaunchPlan", "PlanSlot"]

_empty_like = torch.empty_like
_empty = torch.empty
_empty_strided = torch.empty_strided

P = TypeVar("P")


class PlanSlot(Generic[P]):
    """Where one signature's (or gradient pattern's) plan is kept once built.

    A build that finds no plan (a non-contiguous first call, no cached launcher
    yet) is tried again on later calls, three times in all: a call that can never
    have a plan pays for a failed build only so often.
    """

    __slots__ = ("plan", "_tries")

    def __init__(self) -> None:
        self.plan: P | None = None
        self._tries = 0

    def retry(self, build: Callable[[], P | None]) -> P | None:
        """``build()`` kept as :attr:`plan`, unless three builds were tried already (then ``None``)."""
        if self._tries >= 3:
            return None
        self._tries += 1
        self.plan = build()
        return self.plan


class LaunchPlan:
    """The inference or training-forward launch of one kernel for one call signature.

    Built by :meth:`build` from a call's flat arguments
    ``[*input_seqs, *init_states?, *static_inputs]`` (as
    :func:`~flexsn_runtime.launchers.launch_args` takes them); :meth:`run`
    launches a later call of the same signature.
    """

    __slots__ = ("_launch", "_body", "_allocs", "_order", "_strides", "_strided", "backwards")

    def __init__(
        self,
        launch: Callable[[list[torch.Tensor]], bool],
        body: tuple[int, ...],
        allocs: tuple[tuple[tuple[int, ...] | None, torch.dtype | None], ...],
        order: tuple[int, ...] | None,
        strides: tuple[tuple[int, ...], ...] | None = None,
        strided: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (),
    ) -> None:
        self._launch = launch
        #: per flat argument its strides, for a launch in a memory order other than contiguous (``None``: contiguous)
        self._strides = strides
        #: with ``strides``: per output its shape and strides in that order (``_allocs`` gives the dtypes)
        self._strided = strided
        #: the launch's input tensors as indices into a call's flat arguments (omitted zero states: the
        #: input sequence's pointer, which ``ZERO_INIT`` kernels do not read)
        self._body = body
        #: per output of the launch, in its argument order (sequences, then final states): its shape
        #: (``None``: the input sequence's) and dtype (``None``: the input's)
        self._allocs = allocs
        #: the launch's outputs in the order the call returns them (``None``: as launched)
        self._order = order
        #: for a training forward: which incoming gradients are missing -> the backward's plan
        self.backwards: dict[tuple[bool, ...], PlanSlot[BackwardPlan]] = {}

    @classmethod
    def build(
        cls, f: ScanKernel, info: FlexSNInfo, flat: Sequence[torch.Tensor], final_state: bool, stored: Sequence[int] | None
    ) -> "LaunchPlan | None":
        """The plan of ``f``'s launch for calls like ``flat``, or ``None`` when calls like it take the derived path.

        Args:
            f: an inference kernel, or a training forward kernel (``stored`` given).
            info: its :class:`FlexSNInfo`.
            flat: a checked call's flat arguments, of one dtype and device
                except the static inputs (layout form, :mod:`flexsn_runtime.statics`).
            final_state: ``f`` is the final-state variant.
            stored: for a training forward, the kernel returns stored as
                sequences (:attr:`~flexsn_runtime.training_plan.TrainingPlan.stored`);
                ``None`` for inference.

        ``None`` for an empty call (``T == 0`` or no neuron), a tensor the launch
        would copy (neither contiguous nor in the launch's memory order), or a CUDA
        launch whose cached launcher :meth:`ScanKernel.launch` has not made yet
        (the caller launches through it and may build again later).
        """
        x = flat[0]
        if x.shape[0] == 0 or x.numel() == 0:
            return None
        ordered = not all(t.is_contiguous() for t in flat)
        la = launch_args(info, flat)
        if ordered:  # another memory order: only when the launch reads every tensor as it is (no copy)
            launched = {id(t) for t in la.tensors}
            if la.order is None or not all(id(t) in launched for t in flat):
                return None
        elif la.order is not None:  # contiguous tensors launch contiguous; checked, not assumed
            return None
        no, ns = info.num_outputs, info.num_states
        kinds: Sequence[int]
        if stored is None:  # inference: outputs (and state sequences) then final states
            kinds = range(no + (0 if final_state else ns))
            split = len(kinds)
        else:  # training forward: the final-state variant returns its stored sequences around the final states
            kinds = stored if final_state else range(info.num_fwd_kernel_returns)
            split = no if final_state else len(kinds)
        seq_dtypes = tuple(d if d is not x.dtype else None for d in (f.output_dtype(k, x) for k in kinds))
        n_finals = ns if final_state else 0
        dtypes = [t.dtype for t in la.tensors] + [d or x.dtype for d in seq_dtypes] + [x.dtype] * n_finals
        launch = f.prepared(dtypes, x, x.shape[0], x.numel() // x.shape[0], la.dims, la.zero_init, alt=la.alt)
        if launch is None:
            return None
        seq = tuple(x.shape)
        own = [stored_shape(info, k, x.shape) if stored is not None and final_state else seq for k in kinds]
        # a recomputing pair's checkpoints have their own number of rows; final states are one step, like x's dtype
        allocs = [(None if sh == seq else sh, d) for sh, d in zip(own, seq_dtypes)] + [(seq[1:], None)] * n_finals
        n_body, n_seqs = len(flat) - info.num_static, len(kinds)
        body = (*range(n_body), *(0,) * ns, *range(n_body, len(flat))) if la.zero_init else tuple(range(len(flat)))
        order = (*range(split), *range(n_seqs, n_seqs + n_finals), *range(split, n_seqs))
        returns = None if order == tuple(range(len(order))) else order
        if not ordered:
            return cls(launch, body, tuple(allocs), returns)
        shapes, mem = [seq if sh is None else sh for sh, _ in allocs], la.order
        assert mem is not None  # ordered: checked above
        strided = tuple((sh, strides_in_order(sh, mem)) for sh in shapes)
        return cls(launch, body, tuple(allocs), returns, tuple(tuple(t.stride()) for t in flat), strided)

    def run(self, flat: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...] | None:
        """Allocate the outputs and launch for ``flat`` (a call of the plan's signature), or ``None`` (nothing launched).

        Returns as the derived launch (:func:`~flexsn_runtime.launchers.launch_inference` or
        :func:`~flexsn_runtime.launchers.launch_forward`); ``None`` when a tensor is not
        contiguous (or, for a plan in another memory order, has other strides than the
        plan's) or not 16-byte aligned, or the current CUDA device is not the tensors'.
        """
        strides = self._strides
        if strides is not None:
            return self._run_strided(flat, strides)
        for t in flat:
            if not t.is_contiguous():
                return None
        x = flat[0]
        args = [flat[i] for i in self._body]
        outs = []
        # empty_like of a contiguous tensor is contiguous, and half the host time of torch.empty(shape, ...);
        # new_empty(*sizes) without a dtype likewise (a size tuple or a dtype keyword costs it another 40-80%)
        for shape, dtype in self._allocs:
            if shape is None:
                outs.append(_empty_like(x) if dtype is None else _empty_like(x, dtype=dtype))
            elif dtype is None:
                outs.append(x.new_empty(*shape) if shape else x.new_empty(()))
            else:
                outs.append(x.new_empty(shape, dtype=dtype))
        if not self._launch(args + outs):
            return None
        order = self._order
        return tuple(outs) if order is None else tuple([outs[i] for i in order])

    def _run_strided(self, flat: Sequence[torch.Tensor], strides: tuple[tuple[int, ...], ...]) -> tuple[torch.Tensor, ...] | None:
        """:meth:`run` of a plan in another memory order: the same strides as the plan's, outputs allocated in it."""
        for t, s in zip(flat, strides):
            if t.stride() != s:
                return None
        x = flat[0]
        outs = [
            _empty_strided(shape, st, dtype=x.dtype if dtype is None else dtype, device=x.device)
            for (shape, st), (_, dtype) in zip(self._strided, self._allocs)
        ]
        if not self._launch([*(flat[i] for i in self._body), *outs]):
            return None
        order = self._order
        return tuple(outs) if order is None else tuple([outs[i] for i in order])


class BackwardPlan:
    """The BPTT launch of one call signature for one pattern of missing incoming gradients.

    What :func:`~flexsn_runtime.backward_launchers.launch_backward` and the training
    op's autograd derive per call (the memory order, the zero gradients, the
    static inputs' index ints and partial-sum modes, the cached launcher's
    key), fixed while every tensor is contiguous and 16-byte aligned, or in
    one other memory order with the same strides (:class:`LaunchPlan`). Where
    the tensors come in mixed orders (a channels-last input saved beside the
    contiguous gradient a flatten or a loss gives back), the plan copies the
    same ones to the launch's order at every call, as the derived path does.
    Built by :meth:`build` from a backward's tensors; :meth:`run` launches a
    later backward of the same signature and pattern.
    """

    __slots__ = ("_launch", "_grad_dtypes", "_seq", "_dtype", "_device", "_arity", "_statics", "_like", "_order", "_strides")

    def __init__(
        self,
        launch: Callable[[list[torch.Tensor]], bool],
        grad_dtypes: tuple[torch.dtype, ...],
        meta: tuple[tuple[int, ...], torch.dtype, torch.device],
        arity: tuple[int, int, int, bool, bool],
        statics: "_Statics | None",
        like: int | None = None,
        ordered: "tuple[Order, _Strides] | None" = None,
    ) -> None:
        self._launch, self._grad_dtypes, self._arity, self._statics = launch, grad_dtypes, arity, statics
        #: the launch's memory order and the strides of the incoming gradients and saved tensors (another
        #: order than contiguous), or ``None`` (every tensor contiguous)
        self._order: Order = ordered[0] if ordered is not None else None
        self._strides: _Strides | None = ordered[1] if ordered is not None else None
        self._seq, self._dtype, self._device = meta
        #: a saved tensor of the gradients' dtype and device: ``saved[like].new_empty(*seq)`` allocates a gradient
        self._like = like

    @classmethod
    def build(
        cls,
        f: ScanKernel,
        grads: Sequence[torch.Tensor | None],
        saved: Sequence[torch.Tensor],
        meta: tuple[Sequence[int], torch.dtype, torch.device],
        arity: tuple[int, int, int, bool, bool],
        static_specs: Sequence[tuple[tuple[int, ...], torch.dtype, torch.device]],
        runs: Sequence[int] | None = None,
        zero_saved: Sequence[int] = (),
    ) -> "BackwardPlan | None":
        """The plan of backward kernel ``f`` for backwards like this one, or ``None`` (they take the derived path).

        Args:
            f: the backward kernel (its final-state variant for final-state calls).
            grads: the incoming gradients, outputs then states (``None`` = zero).
            saved: the saved tensors the kernel reads, omitted zero initial states included.
            meta: the forward's input sequence shape ``[T, *S]``, dtype and device.
            arity: ``(num_outputs, num_inputs, num_states, final_state, explicit)``: with
                ``final_state`` the state gradients are of the final states ``[*S]``; with
                ``explicit`` the initial states were passed and get gradients
                (else the kernel writes those to scratch).
            static_specs: the static inputs' layout-form shapes, dtypes and devices.
            runs: return the statics' gradients as the ``flexsn::backward`` op does, one fp32
                sum per run of :func:`~flexsn_runtime.statics.static_runs` (:mod:`flexsn_runtime.op_plans`).
            zero_saved: the saved tensors that are zeros (omitted initial states): read alike in
                any memory order, so their strides are not asked.

        A call's tensors in the launch's memory order (:func:`~flexsn_runtime.layout.backward_order`),
        or in the one the kernel also indexes (:func:`~flexsn_runtime.layout.fit_orders`), are read as
        they are; the others are copied to it at every call of the plan.

        ``None`` for an empty call, or no cached launcher for this launch yet (the caller launches through
        :meth:`ScanKernel.launch <flexsn_runtime.scan_kernel.ScanKernel.launch>` and may build again later).
        """
        shape, dtype, device = meta
        seq = tuple(shape)
        step, T = seq[1:], seq[0]
        ncl = math.prod(step)
        ni, ns = arity[1], arity[2]
        if T == 0 or ncl == 0:
            return None
        shapes = [tuple(w_shape) for w_shape, _, _ in static_specs]
        zero = set(zero_saved)
        present = [t for t in (*grads, *(t for i, t in enumerate(saved) if i not in zero)) if t is not None]
        ordered: tuple[Order, _Strides] | None = None
        alt = NO_ALT
        if not all(t.is_contiguous() for t in present):  # another memory order, or mixed ones: per tensor its strides or a copy
            order = backward_order([*saved, *grads], seq, shapes)
            kept = [*grads, *(None if i in zero else t for i, t in enumerate(saved))]
            fitted, alt = fit_orders(kept, order, step)
            entries = [None if t is None else tuple(t.stride()) if f is t else _COPY for t, f in zip(kept, fitted)]
            ordered = (order, (tuple(entries[: len(grads)]), tuple(entries[len(grads) :])))
        ref = torch.empty(0, dtype=dtype, device=device)
        dims: list[int] = static_dims(shapes, step, ordered[0] if ordered else None) if shapes else []
        statics: _Statics | None = None
        reds: tuple[int, ...] = ()
        rows = 0
        if shapes:
            layout = partials_layout(tuple(dims), ncl, f.config(ref, ncl)["BLOCK_NCL"])
            trial = layout.allocate(device)
            if any(r.data_ptr() & 15 for r in trial.rows):  # never, with rows padded to 16 bytes (PartialsLayout.allocate); a plan must not launch off its alignment
                return None
            if runs is None:
                reduce = layout.reducer(shapes, [w_dtype for _, w_dtype, _ in static_specs])
            else:  # the op's results: new tensors, so never the step buffers' shared partials
                reduce = functools.partial(layout.run_sums, runs=tuple(runs))
            statics = _Statics(layout, reduce, layout.reduced and runs is None)
            reds, rows = layout.modes, len(trial.rows)
        grad_dtypes = tuple(g.dtype if g is not None else dtype for g in grads)
        dtypes = [*grad_dtypes, *(t.dtype for t in saved), *([dtype] * (ni + ns)), *([torch.float32] * rows)]
        launch = f.prepared(dtypes, ref, T, ncl, dims, False, reds, alt)
        if launch is None:
            return None
        like = next((k for k, t in enumerate(saved) if t.dtype == dtype and t.device == device), None)
        return cls(launch, grad_dtypes, (seq, dtype, device), arity, statics, like, ordered)

    def run(
        self, grads: Sequence[torch.Tensor | None], saved: Sequence[torch.Tensor], bufs: StepBuffers | None
    ) -> list[torch.Tensor] | None:
        """``[*grad_input_seqs, *grad_init_states, *grad_statics]`` of a backward like the plan's, or ``None`` (nothing launched).

        ``bufs``: the forward's :class:`~flexsn_runtime.step_buffers.StepBuffers` (shared zeros and
        scratch), ``None`` where nothing is shared (CUDA-graph capture). Gradients of omitted
        initial states are scratch, as in the derived path (the caller drops them).
        """
        if self._strides is None:
            for g, d in zip(grads, self._grad_dtypes):
                if g is not None and (g.dtype is not d or not g.is_contiguous()):
                    return None
            for t in saved:
                if not t.is_contiguous():
                    return None
        else:
            fitted = self._fitted(grads, saved, self._strides)
            if fitted is None:
                return None
            grads, saved = fitted
        seq, dtype, device, order = self._seq, self._dtype, self._device, self._order
        no, ni, ns, final_state, explicit = self._arity
        # missing gradients are zeros, read alike in any memory order
        kernel_grads = [
            g if g is not None else missing_grad(k, no, final_state, seq, dtype, device, bufs) for k, g in enumerate(grads)
        ]
        like = self._like
        if order is not None:
            grad_inputs = [empty_in_order(seq, order, dtype, device) for _ in range(ni)]
        elif like is not None and saved[like].dtype is dtype:  # saved tensors keep their dtypes per signature; checked, not assumed
            grad_inputs = [saved[like].new_empty(*seq) for _ in range(ni)]
        else:
            grad_inputs = [_empty(seq, dtype=dtype, device=device) for _ in range(ni)]
        grad_states = state_grad_targets(explicit, ns, seq[1:], order, dtype, device, bufs)
        st = self._statics
        if st is None:
            if not self._launch([*kernel_grads, *saved, *grad_inputs, *grad_states]):
                return None
            return [*grad_inputs, *grad_states]
        # the shared buffers (StepBuffers.partials) where every gradient is a new sum: no allocation before the launch
        partials = bufs.partials(st.layout) if bufs is not None and st.shareable else st.layout.allocate(device)
        if not self._launch([*kernel_grads, *saved, *grad_inputs, *grad_states, *partials.rows]):
            return None
        return [*grad_inputs, *grad_states, *st.reduce(partials.bufs)]

    def _fitted(
        self, grads: Sequence[torch.Tensor | None], saved: Sequence[torch.Tensor], strides: "_Strides"
    ) -> tuple[list[torch.Tensor | None], list[torch.Tensor]] | None:
        """A backward's gradients and saved tensors in this plan's memory order (those it copies, copied), or ``None``
        when one has other strides (or a gradient another dtype) than the plan was built for."""
        order = self._order
        gs: list[torch.Tensor | None] = list(grads)
        for k, (g, d, st) in enumerate(zip(grads, self._grad_dtypes, strides[0])):
            if g is None:
                continue
            if g.dtype is not d:
                return None
            if st is _COPY:
                gs[k] = in_order(g, order)
            elif g.stride() != st:
                return None
        ss = list(saved)
        for i, (t, st) in enumerate(zip(saved, strides[1])):
            if st is _COPY:
                ss[i] = in_order(t, order)
            elif st is not None and t.stride() != st:
                return None
        return gs, ss


#: a backward plan's strides: per incoming gradient (``None`` where it is missing), then per saved tensor
#: (``None`` for zeros, read alike in any order); ``_COPY`` for a tensor copied to the plan's order at every call
_Strides = tuple[tuple[tuple[int, ...] | str | None, ...], tuple[tuple[int, ...] | str | None, ...]]
_COPY = "copy"


class _Statics(NamedTuple):
    """A backward plan's static inputs: their partials' layout and the reduction to their gradients."""

    layout: PartialsLayout
    reduce: Callable[[list[torch.Tensor]], list[torch.Tensor]]
    #: the partials may live in the step buffers (:meth:`StepBuffers.partials`): every gradient is a new sum
    shareable: bool
