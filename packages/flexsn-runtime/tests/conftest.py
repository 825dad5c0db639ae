"""Shared fixtures for the flexsn-runtime tests.

``device``: CUDA when available (compiled kernels), else the CPU with
Triton's interpreter (``TRITON_INTERPRET=1`` is set here when missing, so a
plain ``pytest`` on a CPU machine runs the generated kernels).

The reference semantics are written out here, independent of
``flexsn_runtime.eager_loop``: a Python loop over time, and autograd on
that unrolled loop for gradients.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

_HERE = str(Path(__file__).resolve().parent)  # captures_reference (shared test checks) under --import-mode=importlib
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from flexsn_codegen import interpreter_enabled  # noqa: E402
from flexsn_trace.testing import Spike, lif_core as lif, two_by_two_core as two, unrolled_loop  # noqa: E402


def hard(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A hard threshold: the spike output is not differentiable."""
    h = 0.5 * v + x
    s = (h >= 1.0).float()
    return s, h * (1.0 - s)


class Core(NamedTuple):
    fn: Callable[..., Any]
    ni: int
    ns: int
    no: int


CORES = {"lif": Core(lif, 1, 1, 1), "two": Core(two, 2, 2, 2), "hard": Core(hard, 1, 1, 1)}


def loop(core: Core, xs: Sequence[torch.Tensor], s0: Sequence[torch.Tensor]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Reference: ``(output_seqs, state_seqs)`` of a Python loop over time."""
    return unrolled_loop(core.fn, core.no, xs, s0)


def loop_grads(
    core: Core, xs: Sequence[torch.Tensor], s0: Sequence[torch.Tensor], out_grads: Sequence[torch.Tensor | None],
    final_state: bool = False,
) -> list[torch.Tensor]:
    """Reference gradients of the inputs and initial states: autograd on the unrolled loop.

    ``out_grads`` are gradients of ``(*output_seqs, *state_seqs)``, or with
    ``final_state`` of ``(*output_seqs, *final_states)``.
    """
    leaves = [t.detach().clone().requires_grad_() for t in [*xs, *s0]]
    outs, seqs = loop(core, leaves[: core.ni], leaves[core.ni :])
    results = [*outs, *(s[-1] for s in seqs)] if final_state else [*outs, *seqs]
    pairs = [(r, g) for r, g in zip(results, out_grads) if g is not None and r.requires_grad]
    torch.autograd.backward([r for r, _ in pairs], [g for _, g in pairs])
    return [t.grad if t.grad is not None else torch.zeros_like(t) for t in leaves]


def make_data(core: Core, T: int, shape: tuple[int, ...], device: torch.device, dtype: torch.dtype = torch.float32,
              seed: int = 0) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    xs = [(torch.randn(T, *shape, generator=g) * 1.5 + 0.6).to(dtype).to(device) for _ in range(core.ni)]
    s0 = [(torch.randn(*shape, generator=g) * 0.5).to(dtype).to(device) for _ in range(core.ns)]
    return xs, s0


def kernel_device() -> torch.device:
    if torch.cuda.is_available() and not interpreter_enabled():
        return torch.device("cuda")
    return torch.device("cpu")


@pytest.fixture(scope="session")
def device() -> torch.device:
    return kernel_device()


@pytest.fixture(scope="session")
def kernels() -> dict[str, Any]:
    """One FlexSNKernel per core, built once per session (building traces and renders three graphs)."""
    from flexsn_runtime import FlexSNKernel

    return {name: FlexSNKernel(c.fn, c.ni, c.ns, c.no) for name, c in CORES.items()}


@pytest.fixture(scope="session")
def ref() -> Any:
    """The reference helpers, for test modules (conftest is not importable in importlib mode)."""

    class Ref:
        CORES = CORES
        Core = Core
        loop = staticmethod(loop)
        loop_grads = staticmethod(loop_grads)
        make_data = staticmethod(make_data)
        lif = staticmethod(lif)
        two = staticmethod(two)
        hard = staticmethod(hard)
        Spike = Spike

    return Ref
