"""``flex_sn_scan`` called eagerly follows a number its core reads from outside: a change traces the kernels again.

The operator caches one ``FlexSNKernel`` per core; before, its eager calls ran that kernel without asking whether a
number the core reads (a global threshold, a surrogate's slope) had changed, so after ``V_TH = 0.2`` the fused scan
computed with 1.0 and said nothing (``FlexSN`` and ``FlexSNKernel`` asked). Compiled calls are guarded by Dynamo.
References are explicit Python loops with autograd through them.
"""

from __future__ import annotations

import os
import warnings
from typing import Callable

import pytest
import torch

from flexsn_hop import flex_sn_scan

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
    reason="the fused kernels need CUDA or TRITON_INTERPRET=1",
)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

V_TH = 1.0
SLOPE = 4.0


def _make_lif() -> Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """A new LIF step (a core of its own: the operator caches kernels per core) whose threshold is the global
    ``V_TH`` and whose surrogate slope is the global ``SLOPE``."""

    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        u = h - V_TH
        s = (u >= 0).to(x.dtype) + (torch.sigmoid(SLOPE * u) - torch.sigmoid(SLOPE * u).detach())  # Θ forward, σ' back
        return s, h * (1.0 - s.detach())

    return lif


def _loop(lif: Callable[..., tuple[torch.Tensor, torch.Tensor]], x: torch.Tensor, v0: torch.Tensor) -> torch.Tensor:
    v, out = v0, []
    for t in range(x.shape[0]):
        s, v = lif(x[t], v)
        out.append(s)
    return torch.stack(out)


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_an_eager_scan_follows_a_changed_global(train: bool, fused_paths: list[str]) -> None:
    global V_TH, SLOPE
    g = torch.Generator().manual_seed(3)
    x = (torch.rand(6, 3, 8, generator=g) * 3).to(DEVICE)
    v0 = torch.zeros(3, 8, device=DEVICE)
    lif = _make_lif()
    try:
        for th, slope in ((1.0, 4.0), (0.2, 1.0)):
            V_TH, SLOPE = th, slope
            xg = x.clone().requires_grad_(train)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = flex_sn_scan(lif, 1, 1, 1, xg, v0)[0]
                if train:
                    got.sum().backward()
            xr = x.clone().requires_grad_(train)
            want = _loop(lif, xr, v0)
            torch.testing.assert_close(got, want, msg=lambda m: f"V_TH = {th}: {m}")
            if train:
                want.sum().backward()
                torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"SLOPE = {slope}: {m}")
            told = [str(w.message) for w in caught if "changed since the kernels were traced" in str(w.message)]
            assert len(told) == (th != 1.0) and all("global V_TH" in t and "global SLOPE" in t for t in told), told
        assert fused_paths == ["training" if train else "inference"] * 2  # both calls fused, none on the eager loop
    finally:
        V_TH, SLOPE = 1.0, 4.0
