"""Items a core reads under keys the place search cannot know: each is told when the neuron is built, or followed.

Each core below reads a threshold from a dict deeper than the search follows under every key, under a key the
code computes or by a route the text check did not read: through a local bound to part of the config
(``d = CFG["a"]["b"]; d[f"{NAME}_thr"]``), with ``dict.get`` or ``.values()``, through what a helper returns
(``table()[...]``), or in a helper given the config as an argument; or reads every item of a list longer than the
search follows there (a loop, ``sum``), or a key or attribute absent now (``.get("v_low", 1.0)``, ``"v_low" in d``,
``hasattr``), which a later one would change. Before, each was baked into the kernels unwatched and a later change
left a stale result with no warning. Now the computed reads are named in the "cannot follow"
warning, and a helper's returned config indexed by literal keys is followed (a change traces again and matches the
eager loop). Reads the search does follow, and a tensor argument indexed by a computed int, are not told.
"""

from __future__ import annotations

import types
import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace.unfollowed import unfollowed_reads
from nn_reference import loop_output, pick_device

CFG: dict[str, Any] = {"neurons": {"lif": {"v_thr": 1.0}}}
NAME = "v"
BIG: dict[str, Any] = {"a": {"b": {"c": {"d": {"v_thr": 1.0}}}}}


def _fire(h: torch.Tensor, v_thr: Any) -> tuple[torch.Tensor, torch.Tensor]:
    s = torch.sigmoid(4.0 * (h - v_thr))
    return s, h * (1.0 - s)


def alias_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    d = CFG["neurons"]["lif"]
    return _fire(v + (x - v) / 2.0, d[f"{NAME}_thr"])


def alias_chain_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    d = CFG["neurons"]
    e = d["lif"]
    key = NAME + "_thr"
    return _fire(v + (x - v) / 2.0, e[key])


def get_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, CFG["neurons"]["lif"].get(f"{NAME}_thr", 1.0))


def values_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, sum(CFG["neurons"]["lif"].values()))


def table() -> dict[str, Any]:
    return BIG


def returned_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, table()["a"]["b"]["c"]["d"][f"{NAME}_thr"])


def pick(cfg: dict[str, Any], n: str) -> float:
    return cfg["neurons"]["lif"][f"{n}_thr"]  # type: ignore[no-any-return]


def argument_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, pick(CFG, NAME))


WEIGHTS: dict[str, Any] = {"a": {"b": {"ws": [0.1] * 12}}}
OPTS = types.SimpleNamespace(v_thr=1.0)


def iterated_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    total = 0.0
    for w in WEIGHTS["a"]["b"]["ws"]:  # 12 items three steps down: the search follows 8 there
        total = total + w
    return _fire(v + (x - v) / 2.0, total)


def summed_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, sum(w for w in WEIGHTS["a"]["b"]["ws"]))


def absent_key_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, CFG["neurons"]["lif"].get("v_low", 1.0))


def absent_in_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, 0.3 if "v_low" in CFG["neurons"]["lif"] else 1.0)


def absent_attribute_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _fire(v + (x - v) / 2.0, OPTS.v_low if hasattr(OPTS, "v_low") else 1.0)


#: (core, the read the warning names); before, ``CFG["neurons"]["lif"]["v_thr"] = 0.3`` (``BIG``'s for ``returned``)
#: after a first call left the kernels' 1.0 with no warning
TOLD: dict[str, tuple[Callable[..., Any], str]] = {
    "alias": (alias_core, "d[f'{NAME}_thr'] in alias_core"),
    "alias chain": (alias_chain_core, "e[key] in alias_chain_core"),
    "dict.get": (get_core, "CFG['neurons']['lif'].get(f'{NAME}_thr', 1.0) in get_core"),
    "values": (values_core, "CFG['neurons']['lif'].values() in values_core"),
    "returned": (returned_core, "table()['a']['b']['c']['d'][f'{NAME}_thr'] in returned_core"),
    "argument": (argument_core, "cfg['neurons']['lif'][f'{n}_thr'] in pick"),
    "iterated": (iterated_core, "for w in WEIGHTS['a']['b']['ws'] in iterated_core"),
    "summed": (summed_core, "(w for w in WEIGHTS['a']['b']['ws']) in summed_core"),
    "absent key": (absent_key_core, "CFG['neurons']['lif'].get('v_low', 1.0) in absent_key_core"),
    "absent key tested": (absent_in_core, "'v_low' in CFG['neurons']['lif'] in absent_in_core"),
    "absent attribute": (absent_attribute_core, "hasattr(OPTS, 'v_low') in absent_attribute_core"),
}


