"""Watched places read from an anchor along a constant path (``flexsn_trace.anchors``).

``Constants.current`` is what a compiled call traces to guard the numbers a core reads; it reads each place as
``follow(anchor, steps)``. Each place of every root kind must read there exactly what its own ``read`` reads (a
difference would guard the wrong value), a place that is gone must read as gone, and a change must show.
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from flexsn_trace import find_constants
from flexsn_trace.anchors import MISSING, anchored, applied, read_place

THRESH = 1.0
CFG = {"neuron": {"thr": 0.5}, "mode": "soft"}
LUT = [0.01 * i for i in range(40)]  # longer than the search follows item by item: watched as one value
TABLE = np.array([1.0, 2.0])


def _helper(v: torch.Tensor) -> torch.Tensor:
    return v - THRESH * CFG["neuron"]["thr"]  # type: ignore[index]


class Fire(nn.Module):
    """A submodule the core calls (watched by its class) with a number of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.alpha = 4.0

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.alpha * v)


class Neuron:
    """A callable object: its attributes, paths below them, a class attribute, its class's method."""

    gain = 0.5

    def __init__(self) -> None:
        self.tau = 2.0
        self.cfg = SimpleNamespace(decay=0.9)
        self.fire = Fire()

    def scale(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.gain

    def __call__(self, x: torch.Tensor, v: torch.Tensor, *, k: float = 0.25) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * self.cfg.decay + self.scale(x) / self.tau + k
        return self.fire(h - 1.0), h


def _cores() -> dict[str, Any]:
    """Cores reading numbers through every kind of root: cell, global, default, keyword default, attribute, class
    attribute, method, partial argument and keyword, a watched-by-contents list and array, a helper's globals."""
    tau = 2.0
    box = {"v_reset": 0.0}

    def closure(x: torch.Tensor, v: torch.Tensor, decay: float = 0.5) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * decay + x / tau + LUT[3] + float(TABLE[0])
        s = (_helper(h) >= 0).to(x.dtype)
        return s, torch.where(s > 0, torch.full_like(h, box["v_reset"]), h)

    def with_args(a: float, x: torch.Tensor, v: torch.Tensor, *, b: float) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / a + b * math.pi
        return (h >= THRESH).to(x.dtype), h

    return {"closure": closure, "object": Neuron(), "partial": functools.partial(with_args, 3.0, b=0.1)}


def test_every_place_reads_from_its_anchor_what_its_read_reads() -> None:
    for name, core in _cores().items():
        constants = find_constants(core)
        assert constants.items, name
        anchors, places = constants._anchors, constants._places  # what Constants.current reads
        for c, (i, steps, then) in zip(constants.items, places):
            assert steps is not None, (name, c.name)  # each root kind here is taken apart, none called as a whole
            assert read_place(anchors[i], steps, then) == c.read() == c.value or c.name.startswith("len("), (name, c.name)
        assert constants.current() == tuple(c.read() if not hasattr(c.read(), "item") else c.read().item()
                                            for c in constants.items), name


def test_places_sharing_an_object_share_its_anchor() -> None:
    constants = find_constants(_cores()["object"])
    owners = {constants._anchors[i] for i, steps, _ in constants._places if steps and steps[0][0] == "attr"}
    assert len(constants._anchors) < len(constants.items)
    assert any(isinstance(a, Neuron) for a in owners)


def test_a_change_and_a_deletion_read_through_the_anchor() -> None:
    obj = Neuron()
    constants = find_constants(obj)
    names = [c.name for c in constants.items]
    before = constants.current()
    obj.cfg.decay = 0.8
    now = constants.current()
    changed = [n for n, a, b in zip(names, before, now) if a != b]
    assert changed == ["self.cfg.decay"], changed
    del obj.cfg.decay
    gone = [n for n, v in zip(names, constants.current()) if v is MISSING]
    assert gone == ["self.cfg.decay"], gone


def test_a_read_of_another_form_is_called_as_it_is() -> None:
    def read() -> float:
        return 1.5

    anchor, steps, then = anchored(read)
    assert anchor is read and steps is None and then is None
    assert read_place(anchor, steps, then) == 1.5

    def gone() -> float:
        raise AttributeError("deleted")

    assert read_place(gone) is MISSING


def test_a_wrapped_read_of_another_form_keeps_its_function() -> None:
    """A place compared by its length (class, contents) whose reader is not taken apart is read whole, ``len`` too."""
    items = [1.0, 2.0, 3.0]
    wrapped = functools.partial(applied, len, lambda: items)
    anchor, steps, then = anchored(wrapped)
    assert anchor is wrapped and steps is None and then is None
    assert read_place(anchor, steps, then) == 3


class Layer(nn.Module):
    """Tensors a core captures: its module's parameter and buffer, a submodule's parameter, a closure's tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.tensor(0.3))
        self.register_buffer("th", torch.ones(3))
        self.inner = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w) + self.inner.bias + GAIN
        return (h >= self.th).to(x.dtype), h


GAIN = torch.tensor(0.1)


def test_captured_tensors_are_read_from_their_anchors_as_their_reads_read_them() -> None:
    from flexsn_trace import find_captures

    layer = Layer()
    captures = find_captures(layer)
    assert set(captures.names()) == {"global GAIN", "self.w", "self.th", "self.inner.weight", "self.inner.bias"}
    assert all(steps is not None for _, steps, _ in captures._places)  # each taken apart, none called as a whole
    assert all(a is b for a, b in zip(captures.values(), [c.read() for c in captures.items]))
    with torch.no_grad():
        layer.w = nn.Parameter(torch.tensor(0.7))  # rebound: the next read finds the new tensor
    assert any(t is layer.w for t in captures.values())
    del layer.w
    with pytest.raises(AttributeError):  # a tensor gone from its place raises, as its read does
        captures.values()
