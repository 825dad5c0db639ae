"""``find_constants``: the numbers a core reads from outside its arguments, and which of them changed."""

from __future__ import annotations

import copy
import functools
import math
import operator
import sys
import types
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
from torch import nn

from flexsn_trace import find_constants
from flexsn_trace.kinds import is_code

THRESH = 1.0
NOT_READ = 3.0


def _number_names(consts: Any) -> list[str]:
    """The names of the watched places that hold numbers, not code (a helper function a global names is watched too)."""
    return [c.name for c in consts.items if not is_code(c.value)]


def global_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return (v >= THRESH).to(x.dtype), v + x


def test_a_global_read_by_the_core_is_watched(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    consts = find_constants(global_core)
    assert [c.name for c in consts.items] == ["global THRESH"] and consts.changed() == []
    monkeypatch.setitem(global_core.__globals__, "NOT_READ", 4.0)
    assert consts.changed() == []
    monkeypatch.setitem(global_core.__globals__, "THRESH", 0.5)
    assert consts.changed() == ["global THRESH (1.0 -> 0.5)"]
    monkeypatch.delitem(global_core.__globals__, "THRESH")
    assert consts.changed() == ["global THRESH (1.0 -> deleted)"]


def test_closure_numbers_and_their_changes() -> None:
    tau, flag, name = 2.0, True, "not a number"

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + x / tau
        return (v >= 1.0).to(x.dtype) if flag else v, v if name else v

    consts = find_constants(core)
    # a str is a flag the core may branch on (``if name``): watched as the numbers are
    assert sorted(c.name for c in consts.items) == ["closure flag", "closure name", "closure tau"]
    tau = 2  # equal: traces alike
    assert consts.changed() == []
    tau = 3.0
    assert consts.changed() == ["closure tau (2.0 -> 3.0)"]
    tau = 2.0
    assert consts.changed() == []
    flag = False
    assert consts.changed() == ["closure flag (True -> False)"]
    flag, name = True, ""
    assert consts.changed() == ["closure name ('not a number' -> '')"]


def test_a_nan_never_reassigned_is_unchanged() -> None:
    level = math.nan

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x + level, v

    assert find_constants(core).changed() == []


class Base:
    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return v + (x - v) / self.tau  # type: ignore[attr-defined]


class ObjectCore(Base):
    def __init__(self) -> None:
        self.tau, self.v_threshold, self.unused = 2.0, 1.0, 5.0

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = self.charge(x, v)
        return (v >= self.v_threshold).to(x.dtype), v


class ModuleCore(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.v_threshold = 1.0

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (v >= self.v_threshold).to(x.dtype), v + x


def test_attributes_the_objects_methods_read_are_watched() -> None:
    core = ObjectCore()
    consts = find_constants(core)
    # base-class methods count; attributes no method reads do not
    assert sorted(_number_names(consts)) == ["self.tau", "self.v_threshold"]
    core.unused = 6.0
    assert consts.changed() == []
    core.tau = 4.0
    assert consts.changed() == ["self.tau (2.0 -> 4.0)"]
    bound = find_constants(core.__call__)
    assert sorted(_number_names(bound)) == ["self.tau", "self.v_threshold"]


def test_a_module_core_watches_what_forward_reads_not_its_training_flag() -> None:
    core = ModuleCore()
    consts = find_constants(core)
    assert _number_names(consts) == ["self.v_threshold"]
    core.eval()
    assert consts.changed() == []
    core.v_threshold = 0.5
    assert consts.changed() == ["self.v_threshold (1.0 -> 0.5)"]


class ClassBodyCore(nn.Module):
    """Numbers of its class body read as ``self.<name>``; a property and a method are code, not numbers."""

    v_threshold = 1.0
    decay = 0.5

    @property
    def gain(self) -> float:
        return 2.0

    def scale(self, v: torch.Tensor) -> torch.Tensor:
        return v * self.gain

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = self.scale(v + (x - v) * self.decay)
        return (v >= self.v_threshold).to(x.dtype), v


def test_class_body_numbers_read_through_self_are_watched() -> None:
    """Before: not watched, so ``ClassBodyCore.v_threshold = 0.5`` left the kernels' 1.0 without a word."""
    core = ClassBodyCore()
    consts = find_constants(core)
    assert _number_names(consts) == ["self.decay", "self.v_threshold"]
    assert all(c.in_class for c in consts.items if not is_code(c.value))  # some Dynamo versions do not guard them
    # its methods are code the trace inlines, read from the class (ClassBodyCore.scale = other is a change)
    assert [c.name for c in consts.items if is_code(c.value)] == ["ClassBodyCore.forward", "ClassBodyCore.scale"]
    try:
        ClassBodyCore.v_threshold = 0.5
        assert consts.changed() == ["self.v_threshold (1.0 -> 0.5)"]
        core.v_threshold = 1.0  # the object's own attribute now shadows the class's: read as Python reads it
        assert consts.changed() == []
    finally:
        ClassBodyCore.v_threshold = 1.0


def test_other_callables_have_none() -> None:
    assert len(find_constants(torch.sigmoid)) == 0


def test_default_numbers_and_their_changes() -> None:
    def core(x: torch.Tensor, v: torch.Tensor, tau: float = 2.0, *, reset: float = 0.0, name: str = "x") -> tuple[torch.Tensor, torch.Tensor]:
        v = v + x / tau
        return (v >= 1.0).to(x.dtype), v * 0.0 + reset

    consts = find_constants(core)
    # the str default too: a flag the core could branch on
    assert [c.name for c in consts.items] == ["default tau", "default reset", "default name"] and consts.changed() == []
    core.__defaults__ = (4.0,)
    assert consts.changed() == ["default tau (2.0 -> 4.0)"]
    core.__defaults__ = (2.0,)
    core.__kwdefaults__ = {"reset": -1.0, "name": "x"}
    assert consts.changed() == ["default reset (0.0 -> -1.0)"]
    core.__defaults__ = None
    assert consts.changed() == ["default tau (2.0 -> deleted)", "default reset (0.0 -> -1.0)"]


CFG = SimpleNamespace(neuron=SimpleNamespace(v_threshold=1.0, unread=3.0), tau=2.0)
LIMITS = {"v_reset": 0.0, "scale": [1.0, 1.0]}


class Thresholds:
    v_th = 1.0


def test_numbers_held_by_containers_the_core_reads_are_watched() -> None:
    """``cfg.neuron.v_threshold``, ``LIMITS["scale"][1]``, ``Thresholds.v_th``: each a literal of the kernels."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + x / CFG.tau * LIMITS["scale"][1]
        s = (v >= CFG.neuron.v_threshold + Thresholds.v_th).to(x.dtype)
        return s, v * (1.0 - s) + LIMITS["v_reset"]

    consts = find_constants(core)
    names = [c.name for c in consts.items]
    assert "global CFG.neuron.v_threshold" in names and "global CFG.neuron.unread" not in names  # only names the code loads
    assert {"global CFG.tau", "global LIMITS['scale'][1]", "global LIMITS['v_reset']", "global Thresholds.v_th"} <= set(names)
    assert consts.changed() == []
    try:
        CFG.neuron.v_threshold = 0.5
        LIMITS["scale"][1] = 2.0
        Thresholds.v_th = 0.0
        assert consts.changed() == [
            "global CFG.neuron.v_threshold (1.0 -> 0.5)", "global LIMITS['scale'][1] (1.0 -> 2.0)", "global Thresholds.v_th (1.0 -> 0.0)",
        ]
        LIMITS["scale"] = []  # gone: the place reads nothing now
        assert "global LIMITS['scale'][1] (1.0 -> deleted)" in consts.changed()
    finally:
        CFG.neuron.v_threshold, LIMITS["scale"], Thresholds.v_th = 1.0, [1.0, 1.0], 1.0


def test_a_partials_numbers_are_watched() -> None:
    def core(x: torch.Tensor, v: torch.Tensor, tau: float, *, v_th: float) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + x / tau
        return (v >= v_th).to(x.dtype), v

    bound = functools.partial(core, v_th=1.0)
    consts = find_constants(functools.partial(bound, tau=2.0))
    assert sorted(c.name for c in consts.items) == ["partial keyword tau", "partial keyword v_th"]
    bound.keywords["v_th"] = 0.5  # the outer partial flattened the inner one: its own keywords are what it calls with
    assert consts.changed() == []
    outer = functools.partial(bound, tau=2.0)
    consts = find_constants(outer)
    outer.keywords["tau"] = 4.0
    assert consts.changed() == ["partial keyword tau (2.0 -> 4.0)"]


def test_rebound_watches_a_copys_places_against_the_traced_values() -> None:
    """A deep copy of a core's object: its own places, checked against what the shared kernels were traced with."""
    core = ModuleCore()
    traced = find_constants(core)
    core.v_threshold = 0.5  # changed after the trace, before the copy
    twin = copy.deepcopy(core)
    rebound = traced.rebound(find_constants(twin))
    assert rebound is not None and rebound.changed() == ["self.v_threshold (1.0 -> 0.5)"]
    core.v_threshold = 1.0
    assert rebound.changed() == ["self.v_threshold (1.0 -> 0.5)"]  # the copy's place, not the original's
    twin.v_threshold = 1.0
    assert rebound.changed() == []
    assert traced.rebound(find_constants(lambda x, v: (x, v))) is None  # places that do not line up


DECAY = 0.5
SLOPE = 4.0
DEEP = 2.0


def _fire(v: torch.Tensor) -> torch.Tensor:
    return (v >= THRESH).to(v.dtype)


def _deeper(v: torch.Tensor) -> torch.Tensor:
    return v * DEEP


def _deep(v: torch.Tensor) -> torch.Tensor:
    return _deeper(v)


class _SpikeFn(torch.autograd.Function):
    """A user's surrogate spike whose backward reads a global slope."""

    @staticmethod
    def forward(ctx, v):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(v)
        return (v >= 0).to(v.dtype)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def]
        (v,) = ctx.saved_tensors
        return grad * SLOPE * torch.sigmoid(SLOPE * v) * (1 - torch.sigmoid(SLOPE * v))


class _Neuron:
    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return v + (x - v) * DECAY

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.charge(x, v)
        s = _fire(h) + _SpikeFn.apply(h - THRESH) * 0 + _deep(h) * 0
        return s, h * (1 - s)


def test_numbers_read_through_the_functions_a_core_calls_are_watched(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A method's global (``charge`` reads DECAY), an ``autograd.Function``'s backward's (SLOPE) and a helper's
    helper's (DEEP): each is watched, named by the function that reads it; THRESH, read by the core and by
    ``_fire``, once, as the core's."""
    consts = find_constants(_Neuron())
    # the functions it calls by global name are watched by identity (a rebinding traces again), the user's
    # autograd.Function class too (compared by the forward op under torch.compile: no Dynamo compares one), and the
    # methods of its class (_Neuron.charge = other)
    assert sorted(c.name for c in consts.items if is_code(c.value)) == [
        "_Neuron.__call__", "_Neuron.charge", "global _SpikeFn", "global _deep", "global _deeper (read by _deep)", "global _fire",
    ]
    names = _number_names(consts)
    assert sorted(names) == sorted([
        "global DECAY (read by _Neuron.charge)", "global THRESH",
        "global SLOPE (read by _SpikeFn.backward)", "global DEEP (read by _deeper)",
    ])
    for name, value in (("DECAY", 0.25), ("THRESH", 0.5), ("SLOPE", 2.0), ("DEEP", 3.0)):
        with monkeypatch.context() as m:
            m.setitem(_Neuron.charge.__globals__, name, value)
            assert len(consts.changed()) == 1 and consts.changed()[0].startswith(f"global {name} ")
    assert consts.changed() == []


def test_a_helpers_global_is_named_by_the_helper() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _fire(v), v + x

    assert _number_names(find_constants(core)) == ["global THRESH (read by _fire)"]


def test_library_functions_are_not_followed() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.sigmoid(x), math.exp(1.0) * v

    assert find_constants(core).items == ()


GAIN_SLOPE = 2.0


class _Firing:
    """A user object the core reaches by a global: its method reads the object's own number and a global."""

    def __init__(self) -> None:
        self.gain = 1.0

    def fire(self, v: torch.Tensor) -> torch.Tensor:
        return (v * self.gain * GAIN_SLOPE >= THRESH).to(v.dtype)


FIRING = _Firing()


def _scaled(v: torch.Tensor) -> torch.Tensor:
    return v * DEEP


SPIKE_CFG = SimpleNamespace(scale=_scaled)  # a function held by a namespace


def test_numbers_read_by_methods_of_objects_and_functions_in_containers_are_watched(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Before: ``FIRING.fire`` and ``SPIKE_CFG.scale`` were not followed, so ``FIRING.gain = 2.0`` or
    ``GAIN_SLOPE = 1.0`` left the kernels' values without a word."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = SPIKE_CFG.scale(v) + x
        return FIRING.fire(h), h

    consts = find_constants(core)
    assert sorted(_number_names(consts)) == sorted([
        "global FIRING.gain", "global GAIN_SLOPE (read by _Firing.fire)", "global THRESH (read by _Firing.fire)",
        "global DEEP (read by _scaled)",
    ])
    for name, value in (("GAIN_SLOPE", 1.0), ("DEEP", 3.0)):
        with monkeypatch.context() as m:
            m.setitem(core.__globals__, name, value)
            assert [c.split(" (")[0] for c in consts.changed()] == [f"global {name}"]
    with monkeypatch.context() as m:
        m.setattr(FIRING, "gain", 2.0)
        assert consts.changed() == ["global FIRING.gain (1.0 -> 2.0)"]
    assert consts.changed() == []


NP_DECAY = np.exp(-1.0 / 4.0)  # np.float64, what NumPy's functions return on Python floats
NP_SCALARS = {"thr": np.float32(1.0), "steps": np.int64(3), "spiking": np.bool_(True)}


def numpy_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v * NP_DECAY + x * NP_SCALARS["steps"]
    return (v >= NP_SCALARS["thr"]).to(x.dtype) * NP_SCALARS["spiking"], v


def test_numpy_scalars_are_watched_and_read_as_python_numbers(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Before: only exact ``bool`` / ``int`` / ``float`` were watched, so an ``np.exp(-1 / tau)`` decay was baked in
    and a later change to it was silently ignored."""
    consts = find_constants(numpy_core)
    before = NP_DECAY
    names = [c.name for c in consts.items]
    assert names == ["global NP_DECAY", "len(global NP_SCALARS)", "global NP_SCALARS['thr']", "global NP_SCALARS['steps']",
                     "global NP_SCALARS['spiking']"], names
    assert consts.changed() == []
    # what traced code reads is a Python number (Dynamo guards those; see flexsn_runtime.compile_time)
    assert [type(v) for v in consts.current()] == [float, int, float, int, bool]
    assert consts.current() == consts.traced
    monkeypatch.setitem(NP_SCALARS, "thr", np.float32(0.5))
    monkeypatch.setitem(numpy_core.__globals__, "NP_DECAY", np.exp(-1.0 / 2.0))
    assert consts.changed() == [
        f"global NP_DECAY ({before!r} -> {np.exp(-1.0 / 2.0)!r})", "global NP_SCALARS['thr'] (np.float32(1.0) -> np.float32(0.5))",
    ]


class Config:
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.v_th = 1.0
        self.tau = 2.0


CONFIG = Config({"thr": "v_th"})


def computed_name_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / getattr(CONFIG, "tau")  # a literal name: followed
    return (v >= getattr(CONFIG, CONFIG.names["thr"])).to(x.dtype), v


def test_a_read_under_a_computed_name_is_listed_with_its_place() -> None:
    """``getattr(cfg, key)`` reads a number the search cannot name: it is listed (the runtime warns), where before it
    was baked in without a word. A literal name is followed, and not listed."""
    consts = find_constants(computed_name_core)
    # the name it computes from is a str the search reaches: watched (a new name traces again), the read not
    assert [c.name for c in consts.items] == ["len(global CONFIG.names)", "global CONFIG.names['thr']", "global CONFIG.tau"]
    (read,) = consts.unwatched
    line = computed_name_core.__code__.co_firstlineno + 2
    assert read == f"getattr(CONFIG, CONFIG.names['thr']) in computed_name_core ({__file__}:{line})", read
    assert find_constants(global_core).unwatched == ()


def test_reads_by_computed_name_of_every_form_are_found() -> None:
    from flexsn_trace.unfollowed import unfollowed_reads

    key = "v_th"

    def forms(x: torch.Tensor) -> torch.Tensor:
        a = vars(CONFIG)[key] + CONFIG.__dict__[key]
        b = operator.attrgetter(key)(CONFIG) + getattr(CONFIG, key, 0.0)
        c = vars(CONFIG)["tau"] + getattr(CONFIG, "tau")  # literals: not listed
        from math import pi  # a number
        import math  # a global of this module too: followed
        import numpy.linalg as la  # library code: not listed
        from flexsn_trace.testing import Spike  # library code: not listed
        import user_settings  # a user module no global names
        return x * (a + b + c + globals()["NP_DECAY"] + pi + math.e + la.norm([1.0]) + user_settings.TH) + 0 * Spike.apply(x)

    user_settings = types.ModuleType("user_settings")
    user_settings.__file__ = "/home/me/project/user_settings.py"
    user_settings.TH = 1.0  # type: ignore[attr-defined]
    sys.modules["user_settings"] = user_settings
    try:
        found = unfollowed_reads([forms, forms])  # each function once
    finally:
        del sys.modules["user_settings"]
    assert [r.split(" in ")[0] for r in found] == [
        "vars(CONFIG)[key]", "CONFIG.__dict__[key]", "operator.attrgetter(key)", "getattr(CONFIG, key, 0.0)",
        "from math import pi", "import user_settings", "globals()['NP_DECAY']",
    ], found
    assert unfollowed_reads([eval("lambda x: getattr(x, 'a' + 'b')")]) == []  # no source to read: nothing said
    namespace: dict[str, Any] = {}
    exec(compile("def g(x):\n    return x\n", __file__, "exec"), namespace)  # this file's line 1 is not g's text
    assert unfollowed_reads([namespace["g"]]) == []
