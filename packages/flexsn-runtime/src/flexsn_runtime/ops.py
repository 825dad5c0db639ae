"""``torch.library`` custom ops over the handle registry (seed 001).

The ops are opaque to ``torch.compile``: Dynamo/AOTAutograd see one node per
call, with fake implementations for shape propagation and autograd
registrations that call the backward op. Flat arguments are
``[*input_seqs, *init_states]``; when only the input sequences are passed,
zero initial states are created *inside* the op, so compiled graphs carry
no ``zeros_like`` in front of every neuron layer.
"""

from __future__ import annotations

import weakref
from typing import Any, Sequence

import torch

from flexsn_codegen import backward_saved_args
from flexsn_trace import FlexSNInfo

from .registry import (
    FlexSNKernelHandle,
    lookup_flexsn_kernel_handle,
    release_active_flexsn_kernel_handle,
    retain_flexsn_kernel_handle,
)
from .wrappers import flexsn_backward, flexsn_forward, flexsn_inference, flexsn_inference_final_state

__all__ = [
    "flexsn_backward_op",
    "flexsn_inference_final_state_op",
    "flexsn_inference_op",
    "flexsn_training_final_state_op",
    "flexsn_training_op",
]

Spec = tuple[tuple[int, ...], torch.dtype, torch.device]


def _info(bundle: FlexSNKernelHandle, which: str) -> FlexSNInfo:
    info = {
        "inference": bundle.inference_info,
        "inference_final_state": bundle.inference_final_state_info,
        "training": bundle.training_info,
    }[which]
    if info is None:
        raise RuntimeError(f"the FlexSN {which} kernel is unavailable for this handle")
    return info


