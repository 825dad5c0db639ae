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

from flexsn_codegen import final_state_forward_returns
from flexsn_trace import FlexSNInfo, check_scan_args

from .layout import Order, call_order, empty_in_order, fit_orders, stored_shape
from .scan_kernel import ScanKernel, ncl_bucket
from .statics import static_dims

__all__ = [
    "LaunchArgs",
    "flexsn_backward_ncl_bucket",
    "flexsn_forward",
    "flexsn_forward_final_state",
    "flexsn_inference",
    "flexsn_inference_final_state",
    "launch_args",
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
    order = call_order(flat_args, nst)
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
        args: ``num_inputs`` input sequences ``[T, *shape]`` then ``num_states``
            initial states ``[*shape]`` (optional: zeros), one device and dtype
            (float32, float16 or bfloat16), then ``info.num_static`` static
            inputs in layout form (as :func:`flexsn_inference`).
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
