"""A core reading a number FlexSN cannot watch is told at construction: under a computed attribute name
(``getattr(cfg, key)``, in a ``def`` or a ``lambda``), below the search's depth, in a NumPy array too large to
compare at every call, in the process environment. Before these warnings a later change to it was silently ignored by the kernels."""

from __future__ import annotations

import configparser
import contextvars
import itertools
import logging
import os
import random
import threading
import warnings
from typing import Any

import numpy as np
import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from flexsn_trace.constants import MAX_ARRAY_ELEMENTS
from flexsn_trace.unfollowed import unfollowed_reads
from nn_reference import pick_device


class _Config:
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.v_th = 1.0


CFG = _Config({"thr": "v_th"})


def keyed_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= getattr(CFG, CFG.names["thr"])).to(x.dtype)
    return s, v * (1.0 - s)


def named_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= getattr(CFG, "v_th")).to(x.dtype)
    return s, v * (1.0 - s)


def test_a_number_read_under_a_computed_name_is_told_once_at_construction() -> None:
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(3)) * 3).to(pick_device())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(keyed_core, 1, 1, 1)
        neuron(x)
        neuron.reset()
        neuron(x)
    told = [str(w.message) for w in caught if "cannot follow" in str(w.message)]
    assert len(told) == 1, told
    assert "getattr(CFG, CFG.names['thr']) in keyed_core" in told[0] and "not followed" in told[0], told[0]
    # the kernels still compute what the loop does with the number as it is
    want, _ = reference_scan(keyed_core, ScanContract(1, 1, 1, (x,), ()))
    neuron.reset()
    torch.testing.assert_close(neuron(x), want)


def _after_a_change(core: Any, seed: int, change: Any, undo: Any) -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """Build ``core``'s neuron and call it, ``change()`` what it reads, call it again: every warning, that call's
    spikes and the loop's on the changed value (``undo()`` puts the value back)."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(seed)) * 3).to(pick_device())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(core, 1, 1, 1)
        neuron(x)
        try:
            change()
            neuron.reset()
            got = neuron(x)
            want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
        finally:
            undo()
    return [str(w.message) for w in caught], got, want


def test_a_literal_name_is_followed_and_not_told() -> None:
    told, got, want = _after_a_change(
        named_core, 4, lambda: setattr(CFG, "v_th", 0.3), lambda: setattr(CFG, "v_th", 1.0)
    )
    torch.testing.assert_close(got, want)
    assert not [t for t in told if "cannot follow" in t]
    assert [t for t in told if "CFG.v_th (1.0 -> 0.3) changed" in t]


def _told(core: Any, x: torch.Tensor) -> list[str]:
    """The "cannot follow" warnings building ``core``'s neuron and calling it twice gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(core, 1, 1, 1)
        neuron(x)
        neuron.reset()
        neuron(x)
    return [str(w.message) for w in caught if "cannot follow" in str(w.message)]


def test_a_lambda_core_reading_under_a_computed_name_is_told() -> None:
    """Before: only a ``def``'s text was read, so a lambda core's ``getattr(cfg, key)`` was silently stale."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(5)) * 3).to(pick_device())
    fire, plain = (lambda x, v: _lif(x, v, getattr(CFG, CFG.names["thr"]))), (lambda x, v: _lif(x, v, CFG.v_th))
    told = _told(fire, x)
    assert len(told) == 1 and "getattr(CFG, CFG.names['thr']) in " in told[0] and "<lambda>" in told[0], told
    assert unfollowed_reads([plain]) == []  # the other lambda on the line reads by name: told apart by positions


def _lif_of(x: torch.Tensor, v: torch.Tensor, v_th: float, names: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``_lif`` taking every attribute of ``CFG`` as keywords (``names`` is ``CFG.names``, unused)."""
    return _lif(x, v, v_th)


