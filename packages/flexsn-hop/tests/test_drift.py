"""Drift in PyTorch internals degrades to a warning and the eager path.

Each case breaks one private API in a fresh interpreter before importing
flexsn_hop, then checks the import warns instead of failing and that the
scan still computes the right thing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

CHECK_EAGER = """
import torch
def core(x, v):
    v = 0.5 * v + x
    return torch.tanh(v), v
x = torch.randn(4, 3, requires_grad=True)
y, v = flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, torch.zeros(3))
ref_v, ref_y, state = [], [], torch.zeros(3)
for t in range(4):
    state = 0.5 * state + x[t]
    ref_v.append(state); ref_y.append(torch.tanh(state))
torch.testing.assert_close(y, torch.stack(ref_y))
torch.testing.assert_close(v, torch.stack(ref_v))
y.sum().backward()
assert x.grad is not None
"""


def run_case(breakage: str, checks: str) -> None:
    code = "\n".join(
        [
            "import warnings",
            textwrap.dedent(breakage),
            "with warnings.catch_warnings(record=True) as caught:",
            "    warnings.simplefilter('always')",
            "    import flexsn_hop",
            "messages = [str(w.message) for w in caught if 'flexsn_hop' in str(w.message)]",
            "assert messages, 'expected a flexsn_hop warning'",
            CHECK_EAGER,
            textwrap.dedent(checks),
            "print('OK')",
        ]
    )
    # FLEXSN_HOP_FUSED=0: these cases test the operator's own fallback; the
    # fused-kernel hook would import compiler internals while they are broken.
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
        FLEXSN_HOP_FUSED="0",
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "breakage, checks",
    [
        pytest.param(
            """
            import torch._dynamo.variables.higher_order_ops as hov
            del hov.speculate_subgraph
            """,
            """
            assert flexsn_hop.hop_kernels_registered()
            assert not flexsn_hop.dynamo_hop_available()
            assert any('Dynamo support' in m for m in messages)
            # torch.compile graph-breaks around the operator, which runs eagerly.
            compiled = torch.compile(
                lambda x, v: flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, v), backend='eager'
            )
            out = compiled(torch.ones(3, 2), torch.zeros(2))
            torch.testing.assert_close(out[1][-1], torch.full((2,), 1.75))
            """,
            id="dynamo-internals",
        ),
        pytest.param(
            """
            import torch._ops
            saved = torch._ops.HigherOrderOperator
            del torch._ops.HigherOrderOperator
            """,
            """
            torch._ops.HigherOrderOperator = saved  # torch.compile itself needs it
            assert not flexsn_hop.hop_kernels_registered()
            assert not flexsn_hop.dynamo_hop_available()
            # A plain callable now: Dynamo inlines (unrolls) the eager loop.
            compiled = torch.compile(
                lambda x, v: flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, v),
                backend='eager',
                fullgraph=True,
            )
            out = compiled(torch.ones(3, 2), torch.zeros(2))
            torch.testing.assert_close(out[1][-1], torch.full((2,), 1.75))
            """,
            id="higher-order-operator",
        ),
    ],
)
def test_private_api_drift_falls_back_to_eager(breakage: str, checks: str) -> None:
    run_case(breakage, checks)
