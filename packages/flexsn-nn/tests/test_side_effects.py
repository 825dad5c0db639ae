"""A core that changes state outside its arguments (counts its steps, records a value) is told at construction,
once: the eager loop makes the change at every step, fused kernels only while they are traced, so what the user
reads afterwards differs from the loop's (``flexsn_trace.side_effects``). Before, nothing was said.

A core that changes a place it also reads (a counter, a list whose length is watched) runs the eager loop, told once
(``flexsn_runtime.kernel_build.settled_constants``): before, fused kernels kept the traced value, a branch on it was
baked in, and every call found the place changed and traced the kernels again, with a warning each time.
"""

from __future__ import annotations

import warnings
from typing import Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import pick_device

RECORD: list[torch.Tensor] = []


class _Counter:
    steps = 0


def recording_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= 1.0).to(x.dtype)
    RECORD.append(h)
    _Counter.steps += 1
    return s, h * (1.0 - s)


LOG: list[int] = []


def lowering_after_three_steps(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    threshold = 0.5 if len(LOG) >= 3 else 1.0  # the eager loop lowers it from the fourth step on
    LOG.append(1)
    s = (h >= threshold).to(x.dtype)
    return s, h * (1.0 - s)


class _Setup:
    ready = False


def set_up_on_the_first_step(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if not _Setup.ready:  # a flag set once: the place settles, and the kernels keep the settled value
        _Setup.ready = True
    h = v + (x - v) / 2.0
    s = (h >= 1.0).to(x.dtype)
    return s, h * (1.0 - s)


STATS: dict[str, torch.Tensor] = {}


def keeping_the_last(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= 1.0).to(x.dtype)
    STATS["last"] = h  # written, never read: the kernels stay fused, and the warning says the loop would differ
    return s, h * (1.0 - s)


def _messages(caught: list[warnings.WarningMessage], text: str) -> list[str]:
    return [str(w.message) for w in caught if text in str(w.message)]


def _run_both(
    core: Callable[..., tuple[torch.Tensor, torch.Tensor]], reset: Callable[[], None], calls: int = 2, again: bool = True,
) -> tuple[list[warnings.WarningMessage], FlexSN, list[torch.Tensor], list[torch.Tensor], torch.Tensor]:
    """The core on the eager loop and fused, from the same state before each (``reset`` before each is built and,
    with ``again``, before the fused one's calls); the warnings of the fused one."""
    x = torch.rand(6, 3, 8, device=pick_device()) * 2
    loop = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    expected = []
    reset()
    for _ in range(calls):
        expected.append(loop(x))
        loop.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reset()
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
        if again:
            reset()
        got = []
        for _ in range(calls):
            got.append(neuron(x))
            neuron.reset()
    return caught, neuron, expected, got, x


def _reset_recording() -> None:
    RECORD.clear()
    _Counter.steps = 0


def test_a_core_changing_what_it_reads_runs_the_eager_loop_told_once() -> None:
    caught, neuron, expected, got, x = _run_both(recording_core, _reset_recording)
    told = _messages(caught, "changes numbers it also reads")
    assert len(told) == 1, [str(w.message) for w in caught]
    assert "_Counter.steps" in told[0] and "this neuron runs on the eager PyTorch loop" in told[0], told
    assert "RECORD.append(h) in recording_core" in told[0] and "_Counter.steps += 1" in told[0], told
    # the loop's bookkeeping, as the eager backend keeps it: every step of both calls
    assert len(RECORD) == 12 and _Counter.steps == 12
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e, rtol=0, atol=0)
    # before: "changed since the kernels were traced; tracing them again" at every call
    assert not _messages(caught, "tracing them again")
    assert not neuron.uses_kernels(x)


def test_a_branch_on_a_place_the_core_changes_follows_every_step() -> None:
    """Before, the kernels baked the branch the trace took, so the steps after the third kept the high threshold."""
    caught, _, expected, got, _ = _run_both(lowering_after_three_steps, LOG.clear, calls=1)
    assert len(_messages(caught, "len(global LOG)")) == 1, [str(w.message) for w in caught]
    torch.testing.assert_close(got[0], expected[0], rtol=0, atol=0)
    assert len(LOG) == 6


def test_a_flag_set_once_settles_and_stays_fused() -> None:
    def not_ready() -> None:
        _Setup.ready = False

    caught, neuron, expected, got, x = _run_both(set_up_on_the_first_step, not_ready, again=False)
    assert _Setup.ready
    assert neuron.uses_kernels(x)
    assert not _messages(caught, "changes numbers it also reads") and not _messages(caught, "tracing them again")
    assert len(_messages(caught, "_Setup.ready = True")) == 1  # the side effect, told once
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e)


