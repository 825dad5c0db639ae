"""``FlexSN`` follows a *flag* its core branches on (a ``str``, ``None``, an enum member) and the *code* it calls
(a function a global, a closure, a config or a partial holds) when either changes.

A trace keeps only the branch the core took (``if MODE == "hard"``) and inlines the functions it called
(``ACT(h)``), so both are as much constants of the kernels as a number is. Before these were watched, each case
here gave the old result with no warning; ``torch.compile`` guards the same reads. Also: a dict item under a key
a ``str`` global names (``CFG["a"]["b"][KEY]``) or a loop takes from a literal tuple, which the place search did
not follow below two dict steps; a method replaced on a class (``K.fire = other``: the core's own, a held object's,
a classmethod), and an item of a table larger than the search followed item by item. And a container's length: an
item appended to a list the core reads the last of (``SCHEDULE[-1]``), a key added to a dict the core reads with
a default (``OPTIONS["lif"].get("thr", 1.0)``), ``len(LEVELS)``.
"""

from __future__ import annotations

import enum
import functools
import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN, LIFNode
from flexsn_trace import ScanContract, reference_scan
from flexsn_trace.kinds import is_code, is_constant, is_flag
from nn_reference import loop_loss_and_grad, loss_and_grad, pick_device

MODE = "hard"


def mode_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Hard threshold 1.0, or a low threshold 0.3 when ``MODE`` is anything else."""
    h = v + (x - v) / 2.0
    if MODE == "hard":
        s = torch.sigmoid(4.0 * (h - 1.0))
    else:
        s = torch.sigmoid(4.0 * (h - 0.3))
    return s, h * (1.0 - s)


class Reset(enum.Enum):
    HARD = "hard"
    SOFT = "soft"


RESET = Reset.HARD


def reset_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A hard reset to 0, or a soft one (subtract the threshold), as the enum global says."""
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - 1.0))
    return s, (h * (1.0 - s) if RESET is Reset.HARD else h - s)


CFG = {"neurons": {"lif": {"thr": 1.0, "low": 0.3}}}
KEY = "thr"


def keyed_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads its threshold three dicts deep under a key a global names (not a literal the code spells)."""
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - CFG["neurons"]["lif"][KEY]))
    return s, h * (1.0 - s)


def fire_hard(h: torch.Tensor, threshold: float = 1.0) -> torch.Tensor:
    return torch.sigmoid(4.0 * (h - threshold))


def fire_low(h: torch.Tensor, threshold: float = 1.0) -> torch.Tensor:
    return torch.sigmoid(4.0 * (h - 0.3 * threshold))


ACT = torch.sigmoid
FIRE = fire_hard
FIRE_WITH = functools.partial(fire_hard, threshold=1.0)
FIRE_CFG = {"fire": fire_hard}


def act_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Calls a torch function a global holds (``ACT = torch.sigmoid``; a user swaps in ``torch.tanh``)."""
    h = v + (x - v) / 2.0
    s = ACT(4.0 * (h - 1.0))
    return s, h * (1.0 - s)


def fire_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = FIRE(h)
    return s, h * (1.0 - s)


def partial_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = FIRE_WITH(h)
    return s, h * (1.0 - s)


def config_fire_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = FIRE_CFG["fire"](h)
    return s, h * (1.0 - s)


def _closure_fire() -> tuple[Callable[..., Any], Callable[[Callable[..., Any]], None]]:
    fire = fire_hard

    def closure_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = fire(h)
        return s, h * (1.0 - s)

    def set_fire(f: Callable[..., Any]) -> None:
        nonlocal fire
        fire = f

    return closure_core, set_fire


class ActCore(torch.nn.Module):
    """A module core calling a submodule: ``self.act = nn.Tanh()`` swaps the function the trace inlined."""

    def __init__(self) -> None:
        super().__init__()
        self.act: torch.nn.Module = torch.nn.Sigmoid()

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = self.act(4.0 * (h - 1.0))
        return s, h * (1.0 - s)


