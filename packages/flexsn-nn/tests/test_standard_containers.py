"""Numbers and tensors a core reads from the standard library's other containers are followed as a list's are.

A threshold kept in a ``collections.deque`` (a history read as ``HIST[-1]``), a ``collections.UserList``, an
``array.array`` or a ``bytearray``: before, the place search stopped at such a container without a word, the kernels
kept the value they were traced with, and a later change (``HIST.append(0.3)``, ``ARR[0] = 0.3``) gave the old
result, silently. Now a deque's and a ``UserList``'s items and length are watched as a list's are
(``flexsn_trace.kinds.SEQUENCES``), a tensor in one is lifted, and an array's or a ``bytearray``'s contents are
watched whole, as a NumPy array's are (``NUMBER_BUFFERS``).
"""

from __future__ import annotations

import array
import collections
import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import assert_changes_followed, loop_loss_and_grad, loop_output, loss_and_grad, pick_device

HIST: "collections.deque[float]" = collections.deque([1.0, 1.0], maxlen=4)
LEVELS = collections.UserList([1.0])
ARR = array.array("d", [1.0])
STEPS = bytearray([4])
WEIGHTS: "collections.deque[torch.Tensor]" = collections.deque()


def last_in_history(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= HIST[-1]).to(x.dtype)
    return s, h * (1.0 - s)


def first_level(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= LEVELS[0]).to(x.dtype)
    return s, h * (1.0 - s)


def from_an_array(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= ARR[0]).to(x.dtype)
    return s, h * (1.0 - s)


def from_bytes(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= STEPS[0] / 4.0).to(x.dtype)
    return s, h * (1.0 - s)


def set_last(value: float) -> None:
    HIST[-1] = value


def set_level(value: float) -> None:
    LEVELS[0] = value


def set_array(value: float) -> None:
    ARR[0] = value


def set_bytes(value: float) -> None:
    STEPS[0] = int(value * 4)


CASES: dict[str, tuple[Callable[..., Any], Callable[[float], None], str]] = {
    "deque": (last_in_history, set_last, "global HIST[1]"),
    "UserList": (first_level, set_level, "global LEVELS[0]"),
    "array.array": (from_an_array, set_array, "global ARR[0]"),
    "bytearray": (from_bytes, set_bytes, "global STEPS[0]"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_a_number_read_from_the_container_is_followed(kind: str) -> None:
    core, set_value, where = CASES[kind]
    set_value(1.0)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(5)) * 2).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    told = assert_changes_followed(neuron, neuron, core, x, [1.0, 0.25, 0.75], set_value, kind)
    assert told and where in told[0], told
    assert neuron.uses_kernels(x)


def test_a_deque_followed_under_torch_compile() -> None:
    """Dynamo guards what the kernels read of a deque: an append (a new length, a new last item) compiles again."""
    HIST.clear()
    HIST.extend([1.0, 1.0])
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(6)) * 2).to(pick_device())
    neuron = FlexSN(last_in_history, 1, 1, 1, step_mode="m", backend="triton")
    torch._dynamo.reset()
    try:
        run = torch.compile(neuron, backend="aot_eager", fullgraph=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the "traced again" warning of each recompile
            for value in (1.0, 0.3, 0.8):
                HIST.append(value)
                neuron.reset()
                with torch.no_grad():
                    got = run(x)
                torch.testing.assert_close(got, loop_output(last_in_history, x))
    finally:
        torch._dynamo.reset()


def last_weight(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - WEIGHTS[-1]))
    return s, h * (1.0 - s)


def test_a_tensor_in_a_deque_is_lifted_and_a_new_one_followed() -> None:
    w = torch.tensor(1.0, device=pick_device(), requires_grad=True)
    WEIGHTS.clear()
    WEIGHTS.append(w)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(7)) * 3).to(pick_device())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # lifted: no fallback warning
            neuron = FlexSN(last_weight, 1, 1, 1, step_mode="m", backend="triton")
            assert neuron.uses_kernels(x)
            for got, want in zip(loss_and_grad(neuron, x, [w]), loop_loss_and_grad(last_weight, x, [w])):
                torch.testing.assert_close(got, want)
        w2 = torch.tensor(0.3, device=pick_device(), requires_grad=True)
        WEIGHTS.append(w2)
        neuron.reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got_after = loss_and_grad(neuron, x, [w2])
        for got, want in zip(got_after, loop_loss_and_grad(last_weight, x, [w2])):
            torch.testing.assert_close(got, want)
        assert any("len(global WEIGHTS) (1 -> 2)" in str(m.message) for m in caught), [str(m.message) for m in caught]
    finally:
        WEIGHTS.clear()
