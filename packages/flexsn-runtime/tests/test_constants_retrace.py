"""A number the core reads from outside its arguments changes: the kernels are traced again, never silently stale.

The reference is the eager loop (:func:`flexsn_runtime.eager_loop`) run with
the value as it is at the call, and autograd through it for gradients.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch

from flexsn_runtime import FlexSNKernel, eager_loop

THRESH = 1.0


def global_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (v - THRESH))  # differentiable: the training kernels are checked too
    return s, v * (1.0 - s)


def closure_core() -> tuple[Callable[..., Any], Callable[[float], None]]:
    tau = 2.0

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + (x - v) / tau
        s = torch.sigmoid(4.0 * (v - 1.0))
        return s, v * (1.0 - s)

    def set_tau(value: float) -> None:
        nonlocal tau
        tau = value

    return core, set_tau


class ObjectCore:
    def __init__(self) -> None:
        self.v_threshold = 1.0

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + (x - v) / 2.0
        s = torch.sigmoid(4.0 * (v - self.v_threshold))
        return s, v * (1.0 - s)


def _check(k: FlexSNKernel, core: Callable[..., Any], device: torch.device) -> None:
    x = (torch.rand(5, 3, 8, device=device) * 3).requires_grad_(True)
    out = k(x)
    ref = eager_loop(core, 1, 1, 1, [x], [torch.zeros(3, 8, device=device)])
    torch.testing.assert_close(out[0], ref[0], rtol=1e-5, atol=1e-5)
    (g,) = torch.autograd.grad(out[0].sum(), x)
    (g_ref,) = torch.autograd.grad(ref[0].sum(), x)
    torch.testing.assert_close(g, g_ref, rtol=1e-4, atol=1e-5)


def _change(kind: str) -> tuple[Callable[..., Any], Callable[[float], None]]:
    if kind == "global":
        def set_global(value: float) -> None:
            global THRESH
            THRESH = value
        return global_core, set_global
    if kind == "closure":
        return closure_core()
    obj = ObjectCore()
    return obj, lambda value: setattr(obj, "v_threshold", value)


@pytest.mark.parametrize("kind", ["global", "closure", "attribute"])
def test_a_changed_number_retraces_once_with_a_warning(kind: str, device: torch.device) -> None:
    core, set_value = _change(kind)
    try:
        k = FlexSNKernel(core, 1, 1, 1)
        # the one number; an object's core also its class's __call__ (code, watched by identity)
        names = {"global": ["global THRESH"], "closure": ["closure tau"], "attribute": ["self.v_threshold", "ObjectCore.__call__"]}
        assert k.handle is not None and [c.name for c in k.constants.items] == names[kind]
        first = k.handle
        _check(k, core, device)
        _check(k, core, device)  # unchanged: the same kernels, no warning
        assert k.handle == first
        set_value(0.5 if kind != "closure" else 3.0)
        with pytest.warns(RuntimeWarning, match=r"changed since the kernels were traced") as record:
            _check(k, core, device)
        assert len([w for w in record if "changed since" in str(w.message)]) == 1
        assert k.handle is not None and k.handle != first
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the new value is now the traced one
            _check(k, core, device)
    finally:
        set_value(1.0 if kind != "closure" else 2.0)
