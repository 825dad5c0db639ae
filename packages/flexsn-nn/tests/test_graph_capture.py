"""A call captured into a CUDA graph from states an uncaptured call left is told, once (flexsn_nn.graph_capture).

On the CPU the capture is stood in for (``graph_capture._capturing`` patched, outputs that say they are on
CUDA); ``test_cuda_graphs.py`` captures for real on a GPU.
"""

from __future__ import annotations

import copy
import gc
import pickle
import types
import warnings
import weakref
from typing import Iterator

import pytest
import torch

from flexsn_nn import LIFNode, graph_capture
from flexsn_nn.graph_capture import note_capture

ON_CUDA = [types.SimpleNamespace(is_cuda=True)]  # what a CUDA call's outputs say


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """``[False]``: set ``[0] = True`` to stand in for a capturing stream; forgets what was told."""
    state = [False]
    monkeypatch.setattr(graph_capture, "_capturing", lambda: state[0])
    monkeypatch.setattr(graph_capture, "_told", set())
    yield state


def _call(m: LIFNode, capturing: bool, capture: list[bool]) -> list[str]:
    """One call of ``m`` (CPU), then ``note_capture`` as a CUDA call made while ``capturing``; the warnings it gave."""
    started = m._states
    m(torch.rand(4, 3))
    capture[0] = capturing
    with warnings.catch_warnings(record=True) as told:
        warnings.simplefilter("always")
        note_capture(m, started, ON_CUDA)  # type: ignore[arg-type]
    capture[0] = False
    return [str(w.message) for w in told if issubclass(w.category, RuntimeWarning)]


def test_a_capture_from_a_warm_up_s_states_is_told_once(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    assert _call(m, False, capture) == []  # warm-up, no reset
    told = _call(m, True, capture)  # captured from the warm-up's states
    assert len(told) == 1 and "LIFNode" in told[0] and "reset()" in told[0] and "replay" in told[0]
    assert _call(m, False, capture) == [] and _call(m, True, capture) == []  # once per neuron class


def test_a_capture_after_reset_or_from_its_own_states_is_not_told(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    _call(m, False, capture)
    m.reset()
    assert _call(m, True, capture) == []  # the captured call starts from fresh states
    assert _call(m, True, capture) == []  # and the next captured call from the capture's own


def test_states_set_by_the_user_are_not_told(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    _call(m, False, capture)
    m.v = torch.zeros(3)  # the user's memory, to update between replays
    assert _call(m, True, capture) == []
    _call(m, False, capture)
    m.states = [torch.zeros(3)]
    assert _call(m, True, capture) == []


def test_cpu_calls_and_compiled_calls_are_not_checked(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    m(torch.rand(4, 3))
    started = m._states
    m(torch.rand(4, 3))  # left by an uncaptured CPU call: not recorded
    assert "_left_uncaptured" not in m.__dict__
    capture[0] = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        note_capture(m, started, [torch.rand(4, 3)])  # CPU outputs: nothing to capture


def test_copies_and_pickles_do_not_keep_the_reference(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    _call(m, False, capture)
    assert m.__dict__["_left_uncaptured"]() is m._states[0]
    assert copy.deepcopy(m).__dict__["_left_uncaptured"] is None
    assert "_left_uncaptured" not in pickle.loads(pickle.dumps(m)).__dict__


def test_reset_still_frees_the_states(capture: list[bool]) -> None:
    """What an uncaptured call left is held weakly: after reset() nothing keeps the last states alive."""
    m = LIFNode(backend="torch", step_mode="m")
    _call(m, False, capture)
    last = weakref.ref(m._states[0])
    m.reset()
    gc.collect()
    assert last() is None


@pytest.mark.parametrize("how", ["detach", "detach_net"])
def test_a_capture_after_detach_is_told(capture: list[bool], how: str) -> None:
    """``detach()`` keeps the warm-up's memory under new tensors: a capture from them is as stale (told before: no)."""
    from flexsn_nn.functional import detach_net

    m = LIFNode(backend="torch", step_mode="m")
    _call(m, False, capture)  # warm-up, no reset
    before = m._states[0]
    m.detach() if how == "detach" else detach_net(m)
    assert m._states[0] is not before and m._states[0].data_ptr() == before.data_ptr()
    told = _call(m, True, capture)
    assert len(told) == 1 and "LIFNode" in told[0]


def test_detach_of_fresh_or_user_states_is_not_told(capture: list[bool]) -> None:
    m = LIFNode(backend="torch", step_mode="m")
    m.detach()  # nothing held: a no-op
    _call(m, False, capture)
    m.reset()
    m.detach()
    assert _call(m, True, capture) == []  # the capture starts from fresh states
    m.v = torch.zeros(3)  # the user's memory
    m.detach()
    assert _call(m, True, capture) == []
