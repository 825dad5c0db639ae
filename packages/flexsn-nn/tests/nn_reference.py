"""Independent references for the flexsn_nn tests: explicit Python time loops and test cores."""

from __future__ import annotations

import os
import warnings
from typing import Any, Callable, Sequence

import torch

from flexsn_nn import surrogate
from flexsn_trace import ScanContract, reference_scan

SG = surrogate.Sigmoid(4.0)


def pick_device() -> torch.device:
    """CUDA when present and the interpreter is off, else the CPU (kernels interpreted)."""
    interp = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
    return torch.device("cuda" if torch.cuda.is_available() and not interp else "cpu")


def lif_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """LIF, tau=2, threshold 1, hard reset to 0."""
    h = v + (x - v) / 2.0
    s = SG(h - 1.0)
    return s, h * (1.0 - s)


def plif_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Parametric LIF (Fang et al. 2021) with a static input ``w`` of any broadcasting shape:
    ``tau = 1 / sigmoid(w)``, threshold 1, hard reset to 0."""
    h = v + (x - v) * torch.sigmoid(w)
    s = SG(h - 1.0)
    return s, h * (1.0 - s)


def two_core(
    x1: torch.Tensor, x2: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """2 inputs, 2 states, 2 outputs (spikes and a smooth readout)."""
    a2 = 0.9 * a + x1 * torch.sigmoid(x2)
    b2 = 0.8 * b + 0.5 * x2 - 0.1 * a2
    s = SG(a2 - b2)
    y = torch.exp(-b2 * b2) * x1
    return s, y, a2 * (1.0 - s), b2


CORES: dict[str, tuple[Callable[..., Any], int, int, int]] = {
    "lif": (lif_core, 1, 1, 1),
    "two": (two_core, 2, 2, 2),
}


def python_loop(
    core: Callable[..., Any],
    num_outputs: int,
    input_seqs: Sequence[torch.Tensor],
    init_states: Sequence[torch.Tensor],
) -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    """Explicit loop: ``(output_seqs, state_seqs, final_states)``; differentiable."""
    T = input_seqs[0].shape[0]
    states = list(init_states)
    outs: list[list[torch.Tensor]] = [[] for _ in range(num_outputs)]
    seqs: list[list[torch.Tensor]] = [[] for _ in states]
    for t in range(T):
        res = core(*(x[t] for x in input_seqs), *states)
        res = (res,) if isinstance(res, torch.Tensor) else tuple(res)
        for k in range(num_outputs):
            outs[k].append(res[k])
        states = list(res[num_outputs:])
        for j, s in enumerate(states):
            seqs[j].append(s)
    x0 = input_seqs[0]
    out_seqs = [torch.stack(o) if o else x0.new_empty(x0.shape) for o in outs]
    state_seqs = [torch.stack(q) if q else s.new_empty((0, *s.shape)) for q, s in zip(seqs, init_states)]
    return out_seqs, state_seqs, states


def traced_numbers(constants: Any) -> list[object]:
    """The values a :class:`flexsn_trace.Constants` traced its numbers (and arrays, sets) with, leaving out the flags,
    the code and the containers' lengths (``len(global CFG)``) it watches too."""
    from flexsn_trace.kinds import is_code, is_flag

    return [
        v for c, v in zip(constants.items, constants.traced)
        if not (is_flag(c.value) or is_code(c.value) or c.name.startswith("len("))
    ]


def loss_and_grad(
    module: Callable[..., torch.Tensor], x: torch.Tensor, params: Sequence[torch.Tensor] = ()
) -> tuple[torch.Tensor, ...]:
    """``module(x)``, dL/dx and dL/d``params`` (tensors the module reads, each used) of a loss weighting the last
    dimension by ``linspace(0, 1)`` (so no output is ignored)."""
    xg = x.clone().requires_grad_()
    out = module(xg)
    loss = (out * torch.linspace(0.0, 1.0, out.shape[-1], device=x.device)).sum()
    return (out.detach(), *torch.autograd.grad(loss, [xg, *params]))


def loop_output(core: Callable[..., Any], x: torch.Tensor) -> torch.Tensor:
    """The output sequence of the eager loop of a one-input, one-state, one-output ``core`` from zero states
    (:func:`flexsn_trace.reference_scan`; autograd flows through it)."""
    out: torch.Tensor = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))[0]
    return out


def loop_loss_and_grad(core: Callable[..., Any], x: torch.Tensor, params: Sequence[torch.Tensor] = ()) -> tuple[torch.Tensor, ...]:
    """:func:`loss_and_grad` of the eager loop of a one-input, one-state, one-output ``core`` (:func:`loop_output`,
    autograd through it): the reference a fused call is checked against."""
    return loss_and_grad(lambda xg: loop_output(core, xg), x, params)


def assert_changes_followed(
    run: Callable[[torch.Tensor], torch.Tensor], neuron: Any, core: Any, x: torch.Tensor, values: Sequence[Any],
    set_value: Callable[[Any], None], what: str = "value",
) -> list[str]:
    """For each of ``values`` in turn: set it, reset ``neuron`` and call ``run`` (the neuron, maybe compiled) on ``x``
    without gradients; the output must be the eager loop's (:func:`flexsn_trace.reference_scan` of the 1-in / 1-state
    / 1-out ``core``) at that value, and only a call after a change may say, once, that the kernels are traced again.

    Returns:
        The last call's "traced again" warnings (for the caller to check what they name).
    """
    told: list[str] = []
    for value in values:
        set_value(value)
        neuron.reset()
        with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = run(x)
        want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
        torch.testing.assert_close(got, want, msg=lambda m: f"{what} = {value}: {m}")
        told = [str(w.message) for w in caught if "changed since the kernels were traced" in str(w.message)]
        assert len(told) == (value != values[0]), told
    return told


def final_state_loop(core: Callable[..., Any], x: torch.Tensor, num_states: int = 1) -> tuple[torch.Tensor, ...]:
    """The eager loop of a one-input, one-output ``core`` over ``x [T, *shape]`` from zero states:
    ``(output_seq, *final_states)`` (:func:`flexsn_trace.reference_scan`, final-state form)."""
    states = tuple(x.new_zeros(x.shape[1:]) for _ in range(num_states))
    return reference_scan(core, ScanContract(1, num_states, 1, (x,), states, final_state=True))


def compiled_twice_then_another_shape(
    neuron: torch.nn.Module, x: torch.Tensor, want: torch.Tensor | None = None
) -> list[warnings.WarningMessage]:
    """``neuron`` compiled (``aot_eager``, ``fullgraph=True``) and called twice on ``x [T, B, ...]`` (each from a
    reset, compared with ``want`` when given), then once on ``x[:, :2]`` (a second shape: Dynamo compiles again); the
    warnings of those calls. Dynamo is reset before and after."""
    torch._dynamo.reset()
    try:
        compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                neuron.reset()  # type: ignore[operator]
                out = compiled(x)
                if want is not None:
                    torch.testing.assert_close(out, want)
            neuron.reset()  # type: ignore[operator]
            compiled(x[:, :2])
        return list(caught)
    finally:
        torch._dynamo.reset()
