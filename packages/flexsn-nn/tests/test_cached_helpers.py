"""Numbers a core reads through a helper wrapped in ``functools.cache`` / ``functools.lru_cache``: a change traces the
kernels again, never a stale result.

The wrapper is a C object, not a function, so the place search did not follow it to the function it wraps: a number
that function read (``CFG["thr"]``, ``self.base``) was a constant of the kernels that nothing watched, and a change
(with the cache cleared, as the eager loop needs to see it) kept the traced value without a warning; rebinding the
helper to another cached function did too. Each case failed before (``flexsn_trace.kinds.CACHED``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import assert_changes_followed, pick_device

CFG = {"thr": 1.0}


@functools.cache
def threshold() -> float:
    return CFG["thr"]


def cached_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= threshold()).to(x.dtype)
    return s, h * (1.0 - s)


def _set_cfg(t: float) -> None:
    CFG["thr"] = t
    threshold.cache_clear()


@functools.lru_cache(maxsize=None)
def high() -> float:
    return 1.0


@functools.lru_cache(maxsize=None)
def low() -> float:
    return 0.3


PICKED = high


def rebound_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= PICKED()).to(x.dtype)
    return s, h * (1.0 - s)


def _pick(name: str) -> None:
    global PICKED
    PICKED = high if name == "high" else low


class _MethodCore:
    """Reads its threshold through an ``lru_cache``-wrapped method computed from ``self.base``."""

    def __init__(self) -> None:
        self.base = 2.0

    @functools.lru_cache(maxsize=None)
    def thr(self) -> float:
        return self.base * 0.5

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = (h >= self.thr()).to(x.dtype)
        return s, h * (1.0 - s)


METHOD_CORE = _MethodCore()


def _set_base(base: float) -> None:
    METHOD_CORE.base = base
    _MethodCore.thr.cache_clear()


CASES: dict[str, tuple[Callable[..., Any], Callable[[Any], None], tuple[Any, ...], str]] = {
    "a global read by a cached helper": (cached_core, _set_cfg, (1.0, 0.3), "CFG['thr']"),
    "a cached helper rebound": (rebound_core, _pick, ("high", "low"), "PICKED"),
    "an attribute read by an lru_cache method": (METHOD_CORE, _set_base, (2.0, 0.6), "base"),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_number_a_cached_helper_reads_traces_again(case: str, compiled: bool) -> None:
    core, set_value, values, named = CASES[case]
    set_value(values[0])
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(43)) * 2).to(pick_device())
    torch._dynamo.reset()
    try:
        if compiled and case == "a cached helper rebound":
            # Dynamo does not guard a cached wrapper's identity: the forward op compares it, and the compiled call
            # refuses to run on old kernels (as for a user's autograd.Function; README, "Learnable parameters, captured tensors")
            with pytest.raises(RuntimeError, match="changed since these kernels were traced.*compile again"):
                assert_changes_followed(run, neuron, core, x, values, set_value, case)
            return
        told = assert_changes_followed(run, neuron, core, x, values, set_value, case)
    finally:
        torch._dynamo.reset()
        set_value(values[0])
    assert named in told[0], told
