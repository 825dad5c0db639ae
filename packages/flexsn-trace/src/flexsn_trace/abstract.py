"""A step's output shapes without data: run the core once on fake tensors.

A call with ``T == 0`` never runs the core, yet it must return output
sequences ``[0, *shape]`` of the right shapes and dtypes. SpikingJelly's
``FlexSN`` and ``flex_sn_scan`` ask the user for them (``example_outputs``,
``output_template_specs``). Most cores are shape-polymorphic PyTorch code, so
running one step on fake tensors (PyTorch's ``FakeTensorMode``: shapes,
dtypes and devices, no storage, no kernels) answers the question exactly,
the way ``torch.compile`` propagates shapes; the user is asked only when that
run fails (a branch on a value, an op without a fake implementation).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from .contract import as_tensor_tuple

__all__ = ["OutputSpec", "empty_sequences", "fake_step_outputs"]

#: one output's per-step shape and dtype
OutputSpec = tuple[tuple[int, ...], torch.dtype]


def fake_step_outputs(
    core: Callable[..., Any],
    input_seqs: Sequence[torch.Tensor],
    states: Sequence[torch.Tensor],
    lifted: Sequence[torch.Tensor],
    num_outputs: int,
    num_states: int,
    what: str,
) -> tuple[OutputSpec, ...]:
    """Shapes and dtypes of ``core``'s ``num_outputs`` step outputs, from one step run on fake tensors.

    Args:
        core: the step function, called as ``core(*step_inputs, *states, *lifted)``.
        input_seqs: the input sequences ``[T, *shape]`` (any ``T``, ``0``
            included: only ``shape``, dtype and device are read).
        states: the states ``[*state_shape]`` the step starts from.
        lifted: tensors passed after the states (static inputs), unchanged.
        num_outputs / num_states: how many results ``core`` returns of each.
        what: how to name the caller in messages (e.g. ``"FlexSN(backend='torch')"``).

    Returns:
        ``num_outputs`` pairs ``(per-step shape, dtype)``.

    Raises:
        ValueError: the core could not run on fake tensors (its error is
            chained and quoted).
        TypeError: the core returned something that is not a tensor tuple of
            ``num_outputs + num_states`` (:func:`as_tensor_tuple`).

    The core runs once under ``torch.no_grad()`` with fake tensors of the
    inputs' per-step shapes: a side effect of the core (a print, a counter)
    happens once more. Real tensors it captures (parameters, buffers) are
    read as fake copies (``allow_non_fake_inputs``); nothing real is written.
    Under ``torch.compile`` the step is traced by Dynamo, whose tensors are
    fake already (a core it cannot trace breaks the graph, or fails with
    ``fullgraph=True``).
    """
    if torch.compiler.is_compiling():
        # Dynamo traces this on its own fake tensors: one step on uninitialised per-step tensors gives the
        # shapes, and the graph keeps none of it (its results are unused: dead code to Inductor).
        with torch.no_grad():
            out = core(*[x.new_empty(x.shape[1:]) for x in input_seqs], *states, *lifted)
    else:
        out = _fake_step(core, input_seqs, states, lifted, what)
    results = as_tensor_tuple(out, what, num_outputs + num_states, TypeError)  # its errors, as a real step's
    return tuple((tuple(int(d) for d in y.shape), y.dtype) for y in results[:num_outputs])


def _fake_step(
    core: Callable[..., Any], input_seqs: Sequence[torch.Tensor], states: Sequence[torch.Tensor],
    lifted: Sequence[torch.Tensor], what: str,
) -> Any:
    """``core``'s return value on one step of fake tensors (``ValueError`` when it cannot run so)."""
    from torch._guards import detect_fake_mode
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    real = [*input_seqs, *states, *lifted]
    mode = detect_fake_mode(real)
    mode = mode if mode is not None else FakeTensorMode(allow_non_fake_inputs=True)
    try:
        with mode, torch.no_grad():
            step = [
                torch.empty_strided(tuple(x.shape[1:]), tuple(x.stride()[1:]), dtype=x.dtype, device=x.device)
                for x in input_seqs
            ]
            held = [s if isinstance(s, FakeTensor) else mode.from_tensor(s) for s in states]
            return core(*step, *held, *lifted)
    except Exception as exc:  # noqa: BLE001 - any failure of the core's fake run means: ask the user
        raise ValueError(
            f"{what}: the core could not run on shape-only (fake) tensors to find its output shapes "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def empty_sequences(like: torch.Tensor, specs: Sequence[OutputSpec]) -> tuple[torch.Tensor, ...]:
    """Empty sequences ``[0, *shape]`` of ``specs``' shapes and dtypes, on ``like``'s device.

    Floating ones stay in ``like``'s autograd graph (an empty sum times 0, expanded), so a
    backward through a ``T == 0`` call gives zero gradients rather than "does not require grad".
    """
    zero = like.sum() * 0
    return tuple(zero.to(dt).expand(0, *sh) if dt.is_floating_point else like.new_empty((0, *sh), dtype=dt) for sh, dt in specs)