@pytest.mark.parametrize("spread", ["vars", "__dict__"])
def test_an_objects_attributes_spread_as_keywords_are_told(spread: str) -> None:
    """``step(x, v, **vars(cfg))`` reads every attribute of ``cfg`` and spells none: before, silently stale."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(7)) * 3).to(pick_device())
    core = (lambda x, v: _lif_of(x, v, **vars(CFG))) if spread == "vars" else (lambda x, v: _lif_of(x, v, **CFG.__dict__))
    told = _told(core, x)
    assert len(told) == 1 and ("**vars(CFG)" if spread == "vars" else "**CFG.__dict__") in told[0], told


DEEP = {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"v_th": 1.0}}}}}}}}}
BIG = np.ones(MAX_ARRAY_ELEMENTS + 1)


def test_a_number_below_the_search_depth_is_told() -> None:
    """Nine steps below a global (the search takes eight): before, silently stale; now told, naming the place."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(6)) * 3).to(pick_device())
    told = _told(lambda x, v: _lif(x, v, DEEP["a"]["b"]["c"]["d"]["e"]["f"]["g"]["h"]["v_th"]), x)
    assert len(told) == 1 and "global DEEP['a']['b']['c']['d']['e']['f']['g']['h'] (what it holds lies deeper" in told[0]


def test_a_numpy_array_too_large_to_compare_is_told() -> None:
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(7)) * 3).to(pick_device())
    told = _told(lambda x, v: _lif(x, v, float(BIG[0])), x)
    assert len(told) == 1 and f"global BIG (a NumPy array of {BIG.size} elements" in told[0], told
    small = np.array([1.0])
    assert _told(lambda x, v: _lif(x, v, float(small[0])), x) == []  # watched by its contents instead


LOCAL = threading.local()
LOCAL.v_th = 1.0
V_TH: "contextvars.ContextVar[float]" = contextvars.ContextVar("v_th", default=1.0)
INI = configparser.ConfigParser()
INI.read_dict({"lif": {"v_th": "1.0"}})
LOG = logging.getLogger("flexsn.test")
CALLS = itertools.count()


def logging_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    LOG.debug("a step")  # a call whose result is dropped brings no number
    return _lif(x, v, 1.0)