class MethodCore:
    """A callable object whose trace inlines a method of its class (``MethodCore.fire = other`` swaps it)."""

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return fire_hard(h)

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = self.fire(h)
        return s, h * (1.0 - s)


class Firing:
    """A helper object a global holds, and a class whose classmethod a core calls."""

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return fire_hard(h)

    @classmethod
    def fire_of(cls, h: torch.Tensor) -> torch.Tensor:
        return fire_hard(h)


FIRING = Firing()


def held_method_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = FIRING.fire(h)
    return s, h * (1.0 - s)


def classmethod_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = Firing.fire_of(h)
    return s, h * (1.0 - s)


def _fire_low_method(self: Any, h: torch.Tensor) -> torch.Tensor:
    return fire_low(h)


#: a table larger than the search follows item by item: read under the key the code spells
TABLE = {f"layer{i}": 0.5 for i in range(100)} | {"thr": 1.0}


def table_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - TABLE["thr"]))
    return s, h * (1.0 - s)


def looped_key_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Three dicts deep under keys a loop takes from a literal tuple (one constant of the code, not a str each)."""
    h = v + (x - v) / 2.0
    threshold = 0.0
    for key in ("thr",):
        threshold = threshold + CFG["neurons"]["lif"][key]
    s = torch.sigmoid(4.0 * (h - threshold))
    return s, h * (1.0 - s)


#: a threshold schedule a training loop appends to; the core reads its last entry
SCHEDULE = [1.0]
#: options a user fills in later; the core reads one with a default
OPTIONS: dict[str, dict[str, float]] = {"lif": {}}
LEVELS = [1.0, 2.0]


def last_item_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - SCHEDULE[-1]))
    return s, h * (1.0 - s)


def default_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - OPTIONS["lif"].get("thr", 1.0)))
    return s, h * (1.0 - s)


def length_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (h - 0.5 * len(LEVELS)))
    return s, h * (1.0 - s)


def _set_global(name: str, value: Any) -> None:
    globals()[name] = value


def _case(kind: str) -> tuple[Callable[..., Any], Callable[[], None], Callable[[], None], str]:
    """A core, a change to make and how to undo it, and the place the warning names."""
    if kind == "a str global":
        return mode_core, lambda: _set_global("MODE", "low"), lambda: _set_global("MODE", "hard"), "global MODE ('hard' -> 'low')"
    if kind == "an enum global":
        return (
            reset_core, lambda: _set_global("RESET", Reset.SOFT), lambda: _set_global("RESET", Reset.HARD),
            "global RESET (<Reset.HARD: 'hard'> -> <Reset.SOFT: 'soft'>)",
        )
    if kind == "an item under a key a global names":
        lif = CFG["neurons"]["lif"]
        return (
            keyed_core, lambda: lif.__setitem__("thr", 0.3), lambda: lif.__setitem__("thr", 1.0),
            "global CFG['neurons']['lif']['thr'] (1.0 -> 0.3)",
        )
    if kind == "the global naming the key":
        return keyed_core, lambda: _set_global("KEY", "low"), lambda: _set_global("KEY", "thr"), "global KEY ('thr' -> 'low')"
    if kind == "a torch function a global holds":
        return act_core, lambda: _set_global("ACT", torch.tanh), lambda: _set_global("ACT", torch.sigmoid), "global ACT (torch.sigmoid -> torch.tanh)"
    name = f"{__name__}.fire_hard -> {__name__}.fire_low"
    if kind == "a user function a global holds":
        return fire_core, lambda: _set_global("FIRE", fire_low), lambda: _set_global("FIRE", fire_hard), f"global FIRE ({name})"
    if kind == "a global partial's function":
        return (
            partial_core, lambda: _set_global("FIRE_WITH", functools.partial(fire_low, threshold=1.0)),
            lambda: _set_global("FIRE_WITH", functools.partial(fire_hard, threshold=1.0)), f"global FIRE_WITH.func ({name})",
        )
    if kind == "a function in a config":
        return (
            config_fire_core, lambda: FIRE_CFG.__setitem__("fire", fire_low), lambda: FIRE_CFG.__setitem__("fire", fire_hard),
            f"global FIRE_CFG['fire'] ({name})",
        )
    if kind == "a submodule's class":
        module_core = ActCore()
        return (
            module_core, lambda: setattr(module_core, "act", torch.nn.Tanh()),
            lambda: setattr(module_core, "act", torch.nn.Sigmoid()),
            "type(self.act) (torch.nn.modules.activation.Sigmoid -> torch.nn.modules.activation.Tanh)",
        )
    if kind == "a method of the core's class":
        return (
            MethodCore(), lambda: setattr(MethodCore, "fire", _fire_low_method), lambda: setattr(MethodCore, "fire", fire_hard_method),
            f"MethodCore.fire ({__name__}.MethodCore.fire -> {__name__}._fire_low_method)",
        )
    if kind == "a method of a held object's class":
        return (
            held_method_core, lambda: setattr(Firing, "fire", _fire_low_method), lambda: setattr(Firing, "fire", firing_fire),
            f"global FIRING.fire ({__name__}.Firing.fire -> {__name__}._fire_low_method)",
        )
    if kind == "a classmethod":
        return (
            classmethod_core, lambda: setattr(Firing, "fire_of", classmethod(_fire_low_method)),
            lambda: setattr(Firing, "fire_of", classmethod(firing_fire_of)),
            f"global Firing.fire_of ({__name__}.Firing.fire_of -> {__name__}._fire_low_method)",
        )
    if kind == "an item of a large table":
        return table_core, lambda: TABLE.__setitem__("thr", 0.3), lambda: TABLE.__setitem__("thr", 1.0), "global TABLE['thr'] (1.0 -> 0.3)"
    if kind == "an item under a key a loop takes from a literal tuple":
        lif = CFG["neurons"]["lif"]
        return (
            looped_key_core, lambda: lif.__setitem__("thr", 0.3), lambda: lif.__setitem__("thr", 1.0),
            "global CFG['neurons']['lif']['thr'] (1.0 -> 0.3)",
        )
    if kind == "an item appended to a list":
        return last_item_core, lambda: SCHEDULE.append(0.3), SCHEDULE.pop, "len(global SCHEDULE) (1 -> 2)"
    if kind == "a key added to a dict":
        lif = OPTIONS["lif"]
        return default_core, lambda: lif.__setitem__("thr", 0.3), lif.clear, "len(global OPTIONS['lif']) (0 -> 1)"
    if kind == "a list's length":
        return length_core, lambda: LEVELS.append(3.0), LEVELS.pop, "len(global LEVELS) (2 -> 3)"
    assert kind == "a closure's function"
    closure_core, set_fire = _closure_fire()
    return closure_core, lambda: set_fire(fire_low), lambda: set_fire(fire_hard), f"closure fire ({name})"


KINDS = [
    "a str global", "an enum global", "an item under a key a global names", "the global naming the key",
    "a torch function a global holds", "a user function a global holds", "a global partial's function",
    "a function in a config", "a closure's function", "a submodule's class", "a method of the core's class",
    "a method of a held object's class", "a classmethod", "an item of a large table",
    "an item under a key a loop takes from a literal tuple", "an item appended to a list", "a key added to a dict",
    "a list's length",
]
fire_hard_method, firing_fire, firing_fire_of = MethodCore.fire, Firing.fire, Firing.__dict__["fire_of"].__func__



@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_changed_flag_is_followed(kind: str, compiled: bool) -> None:
    """Forward and dL/dx after the change equal the eager loop's with the new value; eagerly, one warning names the
    place and both values. Compiled (``fullgraph=True``), the change fails a Dynamo guard and compiles again."""
    core, change, undo, told = _case(kind)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(21)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    assert neuron.uses_kernels(x)
    torch._dynamo.reset()
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    try:
        before = loss_and_grad(run, x)
        for got, want in zip(before, loop_loss_and_grad(core, x)):
            torch.testing.assert_close(got, want)
        change()
        neuron.reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            after = loss_and_grad(run, x)
        want_after = loop_loss_and_grad(core, x)
        assert not torch.allclose(want_after[0], before[0])  # the change matters: a stale result would fail below
        for got, want in zip(after, want_after):
            torch.testing.assert_close(got, want)
        messages = [str(w.message) for w in caught]
        assert any(f"{told} changed since the kernels were traced" in m for m in messages), messages
    finally:
        undo()
        torch._dynamo.reset()


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_a_neuron_built_with_soft_reset_follows_a_hard_reset_set_later(compiled: bool) -> None:
    """``LIFNode(v_reset=None, step_mode="m")`` then ``node.v_reset = 0.0`` (SpikingJelly's switch from soft to hard reset): the next
    call resets hard, as a node built with ``v_reset=0.0`` does (before: the soft-reset kernels ran on, silently)."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(22)) * 3).to(pick_device())
    node, hard = LIFNode(v_reset=None, step_mode="m"), LIFNode(v_reset=0.0, step_mode="m")
    run = torch.compile(node, backend="aot_eager", fullgraph=True) if compiled else node
    torch._dynamo.reset()
    try:
        loss_and_grad(run, x)
        node.reset()
        node.v_reset = 0.0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = loss_and_grad(run, x)
        want = loss_and_grad(hard, x)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)
        assert any("self.v_reset (None -> 0.0) changed" in str(w.message) for w in caught)
    finally:
        torch._dynamo.reset()


