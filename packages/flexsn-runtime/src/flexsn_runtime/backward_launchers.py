"""Launch wrappers for the reverse-time (BPTT) kernels.

The backward's side of :mod:`flexsn_runtime.launchers`: gradients are allocated like the forward's
results (shape, dtype, memory order), SpikingJelly's ``flexsn_backward`` rules hold for ``T == 0`` and
missing incoming gradients, and every backward launches through :func:`launch_backward`.
"""

from __future__ import annotations

import math
from typing import Sequence, cast

import torch

from flexsn_codegen import backward_saved_args
from flexsn_trace import FlexSNInfo

from .layout import Order, backward_order, empty_in_order, fit_orders
from .scan_kernel import ScanKernel
from .statics import StaticPartials, run_starts, static_dims
from .step_buffers import StepBuffers, missing_grad

__all__ = ["flexsn_backward", "launch_backward"]


def _first(tensors: Sequence[torch.Tensor | None]) -> torch.Tensor | None:
    return next((t for t in tensors if t is not None), None)


def flexsn_backward(
    f: ScanKernel,
    info: FlexSNInfo,
    *args: torch.Tensor | None,
    input_templates: Sequence[torch.Tensor] | None = None,
    state_templates: Sequence[torch.Tensor] | None = None,
    final_state: bool = False,
    static_templates: Sequence[torch.Tensor] = (),
    static_runs: Sequence[int] | None = None,
) -> tuple[torch.Tensor, ...]:
    """Run the reverse-time BPTT kernel.

    Args:
        f: backward kernel from :func:`flexsn_runtime.build_training_kernels`.
        info: the training :class:`FlexSNInfo`.
        args: ``num_outputs + num_states`` gradients of the output and state
            sequences (``None`` = zero), then the saved tensors listed by
            ``flexsn_codegen.backward_saved_args(info)``.
        input_templates: one tensor per input sequence giving the gradient's
            shape/dtype; required when all incoming gradients are ``None``,
            when there are several inputs, or when no output gradient is given.
        state_templates: one tensor per initial state; required when any
            state-sequence gradient is ``None`` (or all are).
        final_state: ``f`` is the ``final_state`` backward variant and the
            state gradients are gradients of the *final* states
            (``[*shape]``, ``None`` = zero) instead of state sequences.
        static_templates: the ``info.num_static`` static inputs (layout form,
            :mod:`flexsn_runtime.statics`): their gradients' shapes and dtypes.
        static_runs: the ``flexsn::backward`` op's form of the statics' gradients:
            one fp32 ``[n, numel]`` sum per run of :func:`flexsn_runtime.statics.static_runs`
            (``None``: one gradient per static, in its shape and dtype).

    Returns:
        ``(*grad_input_seqs, *grad_init_states, *grad_statics)``; zeros when
        ``T == 0`` or every incoming gradient is ``None``. A static input's
        gradient is summed over time and over its broadcast dimensions.

    Raises:
        ValueError: missing templates per the rules above, wrong template
            counts, or wrong number of saved tensors.
    """
    if len(static_templates) != info.num_static:
        raise ValueError(
            f"static_templates must provide one tensor per static input ({info.num_static}), got {len(static_templates)}"
        )

    def zero_statics() -> list[torch.Tensor]:
        if static_runs is None:
            return [torch.zeros_like(w, memory_format=torch.contiguous_format) for w in static_templates]
        firsts = [static_templates[a] for a in run_starts(static_runs)]
        return [w.new_zeros((n, w.numel()), dtype=torch.float32) for w, n in zip(firsts, static_runs)]

    n_grads = info.num_outputs + info.num_states
    if len(args) < n_grads:
        raise ValueError(
            f"the FlexSN backward takes num_outputs + num_states = {n_grads} gradients (None = zero) before "
            f"the saved tensors, got {len(args)} arguments"
        )
    grads = list(args[:n_grads])
    saved: list[torch.Tensor] = []
    for i, s in enumerate(args[n_grads:]):
        if s is None:
            raise ValueError(f"saved tensor {i} passed to the FlexSN backward kernel is None")
        saved.append(s)
    grad_out_example = _first(grads[: info.num_outputs])
    grad_example = _first(grads)
    if input_templates is None:
        if grad_example is None:
            raise ValueError("input_templates are required when all incoming FlexSN gradients are None")
        if info.num_inputs != 1:
            raise ValueError("input_templates are required when FlexSN has multiple input sequences")
        if grad_out_example is None:
            raise ValueError("input_templates are required when FlexSN output-sequence gradients are all None")
        input_templates = [grad_out_example] * info.num_inputs
    if len(input_templates) != info.num_inputs:
        raise ValueError(
            f"input_templates must provide one template per FlexSN input sequence ({info.num_inputs}), "
            f"got {len(input_templates)}"
        )
    if state_templates is not None and len(state_templates) != info.num_states:
        raise ValueError(
            f"state_templates must provide one template per FlexSN initial state ({info.num_states}), "
            f"got {len(state_templates)}"
        )
    static_shapes = [w.shape for w in static_templates]
    seq_shape = tuple(input_templates[0].shape)
    # the forward wrote the saved tensors in its memory order: the gradients follow it
    order = backward_order([*saved, *grads], seq_shape, static_shapes)
    if grad_example is None:
        if state_templates is None and info.num_states > 0:
            raise ValueError("state_templates are required when all incoming FlexSN gradients are None")
        zeros = [_alloc(t.shape, t, order, True) for t in [*input_templates, *(state_templates or [])]]
        return (*zeros, *zero_statics())
    state_seq_grads = grads[info.num_outputs :]
    if state_templates is None and any(g is None for g in state_seq_grads):
        raise ValueError("state_templates are required when any incoming FlexSN state-sequence gradient is None")
    needed = backward_saved_args(info)
    if len(saved) != len(needed):
        raise ValueError(f"the backward kernel takes {len(needed)} saved tensors {needed}, got {len(saved)}")
    seq_example = grad_out_example
    if seq_example is None and not final_state:
        seq_example = grad_example
    if seq_example is None:
        # only final-state gradients: T comes from the input template
        seq_example = input_templates[0]
    T = seq_example.shape[0]
    empty = T == 0 or math.prod(seq_example.shape[1:]) == 0
    grad_inputs = [_alloc(t.shape, t, order, empty) for t in input_templates]
    if state_templates is not None:
        grad_states = [_alloc(t.shape, t, order, empty) for t in state_templates]
    else:
        # no templates: every state gradient is present (checked above)
        grad_states = [_alloc(g.shape[0 if final_state else 1 :], g, order, empty) for g in state_seq_grads if g is not None]
    if T == 0:
        if final_state:
            # the final state is the initial state: its gradient passes through
            for j, g in enumerate(state_seq_grads):
                if g is not None:
                    grad_states[j] += g
        return (*grad_inputs, *grad_states, *zero_statics())
    if empty:
        return (*grad_inputs, *grad_states, *zero_statics())
    ref = input_templates[0]
    shape = tuple(seq_example.shape)
    grad_statics = launch_backward(
        f, info.num_outputs, grads, saved, final_state, grad_inputs, grad_states, shape, ref.dtype, ref.device,
        dims=static_dims(static_shapes, shape[1:], order), order=order, static_shapes=static_shapes,
        static_dtypes=[w.dtype for w in static_templates], runs=static_runs,
    )
    return (*grad_inputs, *grad_states, *grad_statics)


