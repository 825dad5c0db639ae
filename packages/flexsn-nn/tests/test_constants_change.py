"""``FlexSN`` follows a number its core reads from outside (a global threshold) when it changes, on every backend."""

from __future__ import annotations

import functools
import re
import warnings
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np
import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_runtime import compile_time
from flexsn_runtime.compile_time import guarded_by_dynamo
from flexsn_trace import ScanContract, reference_scan
from nn_reference import assert_changes_followed, compiled_twice_then_another_shape, loss_and_grad, pick_device, traced_numbers

V_TH = 1.0


def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= V_TH).to(x.dtype)
    return s, v * (1.0 - s)


@pytest.mark.parametrize("backend", ["triton", "inductor", "hop"])
def test_a_changed_global_threshold_is_followed(backend: str) -> None:
    global V_TH
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(0)) * 3
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend=backend)
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    try:
        for value in (1.0, 0.2):
            V_TH = value
            neuron.reset()
            reference.reset()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the retrace says so once; test_constants_retrace checks that
                out = neuron(x)
            torch.testing.assert_close(out, reference(x))
    finally:
        V_TH = 1.0


CFG = SimpleNamespace(neuron={"v_threshold": 1.0})


def config_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= CFG.neuron["v_threshold"]).to(x.dtype)
    return s, v * (1.0 - s)


@pytest.mark.parametrize("backend", ["triton", "hop"])
def test_a_changed_threshold_in_a_config_object_is_followed(backend: str) -> None:
    """``cfg.neuron["v_threshold"] = 0.2`` after construction (an argparse-built config): the kernels follow it."""
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(1)) * 3
    neuron = FlexSN(config_core, 1, 1, 1, step_mode="m", backend=backend)
    reference = FlexSN(config_core, 1, 1, 1, step_mode="m", backend="torch")
    try:
        outs = []
        for value in (1.0, 0.2):
            CFG.neuron["v_threshold"] = value
            neuron.reset()
            reference.reset()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = neuron(x)
            torch.testing.assert_close(out, reference(x))
            outs.append(out)
            if value != 1.0 and backend == "triton":
                assert any("global CFG.neuron['v_threshold'] (1.0 -> 0.2)" in str(w.message) for w in caught)
        assert not torch.equal(outs[0], outs[1])
    finally:
        CFG.neuron["v_threshold"] = 1.0


def smooth_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``core`` with a sigmoid in place of the step, so that its output has a gradient."""
    v = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (v - V_TH))
    return s, v * (1.0 - s)


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_a_compiled_call_follows_a_number_changed_since_it_was_compiled(train: bool) -> None:
    """Under torch.compile the numbers are Dynamo guards: ``V_TH = 0.2`` compiles again and traces the kernels again
    (one warning naming it), so the next compiled call gives the new value's result, never the old kernels'.

    A backward of a forward that ran before the change still runs (it must match that forward).
    """
    global V_TH
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(3)) * 3).to(pick_device())  # fused: CUDA, or CPU interpreted
    step = smooth_core if train else core
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    reference = FlexSN(step, 1, 1, 1, step_mode="m", backend="torch")
    torch._dynamo.reset()
    compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)

    def call(module: torch.nn.Module) -> tuple[torch.Tensor, ...]:
        module.reset()  # type: ignore[operator]
        if train:
            return loss_and_grad(module, x)
        with torch.no_grad():
            return (module(x),)

    try:
        for got, want in zip(call(compiled), call(reference)):
            torch.testing.assert_close(got, want)
        if train:  # a graph kept from before the change: its backward runs with the forward's kernels
            xg = x.clone().requires_grad_()
            neuron.reset()
            out = compiled(xg)
            V_TH = 0.2
            out.sum().backward()
            assert xg.grad is not None
        V_TH = 0.2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            after = call(compiled)
        for got, want in zip(after, call(reference)):
            torch.testing.assert_close(got, want)
        assert any("global V_TH (1.0 -> 0.2) changed since the kernels were traced" in str(w.message) for w in caught)
        assert traced_numbers(neuron.kernel.constants) == [pytest.approx(0.2)]
    finally:
        V_TH = 1.0
        torch._dynamo.reset()


def test_an_exported_program_refuses_to_run_with_a_changed_number() -> None:
    """``torch.export`` keeps the handle it traced, without guards: its forward op raises naming the number rather
    than compute with the old one; the module itself, called again, follows the change."""
    global V_TH
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(8)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sn = neuron

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            self.sn.reset()
            return self.sn(t)  # type: ignore[no-any-return]

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # export: "a tensor attribute was assigned" (the neuron's state)
            program = torch.export.export(Wrapped(), (x,)).module()
        torch.testing.assert_close(program(x), reference(x))
        V_TH = 0.2
        with pytest.raises(RuntimeError, match=r"global V_TH \(1.0 -> 0.2\) changed since these kernels were traced"):
            program(x)
        reference.reset()
        neuron.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.testing.assert_close(neuron(x), reference(x))
    finally:
        V_TH = 1.0
        torch._dynamo.reset()


def _lif_with(x: torch.Tensor, v: torch.Tensor, threshold: float) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= threshold).to(x.dtype)
    return s, v * (1.0 - s)


class _Thresholds:
    """A class attribute (``K.thr``) and an object's attribute (``self.thr``)."""

    thr = 1.0

    def __init__(self) -> None:
        self.own = 1.0

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _lif_with(x, v, self.own)


