"""Shared fixtures for the flexsn-codegen tests.

``device``: CUDA when available (compiled kernels), else the CPU with
Triton's interpreter (``TRITON_INTERPRET=1``, set here when missing so a
plain ``pytest`` run on a CPU machine works). ``run_elementwise`` runs a
generated step function inside a one-dimensional probe kernel. This folder goes on
``sys.path`` for ``lowering_cases.py``, the case table of ``test_lowering_ops.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # the case table of test_lowering_ops.py (lowering_cases.py) lives beside the tests
    sys.path.insert(0, _HERE)

import triton  # noqa: E402

from flexsn_codegen import compile_triton_code_str, generate_triton_code_str, interpreter_enabled  # noqa: E402


def kernel_device() -> torch.device:
    """CUDA unless the interpreter is on (then CPU)."""
    if torch.cuda.is_available() and not interpreter_enabled():
        return torch.device("cuda")
    return torch.device("cpu")


@pytest.fixture(scope="session")
def device() -> torch.device:
    return kernel_device()


_BLOCK = 64  # inputs are longer than one block and not a multiple of it


def _probe_source(step_code: str, step_name: str, n_in: int, n_out: int) -> str:
    ins = [f"in{i}" for i in range(n_in)]
    outs = [f"out{k}" for k in range(n_out)]
    lines = [
        step_code,
        "",
        "@triton.jit",
        f"def probe_kernel({', '.join([*ins, *outs, 'N', 'BLOCK: tl.constexpr'])}):",
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
        "    mask = offs < N",
    ]
    lines += [f"    a{i} = tl.load({p} + offs, mask=mask, other=0.0).to(tl.float32)" for i, p in enumerate(ins)]
    rets = [f"r{k}" for k in range(n_out)]
    call = f"{step_name}({', '.join(f'a{i}' for i in range(n_in))})"
    lines.append(f"    {', '.join(rets)} = {call}")
    # flexsn_to_storage (defined by every generated module) rounds like the scan templates do
    lines += [f"    tl.store({p} + offs, flexsn_to_storage({r}, {p}.dtype.element_ty), mask=mask)"
              for p, r in zip(outs, rets)]
    return "\n".join(lines) + "\n"


def run_step(
    graph: Any, inputs: Sequence[torch.Tensor], out_dtypes: Sequence[torch.dtype], name: str = "step"
) -> list[torch.Tensor]:
    """Lower ``graph`` and run it elementwise over 1-D ``inputs``.

    Inputs are loaded as fp32 and each result is stored in the matching
    ``out_dtypes`` entry (the kernels' numerics contract), through the
    generated module's ``flexsn_to_storage`` like the scan templates.
    """
    code, fn = generate_triton_code_str(graph, name)
    src = _probe_source(code, fn, len(inputs), len(out_dtypes))
    kernel = compile_triton_code_str(src, "probe_kernel")
    n = inputs[0].numel()
    dev = inputs[0].device
    # outputs start as a sentinel (NaN, or -7 for integers), not as fresh memory that may already hold zeros:
    # an output the kernel fails to write cannot pass for a correct zero
    outs = [torch.full((n,), float("nan") if d.is_floating_point else -7, dtype=d, device=dev) for d in out_dtypes]
    grid = (triton.cdiv(n, _BLOCK),)
    with np.errstate(all="ignore"):
        kernel[grid](*[x.contiguous() for x in inputs], *outs, n, BLOCK=_BLOCK)
    return outs


@pytest.fixture(scope="session")
def run_elementwise() -> Callable[..., list[torch.Tensor]]:
    return run_step