@pytest.fixture(autouse=True)
def _restore() -> Any:
    yield
    CFG["neurons"]["lif"]["v_thr"] = 1.0
    BIG["a"]["b"]["c"]["d"]["v_thr"] = 1.0


def _build(core: Callable[..., Any]) -> tuple[FlexSN, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    return neuron, [str(w.message) for w in caught]


@pytest.mark.parametrize("case", list(TOLD))
def test_a_read_the_search_cannot_follow_is_told_when_the_neuron_is_built(case: str) -> None:
    core, read = TOLD[case]
    _, messages = _build(core)
    told = [m for m in messages if "cannot follow" in m]
    assert len(told) == 1 and read in told[0] and "not followed" in told[0], messages


def test_a_helpers_returned_config_read_by_literal_keys_is_followed() -> None:
    """``table()["a"]["b"]["c"]["d"]["v_thr"]``: the keys are the core's, the dict the helper's global. Before, the
    helper's global was searched under the helper's names only, so the change below left the kernels' 1.0."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _fire(v + (x - v) / 2.0, table()["a"]["b"]["c"]["d"]["v_thr"])

    x = (torch.randn(5, 3, 8, generator=torch.Generator().manual_seed(1)) + 0.8).to(pick_device())
    neuron, messages = _build(core)
    assert not [m for m in messages if "cannot follow" in m], messages
    torch.testing.assert_close(neuron(x), loop_output(core, x))
    BIG["a"]["b"]["c"]["d"]["v_thr"] = 0.3
    neuron.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = neuron(x)
    torch.testing.assert_close(got, loop_output(core, x))
    assert any("BIG['a']['b']['c']['d']['v_thr'] (read by table) (1.0 -> 0.3) changed" in str(w.message) for w in caught)


def _quiet_cores() -> list[Callable[..., Any]]:
    """Reads the search follows, or of tensors: none may be told."""
    small = {"lif": {"v_thr": 1.0}}
    levels = [0.1, 0.2, 0.3]

    def shallow(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = small["lif"]  # every key of a dict this shallow is followed
        return _fire(v + (x - v) / 2.0, d[f"{NAME}_thr"] + small["lif"].get(NAME + "_thr", 0.0))

    def literal(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = CFG["neurons"]["lif"]
        return _fire(v + (x - v) / 2.0, d["v_thr"] + CFG["neurons"]["lif"].get("v_thr", 0.0))

    def tensor_index(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k = x.shape[-1] - 1
        h = v + (x - v) / 2.0
        return _fire(h, h[..., k : k + 1].detach() * 0.0 + 1.0)

    def loops(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        total = 0.0
        for w in small["lif"].values():  # every item of a dict this shallow is followed
            total = total + w
        for k in range(2):
            total = total + 0.0 * k
        return _fire(v + (x - v) / 2.0, total + sum(levels) - 0.6)

    def present(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        thr = OPTS.v_thr if hasattr(OPTS, "v_thr") else 2.0
        return _fire(v + (x - v) / 2.0, thr if "v_thr" in CFG["neurons"]["lif"] else 2.0)

    return [shallow, literal, tensor_index, loops, present]


@pytest.mark.parametrize("index", range(5))
def test_reads_the_search_follows_are_not_told(index: int) -> None:
    core = _quiet_cores()[index]
    assert unfollowed_reads([core]) == []
    x = (torch.randn(5, 3, 8, generator=torch.Generator().manual_seed(2)) + 0.8).to(pick_device())
    neuron, messages = _build(core)
    assert not [m for m in messages if "cannot follow" in m], messages
    torch.testing.assert_close(neuron(x), loop_output(core, x))