def _with_states(info: FlexSNInfo, flat_args: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    if len(flat_args) == info.num_inputs + info.num_states:
        return list(flat_args)
    if len(flat_args) != info.num_inputs:
        raise ValueError(
            f"FlexSN ops take num_inputs={info.num_inputs} input sequences optionally followed by "
            f"num_states={info.num_states} initial states; got {len(flat_args)} tensors"
        )
    x = flat_args[0]
    return [*flat_args, *(x.new_zeros(x.shape[1:]) for _ in range(info.num_states))]


def _final_state_extras(info: FlexSNInfo) -> list[int]:
    """Forward-kernel returns (beyond outputs) the final-state training op must also return for backward."""
    return sorted({k for kind, k in backward_saved_args(info) if kind == "return" and k >= info.num_outputs})


@torch.library.custom_op("flexsn::inference", mutates_args=())
def flexsn_inference_op(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    """Inference scan: ``[*input_seqs, *init_states?] -> [*output_seqs, *state_seqs]`` (each ``[T, *shape]``)."""
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "inference")
    assert bundle.inference_kernel is not None
    return list(flexsn_inference(bundle.inference_kernel, info, *_with_states(info, flat_args)))


@flexsn_inference_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    info = _info(lookup_flexsn_kernel_handle(handle), "inference")
    x = flat_args[0]
    return [x.new_empty(x.shape) for _ in range(info.num_outputs + info.num_states)]


@torch.library.custom_op("flexsn::inference_final_state", mutates_args=())
def flexsn_inference_final_state_op(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    """Inference scan storing final states only: ``-> [*output_seqs, *final_states]``."""
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "inference_final_state")
    assert bundle.inference_final_state_kernel is not None
    return list(flexsn_inference_final_state(bundle.inference_final_state_kernel, info, *_with_states(info, flat_args)))


@flexsn_inference_final_state_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    info = _info(lookup_flexsn_kernel_handle(handle), "inference_final_state")
    x = flat_args[0]
    return [x.new_empty(x.shape) for _ in range(info.num_outputs)] + [
        x.new_empty(x.shape[1:]) for _ in range(info.num_states)
    ]


@torch.library.custom_op("flexsn::training", mutates_args=())
def flexsn_training_op(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    """Training forward scan: ``-> [*output_seqs, *state_seqs, *saved_intermediates]``."""
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "training")
    assert bundle.forward_kernel is not None
    return list(flexsn_forward(bundle.forward_kernel, info, *_with_states(info, flat_args)))


@flexsn_training_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    info = _info(lookup_flexsn_kernel_handle(handle), "training")
    x = flat_args[0]
    return [x.new_empty(x.shape) for _ in range(info.num_fwd_kernel_returns)]


@torch.library.custom_op("flexsn::training_final_state", mutates_args=())
def flexsn_training_final_state_op(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    """Training forward keeping final states only: ``-> [*output_seqs, *final_states, *saved_for_backward]``."""
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "training")
    assert bundle.forward_kernel is not None
    args = _with_states(info, flat_args)
    rets = flexsn_forward(bundle.forward_kernel, info, *args)
    init = args[info.num_inputs :]
    finals = [
        (init[j] if rets[info.num_outputs + j].shape[0] == 0 else rets[info.num_outputs + j][-1]).clone()
        for j in range(info.num_states)
    ]
    return [*rets[: info.num_outputs], *finals, *(rets[k] for k in _final_state_extras(info))]


@flexsn_training_final_state_op.register_fake
def _(handle: int, flat_args: list[torch.Tensor]) -> list[torch.Tensor]:
    info = _info(lookup_flexsn_kernel_handle(handle), "training")
    x = flat_args[0]
    return (
        [x.new_empty(x.shape) for _ in range(info.num_outputs)]
        + [x.new_empty(x.shape[1:]) for _ in range(info.num_states)]
        + [x.new_empty(x.shape) for _ in _final_state_extras(info)]
    )


@torch.library.custom_op("flexsn::backward", mutates_args=())
def flexsn_backward_op(
    handle: int, grads: list[torch.Tensor], saved: list[torch.Tensor], templates: list[torch.Tensor]
) -> list[torch.Tensor]:
    """BPTT backward: output/state-sequence gradients + saved tensors -> input and initial-state gradients.

    ``templates`` holds one tensor per input sequence then per initial state
    (shape/dtype of the gradients to produce).
    """
    bundle = lookup_flexsn_kernel_handle(handle)
    info = _info(bundle, "training")
    assert bundle.backward_kernel is not None
    return list(
        flexsn_backward(
            bundle.backward_kernel,
            info,
            *grads,
            *saved,
            input_templates=templates[: info.num_inputs],
            state_templates=templates[info.num_inputs :],
        )
    )


@flexsn_backward_op.register_fake
def _(handle: int, grads: list[torch.Tensor], saved: list[torch.Tensor], templates: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.new_empty(t.shape) for t in templates]


def _spec(t: torch.Tensor) -> Spec:
    return tuple(t.shape), t.dtype, t.device


def _template(spec: Spec) -> torch.Tensor:
    shape, dtype, device = spec
    return torch.empty((), dtype=dtype, device=device).expand(shape)


def _zeros(spec: Spec) -> torch.Tensor:
    shape, dtype, device = spec
    return torch.zeros(shape, dtype=dtype, device=device)


def _setup_common(ctx: Any, inputs: tuple[Any, ...], saved_returns: dict[int, torch.Tensor]) -> None:
    handle, flat_args = inputs
    info = _info(lookup_flexsn_kernel_handle(handle), "training")
    retain_flexsn_kernel_handle(handle)
    # Release the active reference even if backward never runs.
    ctx.finalizer = weakref.finalize(ctx, release_active_flexsn_kernel_handle, handle)
    ctx.handle = handle
    ctx.n_flat = len(flat_args)
    x = flat_args[0]
    explicit = len(flat_args) == info.num_inputs + info.num_states
    ctx.input_specs = [_spec(t) for t in flat_args[: info.num_inputs]]
    ctx.state_specs = [
        _spec(flat_args[info.num_inputs + j]) if explicit else (tuple(x.shape[1:]), x.dtype, x.device)
        for j in range(info.num_states)
    ]
    ctx.seq_spec = _spec(x)
    tensors: list[torch.Tensor | None] = []
    for kind, idx in backward_saved_args(info):
        if kind == "input":
            tensors.append(flat_args[idx])
        elif kind == "return":
            tensors.append(saved_returns[idx])
        else:
            tensors.append(flat_args[info.num_inputs + idx] if explicit else None)
    ctx.save_for_backward(*tensors)


def _run_backward(ctx: Any, seq_grads: list[torch.Tensor]) -> list[torch.Tensor]:
    saved = [
        t if t is not None else _zeros(ctx.state_specs[idx])
        for t, (kind, idx) in zip(ctx.saved_tensors, backward_saved_args(_info(lookup_flexsn_kernel_handle(ctx.handle), "training")))
    ]
    templates = [_template(s) for s in (*ctx.input_specs, *ctx.state_specs)]
    try:
        if ctx.finalizer.alive:
            ctx.finalizer.detach()
        else:
            retain_flexsn_kernel_handle(ctx.handle)  # a second backward (retain_graph=True)
        grads = list(flexsn_backward_op(ctx.handle, seq_grads, saved, templates))
    finally:
        release_active_flexsn_kernel_handle(ctx.handle)
    return grads[: ctx.n_flat]


def _setup_training(ctx: Any, inputs: tuple[Any, ...], output: list[torch.Tensor]) -> None:
    _setup_common(ctx, inputs, dict(enumerate(output)))
    info = _info(lookup_flexsn_kernel_handle(inputs[0]), "training")
    ctx.n_vis = info.num_outputs + info.num_states
    ctx.out_specs = [_spec(t) for t in output[: ctx.n_vis]]


def _backward_training(ctx: Any, grad_out: list[torch.Tensor | None]) -> tuple[None, list[torch.Tensor]]:
    seq_grads = [g if g is not None else _zeros(s) for g, s in zip(grad_out[: ctx.n_vis], ctx.out_specs)]
    return None, _run_backward(ctx, seq_grads)


def _setup_training_final_state(ctx: Any, inputs: tuple[Any, ...], output: list[torch.Tensor]) -> None:
    info = _info(lookup_flexsn_kernel_handle(inputs[0]), "training")
    vis = info.num_outputs + info.num_states
    returns = {k: output[k] for k in range(info.num_outputs)}
    returns.update({k: output[vis + i] for i, k in enumerate(_final_state_extras(info))})
    _setup_common(ctx, inputs, returns)
    ctx.num_outputs, ctx.num_states = info.num_outputs, info.num_states
    ctx.out_specs = [_spec(t) for t in output[: info.num_outputs]]


def _backward_training_final_state(ctx: Any, grad_out: list[torch.Tensor | None]) -> tuple[None, list[torch.Tensor]]:
    out_grads = [g if g is not None else _zeros(s) for g, s in zip(grad_out[: ctx.num_outputs], ctx.out_specs)]
    T = ctx.seq_spec[0][0]
    state_grads = []
    finals = grad_out[ctx.num_outputs : ctx.num_outputs + ctx.num_states]
    for j, g in enumerate(finals):
        shape, dtype, device = ctx.state_specs[j]
        seq = torch.zeros((T, *shape), dtype=dtype, device=device)
        if g is not None and T > 0:
            seq[-1].copy_(g)
        state_grads.append(seq)
    grads = _run_backward(ctx, [*out_grads, *state_grads])
    if T == 0:
        # final state == initial state: its gradient passes straight through
        for j, g in enumerate(finals):
            idx = len(ctx.input_specs) + j
            if g is not None and idx < len(grads):
                grads[idx] = grads[idx] + g
    return None, grads


torch.library.register_autograd("flexsn::training", _backward_training, setup_context=_setup_training)
torch.library.register_autograd(
    "flexsn::training_final_state", _backward_training_final_state, setup_context=_setup_training_final_state
)
