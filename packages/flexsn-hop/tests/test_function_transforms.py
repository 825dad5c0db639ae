"""``flex_sn_scan`` under ``torch.func`` transforms and forward-mode AD: the operator's loop runs, told once.

The fused kernels read raw memory and propagate no forward-mode tangents. Before, a dual tensor reached
the fused inference route (it does not require grad), and vmapped calls took the loop silently. Now both
run the loop with one warning, and the results equal the loop's (``eager_scan``) under the same transform.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.autograd.forward_ad as fwAD

import flexsn_hop
from flexsn_hop import runtime_fusion

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def leaky_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A smooth step (tangents flow through every value) with a lifted per-feature ``w``."""
    h = v + (x - v) * torch.sigmoid(w)
    return torch.tanh(2.0 * h), h * 0.8


@pytest.fixture(autouse=True)
def _untold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_fusion, "_WARNED", set())  # told once per process: each test starts untold


def _tensors() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(5, 4, 6, generator=gen)
    t = torch.randn(5, 4, 6, generator=gen)
    v0 = torch.randn(4, 6, generator=gen)
    w = torch.randn(6, generator=gen)
    return x.to(DEVICE), t.to(DEVICE), v0.to(DEVICE), w.to(DEVICE)


def _warned(caught: list[warnings.WarningMessage], what: str) -> bool:
    return any(what in str(w.message) for w in caught)


@pytest.mark.parametrize("final_state", [False, True])
def test_dual_tensors_keep_their_tangents(final_state: bool, fused_paths: list[str]) -> None:
    x, t, v0, w = _tensors()
    flexsn_hop.flex_sn_scan(leaky_core, 1, 1, 1, x, v0, w, final_state=final_state)
    assert fused_paths == ["inference"], "the plain call runs fused"
    with fwAD.dual_level(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dual = fwAD.make_dual(x, t)
        got = [fwAD.unpack_dual(o) for o in flexsn_hop.flex_sn_scan(leaky_core, 1, 1, 1, dual, v0, w, final_state=final_state)]
        loop = flexsn_hop.eager_scan_final_state if final_state else flexsn_hop.eager_scan
        expected = [fwAD.unpack_dual(o) for o in loop(leaky_core, 1, 1, 1, dual, v0, w)]
    assert fused_paths == ["inference"], "the dual call ran the kernels"
    assert _warned(caught, "forward-mode AD"), [str(w.message) for w in caught]
    for (p, tan), (p_ref, tan_ref) in zip(got, expected):
        assert tan is not None, "the tangent was dropped"
        torch.testing.assert_close(p, p_ref)
        torch.testing.assert_close(tan, tan_ref)


def test_vmap_runs_the_loop_and_says_so(fused_paths: list[str]) -> None:
    x, _, v0, w = _tensors()
    xs = torch.stack([x, 2.0 * x, -x], dim=1)  # [T, 3, 4, 6]: vmap over dim 1

    def scan(xb: torch.Tensor) -> torch.Tensor:
        return flexsn_hop.flex_sn_scan(leaky_core, 1, 1, 1, xb, v0, w, final_state=True)[0]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.func.vmap(scan, in_dims=1, out_dims=1)(xs)
    assert fused_paths == []
    assert _warned(caught, "torch.func transforms"), [str(w.message) for w in caught]
    for k in range(3):
        torch.testing.assert_close(got[:, k], flexsn_hop.eager_scan(leaky_core, 1, 1, 1, xs[:, k], v0, w)[0])