def test_a_number_held_by_a_standard_library_object_is_told() -> None:
    """The search does not look into a standard-library object other than its containers and namespaces: before,
    ``LOCAL.v_th``, ``V_TH.get()`` and a ``ConfigParser``'s values were baked into the kernels and a later change
    was silently ignored."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(9)) * 3).to(pick_device())
    for core, read in [
        (lambda x, v: _lif(x, v, LOCAL.v_th), "LOCAL.v_th in "),
        (lambda x, v: _lif(x, v, V_TH.get()), "V_TH.get() in "),
        (lambda x, v: _lif(x, v, float(INI["lif"]["v_th"])), "INI['lif'] in "),
        (lambda x, v: _lif(x, v, INI.getfloat("lif", "v_th")), "INI.getfloat('lif', 'v_th') in "),
        (lambda x, v: _lif(x, v, 1.0 + 0.0 * next(CALLS)), "next(CALLS) in "),
    ]:
        told = _told(core, x)
        assert len(told) == 1 and read in told[0], told
    assert unfollowed_reads([lambda x, v: _lif(x, v, threading.active_count())]) == []  # a module's function: a call
    assert unfollowed_reads([logging_core]) == []


def test_a_number_read_from_the_environment_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """``float(os.environ["TH"])`` in a core is baked into its kernels: before, a later change was silently ignored."""
    monkeypatch.setenv("FLEXSN_TEST_TH", "1.0")
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(8)) * 3).to(pick_device())
    for core, read in [
        (lambda x, v: _lif(x, v, float(os.environ["FLEXSN_TEST_TH"])), "os.environ['FLEXSN_TEST_TH']"),
        (lambda x, v: _lif(x, v, float(os.getenv("FLEXSN_TEST_TH", "1.0"))), "os.getenv('FLEXSN_TEST_TH', '1.0')"),
        (lambda x, v: _lif(x, v, float(os.environ.get("FLEXSN_TEST_TH", "1.0"))), "os.environ.get('FLEXSN_TEST_TH', '1.0')"),
    ]:
        told = _told(core, x)
        assert len(told) == 1 and f"{read} in " in told[0], told


def test_a_python_random_number_in_a_core_runs_the_loop_and_says_why() -> None:
    """A trace would bake one draw of ``random.random()`` into the kernels; the eager loop draws at every step."""
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(9)) * 3).to(pick_device())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(lambda x, v: _lif(x, v, 0.5 + random.random()), 1, 1, 1)
        neuron(x)
    assert neuron.kernel.handle is None
    assert any("draws a Python random number" in str(w.message) for w in caught), [str(w.message) for w in caught]


def _lif(x: torch.Tensor, v: torch.Tensor, v_th: float) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= v_th).to(x.dtype)
    return s, v * (1.0 - s)


class _Listed(torch.nn.Module):
    """A surrogate written as SpikingJelly writes its own (``SurrogateFunctionBase``): the parameters' names are kept
    in a tuple on the module and read back by ``getattr(self, k)``; ``forward`` spells none of them."""

    def __init__(self, **params: float) -> None:
        super().__init__()
        self._param_names = tuple(params)
        for k, value in params.items():
            setattr(self, k, value)

    @property
    def _params(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in self._param_names}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x * sum(self._params.values()))


#: the parameter's name is built at run time, so no code of the test spells it (Python folds "ga" + "in")
LISTED = _Listed(**{"".join(["ga", "in"]): 2.0})


def listed_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = LISTED(v - 1.0)
    return s, v * (1.0 - s)


def test_parameters_named_by_a_list_on_the_module_are_followed_and_not_told() -> None:
    """``getattr(self, k) for k in self._param_names`` (SpikingJelly's surrogate modules) reads attributes the search
    follows: no warning, and a later change traces the kernels again as the loop sees it. Before, a source checkout
    of SpikingJelly (its code searched as the user's) warned that such reads are not followed, and a parameter whose
    name no code spelled kept its traced value in the kernels."""
    name = LISTED._param_names[0]
    told, got, want = _after_a_change(
        listed_core, 5, lambda: setattr(LISTED, name, 7.0), lambda: setattr(LISTED, name, 2.0)
    )
    assert not [t for t in told if "cannot follow" in t], told
    assert any(f"LISTED.{name} (2.0 -> 7.0)" in t for t in told), told
    torch.testing.assert_close(got, want)


def test_a_name_added_to_the_list_traces_again() -> None:
    """The list of names is watched too: a parameter added to it later is read by the kernels traced again."""
    names = LISTED._param_names

    def add() -> None:
        LISTED.extra = 1.5
        LISTED._param_names = (*names, "extra")

    def remove() -> None:
        LISTED._param_names = names
        del LISTED.extra

    told, got, want = _after_a_change(listed_core, 6, add, remove)
    assert any("LISTED._param_names" in t and "tracing them again" in t for t in told), told
    torch.testing.assert_close(got, want)


def test_getattr_over_another_objects_list_is_still_told() -> None:
    """Only ``getattr(self, k)`` with ``k`` over an attribute of ``self`` is taken as followed: ``getattr(CFG, k)``
    for ``k`` over a list the search does not tie to ``CFG`` still is not."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + (x - v) / 2.0
        th = sum(getattr(CFG, k) for k in LISTED._param_names)
        return (v >= th).to(x.dtype), v

    assert any("getattr(CFG, k)" in r for r in unfollowed_reads([core]))


class _Picked(_Listed):
    """The name read is one item of the list, picked outside a loop over it: not a read the search ties to the list."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for k in self._param_names:  # a loop over the list elsewhere in the function does not make the read below one
            assert isinstance(k, str)
        k = self._param_names[-1]
        return torch.sigmoid(x * getattr(self, k))


def test_getattr_of_self_outside_a_loop_over_its_list_is_still_told() -> None:
    assert any("getattr(self, k) in _Picked.forward" in r for r in unfollowed_reads([_Picked.forward]))
    params = _Listed._params.fget  # type: ignore[attr-defined]
    assert not any("_Listed._params" in r for r in unfollowed_reads([params]))
