"""The four backends return the same kinds of tensors for odd cores and odd shapes.

``FlexSN`` on ``"triton"``, ``"inductor"`` and ``"hop"`` against ``"torch"`` (the eager loop, the
reference): for cores whose results are not the inputs' float (a bool spike, a float16 copy), whose
results take a static input's wider shape (the kernels fall back), or reduce a dimension (the kernels
fall back), over ``T = 0``, ``T = 1`` and no neurons, fp32 and bf16, both step modes and with and without
stored state sequences, every output, state and stored state sequence must have the reference's shape
and dtype, and its values. A disagreement here is what a user switching backends would meet silently
(``T = 0`` on the kernel backends gave the inputs' dtype and a step's shape, before this test).
"""

from __future__ import annotations

import itertools
import os
import warnings
from typing import Any, Callable

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

from flexsn_nn import FlexSN, hop_available  # noqa: E402

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BACKENDS = ["triton", "inductor", *(["hop"] if hop_available() else [])]


def bool_spike(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = h >= 0.5
    return s, h * ~s


def half_copy(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return h.half(), h


def wide_static(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * w  # w [2, 3] beside steps [3]: results [2, 3], the kernels fall back
    return h * 2.0, h


def row_sum(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return h.sum(-1), h  # another shape than the step's: the kernels fall back


CORES: dict[str, tuple[Callable[..., Any], bool]] = {
    "bool_spike": (bool_spike, False), "half_copy": (half_copy, False), "wide_static": (wide_static, True), "row_sum": (row_sum, False),
}


def _run(backend: str, name: str, x: torch.Tensor, step_mode: str, store: bool) -> list[torch.Tensor]:
    core, static = CORES[name]
    w = [torch.linspace(0.2, 0.9, 6, device=DEVICE).view(2, 3).to(x.dtype)] if static else None
    m = FlexSN(core, 1, 1, 1, backend=backend, step_mode=step_mode, store_state_seqs=store, static_inputs=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallbacks' warnings: not what is compared here
        y = m(x)
    got = [y, *(s for s in m.states if s is not None)]
    return got + (list(m.state_seqs) if store and m.state_seqs is not None else [])


@pytest.mark.parametrize("name", sorted(CORES))
def test_every_backend_returns_what_the_eager_loop_returns(name: str) -> None:
    g = torch.Generator().manual_seed(0)
    for steps, dtype, step_mode, store in itertools.product(
        [(4, 3), (0, 3), (4, 0), (1, 3)], [torch.float32, torch.bfloat16], ["m", "s"], [False, True]
    ):
        if step_mode == "s" and steps[0] == 0:
            continue  # a single step has no T
        x = torch.rand(*steps, generator=g).to(DEVICE, dtype)
        x = x[0] if step_mode == "s" else x
        try:
            want = _run("torch", name, x, step_mode, store)
        except ValueError as exc:  # the loop cannot run this call (a static that does not broadcast): nor may the others
            for backend in BACKENDS:
                with pytest.raises(type(exc)):
                    _run(backend, name, x, step_mode, store)
            continue
        for backend in BACKENDS:
            got = _run(backend, name, x, step_mode, store)
            where = f"{backend}, {name}, x {tuple(x.shape)} {dtype}, step_mode={step_mode!r}, store_state_seqs={store}"
            assert [(t.shape, t.dtype) for t in got] == [(t.shape, t.dtype) for t in want], where
            for a, b in zip(got, want):
                tol = 1e-2 if dtype == torch.bfloat16 or a.dtype == torch.float16 else 1e-5
                torch.testing.assert_close(a, b, rtol=tol, atol=tol, msg=lambda m: f"{where}: {m}")
