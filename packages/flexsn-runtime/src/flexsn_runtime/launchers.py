"""Launch wrappers for the scan kernels.

Sequences are ``[T, *shape]`` and states ``[*shape]``; kernels see them as ``[T, NCL]`` / ``[NCL]``
memory with ``NCL = prod(shape)``, contiguous or in the dense layout of the first input sequence
(:mod:`flexsn_runtime.layout`: a channels-last convolution's output is read as it is). Every wrapper
allocates its results like the first input sequence (shape, dtype, memory order), and follows
SpikingJelly's ``flexsn_*`` wrappers for ``T == 0``: no launch, empty sequences, initial states cloned
(or zeros) where final states are returned, zero gradients following the templates. Static inputs
(``FlexSNInfo.num_static``) follow the initial states, in the layout form of :mod:`flexsn_runtime.statics`.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence, cast

import torch

from flexsn_codegen import backward_saved_args, final_state_forward_returns
from flexsn_trace import FlexSNInfo, check_scan_args

from .layout import Order, backward_order, empty_in_order, fit_orders, launch_order, stored_shape
from .scan_kernel import ScanKernel, ncl_bucket
from .statics import StaticPartials, run_starts, static_dims
from .step_buffers import StepBuffers, missing_grad

__all__ = [
    "LaunchArgs",
    "flexsn_backward",
    "flexsn_backward_ncl_bucket",
    "flexsn_forward",
    "flexsn_forward_final_state",
    "flexsn_inference",
    "flexsn_inference_final_state",
    "launch_args",
    "launch_backward",
    "launch_forward",
    "launch_inference",
]


def flexsn_backward_ncl_bucket(ncl: int) -> int:
    """Map the per-step element count ``NCL`` to a tuning bucket in ``[0, 4]``.

    Buckets: ``<= 2**12``, ``<= 2**17``, ``<= 2**20``, ``<= 2**23``, larger.
    Launch configurations are persisted per bucket.

    Raises:
        TypeError: ``ncl`` is not an int.
        ValueError: ``ncl`` is negative.
    """
    if isinstance(ncl, bool) or not isinstance(ncl, int):
        raise TypeError(f"ncl must be an int, got {type(ncl).__name__}")
    if ncl < 0:
        raise ValueError(f"ncl must be >= 0, got {ncl}")
    return ncl_bucket(ncl)


class LaunchArgs(NamedTuple):
    """A checked call in the kernels' launch form (:func:`launch_args`).

    Attributes:
        x: input sequence 0 as passed (its shape and dtype shape the results).
        tensors: ``[*input_seqs, *init_states, *statics]``, sequences and states in
            ``order``, statics contiguous; with ``zero_init`` the state slots hold input 0
            as a pointer the kernel never reads.
        dims: the static inputs' ``inner, mid`` ints.
        zero_init: the initial states were omitted: the kernel makes zero states in registers.
        order: the memory order of the launch (:func:`flexsn_runtime.layout.launch_order`;
            ``None`` = contiguous), in which the results are allocated.
        alt: the tensors read in the second memory order (:func:`flexsn_runtime.layout.fit_orders`).
    """

    x: torch.Tensor
    tensors: list[torch.Tensor]
    dims: list[int]
    zero_init: bool
    order: Order = None
    alt: tuple[int, int, int] = (0, 1, 1)


def launch_args(info: FlexSNInfo, flat_args: Sequence[torch.Tensor]) -> LaunchArgs:
    """The launch form of checked ``[*input_seqs, *init_states?, *statics]``.

    Omitted initial states are made inside the kernel (``ZERO_INIT``): no zeros tensor is allocated,
    filled or read, and nothing is kept between calls (CUDA graphs). The tensors were checked already
    (``FlexSNKernel``'s contract, the ops' ``check_op_args``, the call cache's signature).

    Raises:
        ValueError: a count that is neither with nor without the states.
    """
    nst, ni, ns = info.num_static, info.num_inputs, info.num_states
    n = len(flat_args) - nst
    zero_init = n == ni and ns > 0
    x = flat_args[0]
    statics = flat_args[n:]
    order = launch_order(x, [w.shape for w in statics])
    if not zero_init and n != ni + ns:
        raise ValueError(
            f"FlexSN ops take num_inputs={ni} input sequences optionally followed by "
            f"num_states={ns} initial states, then num_static={nst} static inputs; "
            f"got {len(flat_args)} tensors"
        )
    # sequences and states in the order, or (a contiguous state beside channels-last inputs) read where they lie
    fitted, alt = fit_orders(flat_args[:n], order, x.shape[1:])
    body = cast("list[torch.Tensor]", fitted)
    if zero_init:
        body += [body[0]] * ns  # pointers only: ZERO_INIT kernels do not read them
    if not nst:
        return LaunchArgs(x, body, [], zero_init, order, alt)
    dims = static_dims([w.shape for w in statics], x.shape[1:], order)
    return LaunchArgs(x, [*body, *(w.contiguous() for w in statics)], dims, zero_init, order, alt)


def _split(info: FlexSNInfo, args: Sequence[torch.Tensor], checked: bool = False) -> LaunchArgs:
    """Check a launcher's tensors before any launch, then :func:`launch_args` (omitted initial states: zeros).

    The kernels index every tensor as ``[T, NCL]`` / ``[NCL]`` memory of the first input's dtype: a state of
    another size would be read or written out of bounds. Mismatches are reported by
    :func:`flexsn_trace.check_scan_args`; static inputs must be in the layout form of
    :mod:`flexsn_runtime.statics` (:func:`~flexsn_runtime.statics.static_dims` says why not).
    """
    nst, ni, ns = info.num_static, info.num_inputs, info.num_states
    n = len(args) - nst
    omitted = n == ni and ns > 0
    if n not in (ni, ni + ns) or (omitted and not isinstance(args[0], torch.Tensor)):
        raise ValueError(
            f"expected {ni + ns + nst} tensors (num_inputs={ni} input sequences, then "
            f"num_states={ns} initial states"
            + (f", then num_static={nst} static inputs" if nst else "")
            + f"), got {len(args)}"
        )
    x = args[0]
    if not checked:
        body = list(args[:n])
        if not _like_input(x, body, ni):  # the cheap test first (it runs per launch); the contract check words the error
            states = "none" if omitted else "required"
            check_scan_args(ni, ns, info.num_outputs, body, who="FlexSN launcher", states=states, uniform=True)
            raise ValueError(f"the tensors do not match input 0 ({tuple(x.shape)}, {x.dtype}, {x.device})")  # e.g. 0-d
        if any(w.device != x.device for w in args[n:]):
            raise ValueError(f"static inputs must be on the inputs' device {x.device}")
    return launch_args(info, args)


def _like_input(x: torch.Tensor, args: Sequence[torch.Tensor], num_inputs: int) -> bool:
    """Every tensor has input 0's dtype and device, sequences its shape, states its per-step shape."""
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        return False
    seq, step, dtype, index = x.shape, x.shape[1:], x.dtype, x.get_device()
    for i, a in enumerate(args):
        # dtype by identity and the device index (-1 on the CPU): cheaper than torch.device comparisons
        if not isinstance(a, torch.Tensor) or a.dtype is not dtype or a.get_device() != index:
            return False
        if a.shape != (seq if i < num_inputs else step):
            return False
    # index -1 is every non-CUDA device: tell CPU from meta there
    return index >= 0 or all(a.is_meta is x.is_meta for a in args)


def _run(f: ScanKernel, la: LaunchArgs, outs: list[torch.Tensor]) -> None:
    x = la.x
    T, ncl = x.shape[0], math.prod(x.shape[1:])
    if T == 0 or ncl == 0:
        return
    f.launch([*la.tensors, *outs], T, ncl, x, la.dims, la.zero_init, alt=la.alt)


def _finals(info: FlexSNInfo, la: LaunchArgs) -> list[torch.Tensor]:
    """The final-state outputs: clones of the initial states when ``T == 0`` (zeros when omitted), else empty."""
    x = la.x
    if la.zero_init:
        if x.shape[0] == 0:
            return [x.new_zeros(x.shape[1:]) for _ in range(info.num_states)]
        return [empty_in_order(x.shape[1:], la.order, x.dtype, x.device) for _ in range(info.num_states)]
    init = la.tensors[info.num_inputs : info.num_inputs + info.num_states]
    finals = [empty_in_order(s.shape, la.order, s.dtype, s.device) for s in init]
    if x.shape[0] == 0:  # clones in the launch's order, where the fakes plan them (an initial state may lie in another)
        return [f.copy_(s) for f, s in zip(finals, init)]
    return finals


def flexsn_inference(
    f: ScanKernel, info: FlexSNInfo, *args: torch.Tensor, final_state: bool = False, checked: bool = False
) -> tuple[torch.Tensor, ...]:
    """Run the multi-step inference kernel (SpikingJelly's ``flexsn_inference``).

    Args:
        f: kernel from :func:`flexsn_runtime.build_inference_kernel`, or with
            ``final_state`` from :func:`flexsn_runtime.build_inference_final_state_kernel`.
        info: its :class:`FlexSNInfo`.
        args: ``num_inputs`` sequences ``[T, *shape]`` then ``num_states``
            initial states ``[*shape]``, one device and dtype, then
            ``info.num_static`` static inputs in layout form
            (:mod:`flexsn_runtime.statics`, any floating dtype).
        final_state: keep only the final states (no state sequences written).
        checked: the caller has checked the tensors (``FlexSNKernel``'s
            contract, the ops' ``check_op_args``): skip the per-launch check.

    Returns:
        ``(*output_seqs, *state_seqs)``, each ``[T, *shape]`` in the input
        dtype, empty when ``T == 0``; with ``final_state``
        ``(*output_seqs, *final_states)``, the final states being clones of
        the initial states when ``T == 0``.

    Raises:
        ValueError: wrong number of tensors.
    """
    return launch_inference(f, info, _split(info, args, checked), final_state)


def launch_inference(f: ScanKernel, info: FlexSNInfo, la: LaunchArgs, final_state: bool) -> tuple[torch.Tensor, ...]:
    """Allocate the outputs and launch the inference kernel: the one inference launch, nothing checked.

    ``la`` is the call in launch form (:func:`launch_args`); returns as :func:`flexsn_inference`.
    """
    x = la.x
    n_seqs = info.num_outputs + (0 if final_state else info.num_states)
    outs = [empty_in_order(x.shape, la.order, f.output_dtype(k, x), x.device) for k in range(n_seqs)]
    if not final_state:
        _run(f, la, outs)
        return tuple(outs)
    finals = _finals(info, la)
    _run(f, la, [*outs, *finals])
    return (*outs, *finals)


def flexsn_inference_final_state(f: ScanKernel, info: FlexSNInfo, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """SpikingJelly's name for :func:`flexsn_inference` with ``final_state=True``."""
    return flexsn_inference(f, info, *args, final_state=True)


def flexsn_forward(
    f: ScanKernel,
    info: FlexSNInfo,
    *args: torch.Tensor,
    final_state: bool = False,
    stored: Sequence[int] | None = None,
    checked: bool = False,
) -> tuple[torch.Tensor, ...]:
    """Run the training forward kernel (SpikingJelly's ``flexsn_forward``).

    Args:
        f: the forward kernel (with ``final_state``: its ``final_state`` variant).
        info: the training :class:`FlexSNInfo`.
        args: input sequences, initial states, then static inputs.
        final_state: keep final states; state sequences are written only
            where the backward reads them.
        stored: ``final_state_forward_returns(info)`` when the caller has it
            (a per-call saving for host-bound steps; only with ``final_state``).
        checked: as in :func:`flexsn_inference`.

    Returns:
        Without ``final_state``: the ``info.num_fwd_kernel_returns``
        sequences (outputs, state sequences, saved intermediates), empty
        when ``T == 0``. With it: ``(*output_seqs, *final_states, *saved)``
        where ``saved`` are the sequences ``final_state_forward_returns(info)``
        lists past the outputs; when ``T == 0`` the final states are clones
        of the initial states.

    Raises:
        ValueError: wrong number of tensors.
    """
    return launch_forward(f, info, _split(info, args, checked), final_state, stored)


def launch_forward(
    f: ScanKernel, info: FlexSNInfo, la: LaunchArgs, final_state: bool, stored: Sequence[int] | None = None
) -> tuple[torch.Tensor, ...]:
    """Allocate the returns and launch the training forward kernel: the one forward launch, nothing checked.

    Arguments as :func:`launch_inference` (``stored`` as in :func:`flexsn_forward`); returns as :func:`flexsn_forward`.
    """
    x = la.x
    if not final_state:
        outs = [empty_in_order(x.shape, la.order, f.output_dtype(k, x), x.device) for k in range(info.num_fwd_kernel_returns)]
        _run(f, la, outs)
        return tuple(outs)
    if stored is None:
        stored = final_state_forward_returns(info)
    seqs = [empty_in_order(stored_shape(info, k, x.shape), la.order, f.output_dtype(k, x), x.device) for k in stored]
    finals = _finals(info, la)
    _run(f, la, [*seqs, *finals])
    return (*seqs[: info.num_outputs], *finals, *seqs[info.num_outputs :])


def flexsn_forward_final_state(
    f: ScanKernel, info: FlexSNInfo, *args: torch.Tensor, stored: Sequence[int] | None = None
) -> tuple[torch.Tensor, ...]:
    """SpikingJelly's name for :func:`flexsn_forward` with ``final_state=True``."""
    return flexsn_forward(f, info, *args, final_state=True, stored=stored)


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