def test_a_place_written_and_never_read_stays_fused_told_once() -> None:
    caught, neuron, expected, got, x = _run_both(keeping_the_last, lambda: None)  # clearing it is a change to follow
    told = _messages(caught, "changes state outside its arguments")
    assert len(told) == 1 and "STATS['last'] = h in keeping_the_last" in told[0], told
    assert neuron.uses_kernels(x)
    assert not _messages(caught, "tracing them again")
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e)
    # what the warning says: the fused calls did not keep the last step's membrane, as the loop did: the trace's is left
    assert STATS["last"].shape != x.shape[1:]


def test_the_eager_backend_says_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FlexSN(recording_core, 1, 1, 1, step_mode="m", backend="torch")


LOGS: list[list[int]] = [[]]
_MADE: dict[str, object] = {"LOGS": LOGS}
exec("def note_step():\n    LOGS[0].append(1)\n", _MADE)  # no source text: the side-effect search cannot read it
note_step = _MADE["note_step"]


def logging_through_a_loop(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    threshold = 0.5 if len(LOGS[0]) >= 3 else 1.0
    for log in LOGS:  # a loop's item: the side-effect search names it (before: not seen, only the eager step found it)
        log.append(1)
    s = (h >= threshold).to(x.dtype)
    return s, h * (1.0 - s)


def logging_through_a_function_without_text(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    threshold = 0.5 if len(LOGS[0]) >= 3 else 1.0
    note_step()  # a change the side-effect search cannot see (no text to read); the eager step does
    s = (h >= threshold).to(x.dtype)
    return s, h * (1.0 - s)


def test_a_change_through_a_loops_item_is_named_and_runs_the_eager_loop() -> None:
    caught, neuron, expected, got, x = _run_both(logging_through_a_loop, LOGS[0].clear, calls=1)
    told = _messages(caught, "changes numbers it also reads")
    assert len(told) == 1 and "len(global LOGS[0])" in told[0], [str(w.message) for w in caught]
    assert "log.append(1) in logging_through_a_loop" in told[0], told
    torch.testing.assert_close(got[0], expected[0], rtol=0, atol=0)
    assert not neuron.uses_kernels(x)


def test_a_change_the_text_search_misses_is_found_by_the_eager_step() -> None:
    caught, neuron, expected, got, x = _run_both(logging_through_a_function_without_text, LOGS[0].clear, calls=1)
    told = _messages(caught, "changes numbers it also reads")
    assert len(told) == 1 and "len(global LOGS[0])" in told[0], [str(w.message) for w in caught]
    assert "LOGS[0].append" not in told[0]  # no statement to name: the eager step's finding alone
    torch.testing.assert_close(got[0], expected[0], rtol=0, atol=0)
    assert not neuron.uses_kernels(x)


class _Tally:
    calls = 0


def counting_with_a_parameter(threshold: torch.nn.Parameter) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        _Tally.calls += 1
        s = torch.sigmoid(4.0 * (h - threshold))
        return s, h * (1.0 - s)

    return core


def test_a_core_capturing_a_tensor_on_the_device_is_settled_through_its_lifted_step() -> None:
    """The settling step runs the core with its captured tensors lifted (stand-ins on the examples' device), as
    the trace does: the core itself, on CPU examples beside a CUDA parameter, failed, and nothing was found."""
    threshold = torch.nn.Parameter(torch.tensor(1.0, device=pick_device()))
    core = counting_with_a_parameter(threshold)
    x = torch.rand(5, 3, 4, device=pick_device()) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
        _Tally.calls = 0
        xg = x.clone().requires_grad_()
        neuron(xg).sum().backward()
    assert len(_messages(caught, "changes numbers it also reads (global _Tally.calls")) == 1, [str(w.message) for w in caught]
    assert not _messages(caught, "tracing them again") and _Tally.calls == 5
    # the loop's gradient, the captured threshold's included
    loop = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    got = (xg.grad, threshold.grad.clone())
    threshold.grad = None
    xr = x.clone().requires_grad_()
    loop(xr).sum().backward()
    torch.testing.assert_close(got[0], xr.grad)
    torch.testing.assert_close(got[1], threshold.grad)


class _Backwards:
    calls = 0


class _CountingSpike(torch.autograd.Function):
    """Heaviside forward, ATan-like surrogate backward that counts its calls (a debugging counter)."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, h: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(h)
        return (h >= 0).to(h.dtype)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, g: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors  # type: ignore[attr-defined]
        _Backwards.calls += 1
        return g / (1.0 + (3.0 * h) ** 2)


def counting_backward(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = _CountingSpike.apply(h - 1.0)
    return s, h * (1.0 - s)


def test_a_backward_changing_what_it_reads_runs_the_eager_loop() -> None:
    """The settling step runs the step's backward too. Before, the training kernels' trace (on the first call that
    needs gradients) changed the counter, and that call raised a RuntimeError about stale kernels."""
    x = torch.rand(5, 3, 4, device=pick_device()) * 2
    loop = FlexSN(counting_backward, 1, 1, 1, step_mode="m", backend="torch")
    _Backwards.calls = 0
    xr = x.clone().requires_grad_()
    loop(xr).sum().backward()
    assert _Backwards.calls == 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(counting_backward, 1, 1, 1, step_mode="m", backend="triton")
        for _ in range(2):
            _Backwards.calls = 0
            xg = x.clone().requires_grad_()
            neuron(xg).sum().backward()
            neuron.reset()
            assert _Backwards.calls == 5
            torch.testing.assert_close(xg.grad, xr.grad)
    told = _messages(caught, "changes numbers it also reads")
    assert len(told) == 1 and "read by _CountingSpike.backward" in told[0], [str(w.message) for w in caught]


def test_an_empty_call_never_runs_a_changing_core_on_fake_tensors() -> None:
    """``T == 0``: the loop runs the core no time. Before, one step on fake tensors shaped the outputs and left a
    ``FakeTensor`` in ``STATS["last"]`` on every backend. Fused, the kernels' rule shapes them (every result reads the
    step); on the loop the call asks for ``example_outputs``, naming the statement; with them it runs."""
    x = torch.rand(4, 3, 8, device=pick_device())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the side effect is told at construction: not what this test checks
        fused = FlexSN(keeping_the_last, 1, 1, 1, step_mode="m", backend="triton")
        loop = FlexSN(keeping_the_last, 1, 1, 1, step_mode="m", backend="torch")
        given = FlexSN(keeping_the_last, 1, 1, 1, step_mode="m", backend="torch", example_outputs=[torch.zeros(3, 8)])
    assert fused.kernel.handle is not None and fused.kernel.results_keep_step
    STATS.clear()
    out = fused(x[:0])
    assert out.shape == (0, 3, 8) and out.dtype == x.dtype and "last" not in STATS
    with pytest.raises(ValueError, match=r"T = 0 requires example_outputs.*STATS\['last'\] = h in keeping_the_last"):
        loop(x[:0])
    assert "last" not in STATS and loop.states == []
    out = given(x[:0])
    assert out.shape == (0, 3, 8) and "last" not in STATS
