"""Changes FlexSN sees that Dynamo cannot guard, and reads it cannot follow: each is told, none is a silent stale result.

A user's ``autograd.Function`` class a core calls (``SPIKE.apply(h)``; a notebook cell run again rebinds ``SPIKE``
to a new class) and a list longer than the place search follows item by item (``LUT[10]``, changed in place) were
baked into the kernels unwatched. Now an eager call traces again with one warning naming the place and both
values; a compiled call, whose graph Dynamo cannot guard on these (no Dynamo we run compares an
``autograd.Function`` class; a list's contents are read, not guarded), raises before its kernels run, after one
warning at compile time saying so. A dict item under a key the core computes (``f"{NAME}_thr"``) below the
search's depth is named in a warning when the neuron is built.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import loop_loss_and_grad, loss_and_grad, pick_device


class SpikeHigh(torch.autograd.Function):
    """A Heaviside spike at 1.0 with a sigmoid surrogate gradient (slope 4)."""

    @staticmethod
    def forward(ctx: Any, h: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(h)
        return (h >= 1.0).to(h.dtype)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors
        sg = torch.sigmoid(4.0 * (h - 1.0))
        return grad * 4.0 * sg * (1.0 - sg)


class SpikeLow(torch.autograd.Function):
    """The same at 0.3: what the user's edited class computes."""

    @staticmethod
    def forward(ctx: Any, h: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(h)
        return (h >= 0.3).to(h.dtype)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors
        sg = torch.sigmoid(4.0 * (h - 0.3))
        return grad * 4.0 * sg * (1.0 - sg)


SPIKE = SpikeHigh
#: longer than places.MAX_ITEMS: watched whole, by its contents
LUT = [0.1 * i for i in range(100)]


def spike_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = SPIKE.apply(h)
    return s, h * (1.0 - s)


def lut_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - LUT[10]))
    return s, h * (1.0 - s)


def _set_spike(cls: type) -> None:
    global SPIKE
    SPIKE = cls


CASES: dict[str, tuple[Callable[..., Any], Callable[[], None], Callable[[], None], str, str]] = {
    "an autograd.Function class rebound": (
        spike_core, lambda: _set_spike(SpikeLow), lambda: _set_spike(SpikeHigh),
        f"global SPIKE ({__name__}.SpikeHigh -> {__name__}.SpikeLow)", "Dynamo cannot compare global SPIKE",
    ),
    "an item of a long list changed in place": (
        lut_core, lambda: LUT.__setitem__(10, 0.3), lambda: LUT.__setitem__(10, 1.0), "global LUT[10] (1.0 -> 0.3)",
        "Dynamo does not guard global LUT",
    ),
}



def _warnings_of(run: Callable[[], Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("case", list(CASES))
def test_an_eager_call_traces_again(case: str) -> None:
    """Forward and dL/dx after the change equal the eager loop's (autograd through it); one warning names the place."""
    core, change, undo, told, _ = CASES[case]
    LUT[10] = 1.0
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(31)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    assert neuron.uses_kernels(x)
    try:
        before = loss_and_grad(neuron, x)
        for got, want in zip(before, loop_loss_and_grad(core, x)):
            torch.testing.assert_close(got, want)
        change()
        neuron.reset()
        after, messages = _warnings_of(lambda: loss_and_grad(neuron, x))
        want_after = loop_loss_and_grad(core, x)
        assert not torch.allclose(want_after[0], before[0])  # the change matters: a stale result fails below
        for got, want in zip(after, want_after):
            torch.testing.assert_close(got, want)
        assert any(f"{told} changed since the kernels were traced" in m for m in messages), messages
    finally:
        undo()


@pytest.mark.parametrize("case", list(CASES))
def test_a_compiled_call_raises_rather_than_run_stale_kernels(case: str) -> None:
    """Under ``torch.compile(fullgraph=True)`` the graph keeps its kernels (no guard): the next call raises, naming the
    place and both values, where it would have computed with the old value; compiling warned once that it would.
    Compiled again, the call equals the eager loop with the new value."""
    core, change, undo, told, unguarded = CASES[case]
    LUT[10] = 1.0
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(32)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    torch._dynamo.reset()
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True)
    try:
        before, messages = _warnings_of(lambda: loss_and_grad(run, x))
        for got, want in zip(before, loop_loss_and_grad(core, x)):
            torch.testing.assert_close(got, want)
        assert any(unguarded in m for m in messages), messages
        change()
        neuron.reset()
        with pytest.raises(RuntimeError, match=re.escape(f"{told} changed since these kernels were traced")):
            loss_and_grad(run, x)
        torch.compiler.reset()  # what the error says to do: compiled again, the new value is used
        for got, want in zip(loss_and_grad(run, x), loop_loss_and_grad(core, x)):
            torch.testing.assert_close(got, want)
    finally:
        undo()
        torch._dynamo.reset()


CFG = {"neurons": {"lif": {"v_thr": 1.0}}}
NAME = "v"


def computed_key_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Three dicts deep under a key the core computes: the search cannot know it without running the core."""
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - CFG["neurons"]["lif"][f"{NAME}_thr"]))
    return s, h * (1.0 - s)


def test_a_key_computed_below_the_searched_depth_is_named_when_the_neuron_is_built() -> None:
    """Before: no warning, and ``CFG["neurons"]["lif"]["v_thr"] = 0.3`` left the kernels' 1.0 in silence."""
    _, messages = _warnings_of(lambda: FlexSN(computed_key_core, 1, 1, 1, step_mode="m", backend="triton"))
    assert any(
        "cannot follow" in m and "CFG['neurons']['lif'][f'{NAME}_thr'] in computed_key_core" in m for m in messages
    ), messages