_DEVICE = pick_device()
P = {"layers": {"lif": {"w": torch.nn.Parameter(torch.full((8,), 0.7, device=_DEVICE)), "other": torch.nn.Parameter(torch.ones(8, device=_DEVICE))}}}
W_KEY = "w"


def weighted_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * P["layers"]["lif"][W_KEY]
    s = torch.sigmoid(4.0 * (h - 1.0))
    return s, h * (1.0 - s)


def test_a_parameter_under_a_key_a_global_names_is_lifted_with_its_gradient() -> None:
    """``P["layers"]["lif"][W_KEY]``: the parameter runs fused as a static input, dL/dw equal to autograd through the
    eager loop (before: the search stopped above it, and the call fell back to the loop with a warning)."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(23)) * 3).to(pick_device())
    w = P["layers"]["lif"]["w"]
    with torch.no_grad():
        w.copy_(torch.linspace(0.3, 0.9, 8, device=w.device))
    neuron = FlexSN(weighted_core, 1, 1, 1, step_mode="m", backend="triton")
    assert neuron.uses_kernels(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback
        out = neuron(x)
    (got,) = torch.autograd.grad(out.sum(), w)
    want_out, _ = reference_scan(weighted_core, ScanContract(1, 1, 1, (x,), ()))
    (want,) = torch.autograd.grad(want_out.sum(), w)
    torch.testing.assert_close(out, want_out)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "value, flag",
    [("a", True), (b"a", True), (None, True), (Reset.HARD, True), (1.0, False), (True, False), ([1], False), (object(), False)],
)
def test_flags_are_str_bytes_none_and_enum_members(value: object, flag: bool) -> None:
    """What is watched as a flag, and that every number or flag is a constant of the kernels."""
    assert is_flag(value) is flag
    assert is_constant(value) is (flag or type(value) in (float, bool))


@pytest.mark.parametrize("value, code", [(fire_hard, True), (torch.sigmoid, True), (Reset, True), ("a".upper, True),
                                         (FIRE_WITH, False), (Reset.HARD, False), (torch.nn.Sigmoid(), False)])
def test_code_is_functions_builtins_methods_and_classes(value: object, code: bool) -> None:
    """What is watched by identity as code (a partial is followed into instead: its function, arguments, keywords)."""
    assert is_code(value) is code