class _ClassThreshold:
    """Reads ``self.thr``, an attribute of its class body (before: never watched, a silent stale result)."""

    thr = 1.0

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _lif_with(x, v, self.thr)


class _Firing:
    """A user object held by a global: its method reads the object's own threshold."""

    def __init__(self) -> None:
        self.thr = 1.0

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _lif_with(x, v, self.thr)


FIRING = _Firing()


def firing_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reaches its threshold only through a global object's method (before: never watched, a silent stale result)."""
    return FIRING.step(x, v)


def _place(kind: str) -> tuple[Any, Callable[[float], None]]:
    """A core reading its threshold from one kind of place, and how to set it there."""
    if kind == "closure":
        thr = 1.0

        def closure_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return _lif_with(x, v, thr)

        def set_closure(value: float) -> None:
            nonlocal thr
            thr = value

        return closure_core, set_closure
    if kind == "default":
        def default_core(x: torch.Tensor, v: torch.Tensor, thr: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
            return _lif_with(x, v, thr)

        return default_core, lambda value: setattr(default_core, "__defaults__", (value,))
    if kind == "keyword-only default":
        def kw_core(x: torch.Tensor, v: torch.Tensor, *, thr: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
            return _lif_with(x, v, thr)

        return kw_core, lambda value: kw_core.__kwdefaults__.__setitem__("thr", value)  # type: ignore[union-attr]
    if kind == "partial keyword":
        partial_core = functools.partial(_lif_with, threshold=1.0)
        return partial_core, lambda value: partial_core.keywords.__setitem__("threshold", value)
    if kind == "object attribute":
        obj = _Thresholds()
        return obj, lambda value: setattr(obj, "own", value)
    if kind == "class attribute":
        def class_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return _lif_with(x, v, _Thresholds.thr)

        return class_core, lambda value: setattr(_Thresholds, "thr", value)
    if kind == "class attribute read through self":
        return _ClassThreshold(), lambda value: setattr(_ClassThreshold, "thr", value)
    if kind == "a global object's method":
        return firing_core, lambda value: setattr(FIRING, "thr", value)
    if kind == "helper's global":
        return helper_core, lambda value: globals().__setitem__("HELPER_TH", value)
    if kind == "a global object's property":
        return property_core, lambda value: setattr(SETTINGS, "_thr", value)
    if kind == "config three dicts deep":
        return deep_core, lambda value: DEEP["neurons"]["lif"].__setitem__("v_threshold", value)
    if kind == "a global partial's keyword":
        return partial_held_core, lambda value: FIRE.keywords.__setitem__("threshold", value)
    if kind == "a global partial's function's global":
        return partial_global_core, lambda value: globals().__setitem__("PARTIAL_TH", value)
    if kind == "a NumPy float64 global":
        return numpy_core, lambda value: globals().__setitem__("NP_TH", np.float64(value))
    if kind == "a NumPy float32 in a config":
        return numpy_config_core, lambda value: NP_CFG.__setitem__("thr", np.float32(value))
    if kind == "a NumPy array's element":
        return array_core, lambda value: NP_ARRAY.__setitem__(0, value)
    if kind == "a set of numbers":
        return set_core, lambda value: (LEVELS.clear(), LEVELS.add(value))  # type: ignore[func-returns-value]
    if kind == "a dict item under a tuple key":
        return tuple_key_core, lambda value: BY_PAIR.__setitem__(("lif", "thr"), value)
    assert kind == "global config"
    return config_core, lambda value: CFG.neuron.__setitem__("v_threshold", value)


HELPER_TH = 1.0


def _fire(v: torch.Tensor) -> torch.Tensor:
    return (v >= HELPER_TH).to(v.dtype)


def helper_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads its threshold only through the function it calls (before: never watched, a silent stale result)."""
    v = v + (x - v) / 2.0
    s = _fire(v)
    return s, v * (1.0 - s)


class _Settings:
    """Its threshold behind a property (before: the getter's code was not searched, a silent stale result)."""

    def __init__(self) -> None:
        self._thr = 1.0

    @property
    def thr(self) -> float:
        return self._thr


SETTINGS = _Settings()


def property_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif_with(x, v, SETTINGS.thr)


DEEP = {"neurons": {"lif": {"v_threshold": 1.0, "tau": 2.0}}}


def deep_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads its threshold three dicts deep (before: past the search's depth, a silent stale result)."""
    return _lif_with(x, v, DEEP["neurons"]["lif"]["v_threshold"])


FIRE = functools.partial(_lif_with, threshold=1.0)


def partial_held_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Calls a global ``functools.partial`` binding its threshold (before: never watched, a silent stale result)."""
    return FIRE(x, v)


PARTIAL_TH = 1.0


def _lif_global(x: torch.Tensor, v: torch.Tensor, reset: str) -> tuple[torch.Tensor, torch.Tensor]:
    assert reset == "hard"
    return _lif_with(x, v, PARTIAL_TH)


LIF_GAIN = functools.partial(_lif_global, reset="hard")


def partial_global_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Calls a global partial whose function reads a global (before: never watched, a silent stale result)."""
    return LIF_GAIN(x, v)


NP_TH = np.float64(1.0)
NP_CFG = {"thr": np.float32(1.0)}


def numpy_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads a NumPy scalar (what ``np.exp(-1 / tau)`` gives; before: only exact Python numbers were watched)."""
    return _lif_with(x, v, NP_TH)  # type: ignore[arg-type]


def numpy_config_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif_with(x, v, NP_CFG["thr"])  # type: ignore[arg-type]


NP_ARRAY = np.array([1.0, 2.0])
BY_PAIR = {("lif", "thr"): 1.0}
LEVELS = {1.0}


def set_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads the largest of a set of numbers (before: a set was not searched, a silent stale result)."""
    return _lif_with(x, v, max(LEVELS))


def array_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads an element of a NumPy array, changed in place (before: arrays were not watched, a silent stale result)."""
    return _lif_with(x, v, float(NP_ARRAY[0]))


def tuple_key_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Reads a dict item under a tuple key (before: only str and int keys were followed, a silent stale result)."""
    return _lif_with(x, v, BY_PAIR[("lif", "thr")])


KINDS = ["closure", "default", "keyword-only default", "partial keyword", "object attribute", "class attribute",
         "class attribute read through self", "global config", "helper's global", "a global object's method",
         "config three dicts deep", "a global partial's keyword", "a global partial's function's global",
         "a global object's property", "a NumPy float64 global", "a NumPy float32 in a config", "a NumPy array's element",
         "a dict item under a tuple key", "a set of numbers"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_watched_place_is_followed_eagerly(kind: str) -> None:
    """A change at each kind of place traces the kernels again, with one warning naming the place."""
    step, set_threshold = _place(kind)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(14)) * 3).to(pick_device())
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    try:
        assert_changes_followed(neuron, neuron, step, x, (1.0, 0.2), set_threshold, kind)
    finally:
        set_threshold(1.0)


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_watched_place_is_guarded_under_compile(kind: str) -> None:
    """Each place a number is watched in becomes a Dynamo guard (each reader is code Dynamo traces on the torch
    versions we run): a change compiles again and the result follows it, under ``fullgraph=True``."""
    step, set_threshold = _place(kind)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(11)) * 3).to(pick_device())
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    # the threshold, beside flags and code the core reads (LIF_GAIN's reset="hard", _lif_with), which it leaves alone
    assert len(traced_numbers(neuron.kernel.constants)) == 1
    torch._dynamo.reset()
    compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)
    # torch 2.11: raises, never a stale result
    unguarded = not all(guarded_by_dynamo(c.value, c.in_class) for c in neuron.kernel.constants.items)
    try:
        for value in (1.0, 0.2):
            set_threshold(value)
            neuron.reset()
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the retrace says so once
                try:
                    got = compiled(x)
                except RuntimeError as e:  # unguarded: the stale graph refuses to run, naming the place
                    assert unguarded and value != 1.0 and re.search(
                        r"(\.thr|\['thr'\]) \((np\.float32\()?1\.0\)? -> (np\.float32\()?0\.2\)?\) changed since"
                        r"|NP_ARRAY \(\[1\. 2\.\] -> \[0\.2 2\. \]\) changed since"
                        r"|LEVELS \(frozenset\(\{1\.0\}\) -> frozenset\(\{0\.2\}\)\) changed since", str(e)), e
                    return
                want, _ = reference_scan(step, ScanContract(1, 1, 1, (x,), ()))
            torch.testing.assert_close(got, want, msg=lambda m: f"{kind} = {value}: {m}")
        assert traced_numbers(neuron.kernel.constants) == [pytest.approx(0.2)]
    finally:
        set_threshold(1.0)
        torch._dynamo.reset()


