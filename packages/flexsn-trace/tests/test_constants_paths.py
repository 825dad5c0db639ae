"""``find_constants`` at depth: a number read past the helper calls searched is told, and numbers at attribute
paths below an object's attributes are read in one getter and their changes told. Split from ``test_constants.py``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import torch

from flexsn_trace import find_constants
from flexsn_trace.kinds import is_code


#: the number the deepest helper reads, in a container of its own (a module's globals would hold this file's
#: functions too, which a small enough dict's search lists as reachable)
DEEP_TH_HOLDER = {"DEEP_TH": 1.0}


def _chain(depth: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """``depth`` user functions, each calling the next by a global name; the last reads ``DEEP_TH_HOLDER``'s number."""
    namespace: dict[str, Any] = {"DEEP_TH_HOLDER": DEEP_TH_HOLDER}
    src = f"def f{depth}(v):\n    return (v >= DEEP_TH_HOLDER['DEEP_TH']).float()\n"
    for i in range(depth - 1, 0, -1):
        src += f"def f{i}(v):\n    return f{i + 1}(v)\n"
    exec(compile(src, "<chain>", "exec"), namespace)  # source-less on purpose: only the depth is under test here
    return namespace["f1"]  # type: ignore[no-any-return]


def test_a_helper_deeper_than_the_search_is_told() -> None:
    """Before: three calls deep, and a number read four calls deep was baked in without a word. Now six calls are
    searched, and a function called past them is listed as unfollowed."""
    from flexsn_trace.places import HELPER_DEPTH

    for depth, watched in ((HELPER_DEPTH, True), (HELPER_DEPTH + 1, False)):
        fire = _chain(depth)

        def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return fire(v), v + x

        consts = find_constants(core)
        assert bool(consts.unwatched) != watched, (depth, consts.unwatched)
        if not watched:
            assert consts.unwatched == (f"f{depth} (called through f{depth - 1}, past the calls searched)",)


class _Nested:
    """Numbers at attribute paths below the object's attributes (``self.cfg.neuron.thr``)."""

    def __init__(self) -> None:
        self.tau = 2.0
        self.cfg = SimpleNamespace(neuron=SimpleNamespace(thr=1.0), gain=0.5)

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + x / self.tau * self.cfg.gain
        return (v >= self.cfg.neuron.thr).to(x.dtype), v


def test_attribute_paths_below_the_objects_attributes_are_read_in_one_getter() -> None:
    """``self.cfg.neuron.thr`` is read with ``self.tau`` by one ``operator.attrgetter`` (one C call per check);
    a change at any step of the path (a number, an intermediate object replaced, one deleted) is still told."""
    core = _Nested()
    consts = find_constants(core)
    assert sorted(c.name for c in consts.items if not is_code(c.value)) == ["self.cfg.gain", "self.cfg.neuron.thr", "self.tau"]
    getters = [get for get, source, _ in consts._reads if source is core]
    assert len(getters) == 1 and "'cfg.neuron.thr'" in repr(getters[0]), consts._reads
    assert consts.changed() == []
    core.cfg.neuron.thr = 0.5
    assert consts.changed() == ["self.cfg.neuron.thr (1.0 -> 0.5)"]
    core.cfg.neuron = SimpleNamespace(thr=1.0)  # an equal new object: no change
    assert consts.changed() == []
    core.cfg = SimpleNamespace(neuron=SimpleNamespace(thr=1.0), gain=0.25)
    assert consts.changed() == ["self.cfg.gain (0.5 -> 0.25)"]
    del core.cfg.neuron
    assert sorted(consts.changed()) == ["self.cfg.gain (0.5 -> 0.25)", "self.cfg.neuron.thr (1.0 -> deleted)"]
    core.cfg = SimpleNamespace(neuron=SimpleNamespace(thr=1.0), gain=0.5)
    assert consts.changed() == []
