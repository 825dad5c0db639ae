"""Configurations in the standard library's holders: a core reading ``args.v_threshold`` from ``parse_args()``.

The place search followed dicts, lists, tuples, ``types.SimpleNamespace`` and user objects, and left a library's
objects alone. So a threshold in an ``argparse.Namespace`` (what ``parser.parse_args()`` returns, the usual home of
a research script's settings), a ``collections.ChainMap``, a ``collections.UserDict`` or a
``types.MappingProxyType`` was a constant of the kernels that nothing watched: after a change the fused call gave
the old threshold's spikes without a warning, and a tensor there could not be lifted. They are searched now
(``flexsn_trace.kinds.NAMESPACES`` and ``MAPPINGS``). Each test compares with the eager loop
(``flexsn_trace.reference_scan``) at the new value. An installed package's config whose keys its
``__getattr__`` serves (OmegaConf's ``DictConfig``) cannot be followed; its reads are told at construction.
"""

from __future__ import annotations

import argparse
import collections
import sys
import types
import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from nn_reference import assert_changes_followed, pick_device

HOLDERS = ["argparse.Namespace", "ChainMap", "UserDict", "MappingProxyType"]


def _lif(x: torch.Tensor, v: torch.Tensor, threshold: Any) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= threshold).to(x.dtype)
    return s, h * (1.0 - s)


def _holder(kind: str, value: Any) -> tuple[Callable[[], Any], Callable[[Any], None]]:
    """``(read, write)`` of ``"thr"`` in a holder of ``kind`` (a global of this module, as a script's would be)."""
    global HOLDER
    if kind == "argparse.Namespace":
        HOLDER = argparse.Namespace(thr=value)
        return lambda: HOLDER.thr, lambda v: setattr(HOLDER, "thr", v)
    if kind == "MappingProxyType":
        backing = {"thr": value}
        HOLDER = types.MappingProxyType(backing)
        return lambda: HOLDER["thr"], lambda v: backing.__setitem__("thr", v)
    HOLDER = collections.ChainMap({"thr": value}) if kind == "ChainMap" else collections.UserDict({"thr": value})
    return lambda: HOLDER["thr"], lambda v: HOLDER.__setitem__("thr", v)


HOLDER: Any = None


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", HOLDERS)
def test_a_changed_threshold_in_a_library_holder_traces_again(kind: str, compiled: bool) -> None:
    read, write = _holder(kind, 1.0)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _lif(x, v, read())

    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(5)) * 3).to(pick_device())
    torch._dynamo.reset()
    try:
        assert_changes_followed(run, neuron, core, x, (1.0, 0.2), write, kind)
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("kind", ["argparse.Namespace", "ChainMap", "UserDict"])
def test_a_parameter_in_a_library_holder_is_lifted_with_its_gradient(kind: str) -> None:
    """A learnable per-neuron threshold kept in the holder trains on the kernels: dL/dw as the eager loop's."""
    dev = pick_device()
    w = torch.nn.Parameter(torch.linspace(0.5, 1.5, 8, device=dev))
    read, _ = _holder(kind, w)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = torch.sigmoid(4.0 * (h - read()))
        return s, h * (1.0 - s)

    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(6)) * 3).to(dev)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # lifted: no fallback
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton", example_inputs=(x[0], x[0]))
        assert neuron.uses_kernels(x)
        neuron(x).sum().backward()
    got = w.grad.clone()
    w.grad = None
    want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    want.sum().backward()
    torch.testing.assert_close(got, w.grad, rtol=1e-4, atol=1e-5)


_FAKE_PACKAGE = '''
class Config:
    """What an installed package's config looks like to Python (OmegaConf's DictConfig): keys served by __getattr__."""

    def __init__(self, **items):
        object.__setattr__(self, "_content", dict(items))

    def __getattr__(self, name):
        try:
            return self._content[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self._content[name] = value
'''

PACKAGED: Any = None


def packaged_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, PACKAGED.thr)


def test_a_config_of_an_installed_package_is_told(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed package's config that serves its keys from ``__getattr__`` (OmegaConf's ``DictConfig``, which
    Hydra hands a training script) cannot be followed: its code is not searched and its keys are no attributes.
    Before, its threshold was a constant of the kernels without a word; now construction tells the read."""
    global PACKAGED
    package = tmp_path / "site-packages" / "flexsn_fake_config"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_FAKE_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    import flexsn_fake_config

    PACKAGED = flexsn_fake_config.Config(thr=1.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            FlexSN(packaged_core, 1, 1, 1, step_mode="m", backend="triton")
        told = [str(w.message) for w in caught if "cannot follow" in str(w.message)]
        assert len(told) == 1 and "PACKAGED.thr in packaged_core" in told[0] and "OmegaConf" in told[0], told
    finally:
        PACKAGED = None
        sys.modules.pop("flexsn_fake_config", None)