@pytest.mark.parametrize("make", ["LIFNode", "ParametricLIFNode", "LearnableThresholdLIFNode"])
def test_a_neurons_threshold_is_settable_as_in_spikingjelly(make: str) -> None:
    """``node.v_threshold = 0.5`` (SpikingJelly's attribute): the next call gives what a node built with 0.5 gives,
    forward and dL/dx; a bad value is refused with SpikingJelly's argument name."""
    import flexsn_nn

    cls = getattr(flexsn_nn, make)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(12)) * 2).to(pick_device())
    learned = make == "LearnableThresholdLIFNode"  # its threshold is a parameter: setting fills it
    node = cls(step_mode="m").to(x.device)
    fresh = cls(step_mode="m", **{"init_threshold" if learned else "v_threshold": 0.5}).to(x.device)
    node(x)
    node.reset()
    node.v_threshold = 0.5
    assert bool((node.v_threshold == 0.5).all()) if learned else node.v_threshold == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the retrace says so once
        got, grad = loss_and_grad(node, x)
    want, want_grad = loss_and_grad(fresh, x)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(grad, want_grad)
    with pytest.raises(TypeError, match="v_threshold must be a Python float"):
        node.v_threshold = torch.tensor(0.5)
    with pytest.raises(ValueError, match="v_threshold must be finite"):
        node.v_threshold = float("nan")


def test_a_class_attribute_read_under_a_torch_that_does_not_guard_it_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch 2.11's Dynamo reads ``K.thr`` without a guard: compiling such a core says so once, naming the place."""
    monkeypatch.setattr(compile_time, "GUARDS_CLASS_ATTRIBUTES", False)
    step, _ = _place("class attribute")
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(13)).to(pick_device())
    caught = compiled_twice_then_another_shape(neuron, x)  # the second shape: compiled again, told already
    told = [str(w.message) for w in caught if "Dynamo does not guard" in str(w.message)]
    assert len(told) == 1 and "global _Thresholds.thr" in told[0], told
