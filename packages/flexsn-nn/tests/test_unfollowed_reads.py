"""A core reading a number under a computed attribute name (``getattr(cfg, key)``) is told at construction: FlexSN
cannot watch that number, and before this warning a later change to it was silently ignored by the kernels."""

from __future__ import annotations

import warnings

import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
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


def test_a_literal_name_is_followed_and_not_told() -> None:
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(4)) * 3).to(pick_device())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        neuron = FlexSN(named_core, 1, 1, 1)
        neuron(x)
        try:
            CFG.v_th = 0.3
            neuron.reset()
            got = neuron(x)
            want, _ = reference_scan(named_core, ScanContract(1, 1, 1, (x,), ()))
        finally:
            CFG.v_th = 1.0
    torch.testing.assert_close(got, want)
    assert not [w for w in caught if "cannot follow" in str(w.message)]
    assert [w for w in caught if "CFG.v_th (1.0 -> 0.3) changed" in str(w.message)]