def launch_backward(
    f: ScanKernel,
    num_outputs: int,
    grads: Sequence[torch.Tensor | None],
    saved: Sequence[torch.Tensor],
    final_state: bool,
    grad_inputs: list[torch.Tensor],
    grad_states: list[torch.Tensor],
    input_shape: tuple[int, ...],
    dtype: torch.dtype,
    device: torch.device,
    bufs: StepBuffers | None = None,
    dims: Sequence[int] = (),
    order: Order = None,
    static_shapes: Sequence[Sequence[int]] = (),
    static_dtypes: Sequence[torch.dtype] = (),
    runs: Sequence[int] | None = None,
) -> list[torch.Tensor]:
    """Launch the reverse-time BPTT kernel into ``grad_inputs`` / ``grad_states``: the one backward launch.

    Every backward goes through here (:func:`flexsn_backward` after SpikingJelly's rules, the eager formula).

    Args:
        f: the backward kernel (its ``final_state`` variant with ``final_state``).
        num_outputs: the core's output count.
        grads: ``num_outputs + num_states`` incoming gradients; ``None`` =
            zero (a ``[T, *shape]`` zero tensor, or with ``final_state`` for a
            state, ``bufs.zeros`` when given, else a fresh ``[*shape]`` zero tensor).
        saved: the tensors ``flexsn_codegen.backward_saved_args`` lists.
        final_state: state gradients are gradients of the final states ``[*shape]``.
        grad_inputs, grad_states: the tensors the kernel writes, ``[T, *shape]``
            and ``[*shape]`` in ``order``.
        input_shape: ``[T, *shape]`` of the input sequences, ``T > 0`` and ``NCL > 0``.
        dtype, device: of the gradients.
        bufs: ``step_buffers(input_shape[1:], dtype, device)`` when the caller
            holds it (one lookup per step).
        dims: the static inputs' ints (:func:`flexsn_runtime.statics.static_dims`, in ``order``).
        order: the launch's memory order (:func:`flexsn_runtime.layout.backward_order`);
            gradients and saved tensors in another are read where they lie when the kernel
            can index them so, else copied to it (:func:`flexsn_runtime.layout.fit_orders`).
        static_shapes, static_dtypes: the statics' layout forms and dtypes.
        runs: return the ``flexsn::backward`` op's per-run sums instead
            (:meth:`~flexsn_runtime.statics.PartialsLayout.run_sums`).

    Returns:
        The static inputs' gradients (summed in the kernel, then by :class:`~flexsn_runtime.statics.StaticPartials`).
    """
    step = tuple(input_shape[1:])
    zeros = bufs.zeros if bufs is not None else None  # shared zero initial states: alike in any order, as they are
    fitted, alt = fit_orders([*grads, *saved], order, step, [len(grads) + i for i, s in enumerate(saved) if s is zeros])
    kernel_grads = [
        g if g is not None else missing_grad(k, num_outputs, final_state, input_shape, dtype, device, bufs)
        for k, g in enumerate(fitted[: len(grads)])
    ]
    ref = grad_inputs[0]
    ncl = math.prod(step)
    args = [*kernel_grads, *cast("list[torch.Tensor]", fitted[len(grads) :]), *grad_inputs, *grad_states]
    if not static_shapes:  # no launch configuration to look up for the partials' sizes
        f.launch(args, input_shape[0], ncl, ref, alt=alt)
        return []
    partials = StaticPartials.allocate(dims, ncl, f.config(ref, ncl)["BLOCK_NCL"], device)
    f.launch([*args, *partials.rows], input_shape[0], ncl, ref, dims, reds=partials.modes, alt=alt)
    if runs is not None:
        return partials.layout.run_sums(partials.bufs, runs)
    return partials.reduce(static_shapes, static_dtypes)


def _alloc(shape: Sequence[int], like: torch.Tensor, order: Order, zero: bool) -> torch.Tensor:
    """A gradient of ``shape`` with ``like``'s dtype and device in ``order`` (zero-filled with ``zero``)."""
    t = empty_in_order(shape, order, like.dtype, like.device)
    return t.zero_() if zero else t
