"""Importing FlexSN leaves torch's compiler unimported; torch.compile then finds flex_sn_scan registered.

Each case runs in a fresh interpreter (what is imported is process state).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = [str(p) for p in sorted(Path(__file__).resolve().parents[2].glob("*/src"))]

COMPILE_ONE_NODE = """
import torch
from torch._inductor import config
import flexsn_hop

def core(x, v):
    v = 0.5 * v + x
    return torch.tanh(v), v

graphs = []
def backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward

run = lambda x, v: flexsn_hop.flex_sn_scan(core, 1, 1, 1, x, v)
x = torch.randn(4, 3)
y, vs = torch.compile(run, backend=backend, fullgraph=True)(x, torch.zeros(3))
torch.testing.assert_close(vs[-1], run(x, torch.zeros(3))[1][-1])
(gm,) = graphs
assert [n.target for n in gm.graph.nodes if n.op == "call_function"][0] is flexsn_hop.flex_sn_scan
assert flexsn_hop.dynamo_hop_available()
assert type(config.pre_grad_custom_pass).__name__ == "_NeighbourPass"
print("OK")
"""


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*SRC, os.environ.get("PYTHONPATH", "")]), FLEXSN_HOP_FUSED="0")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


def test_importing_flexsn_does_not_import_the_compiler_and_compile_still_captures_one_node() -> None:
    _run(
        textwrap.dedent("""
        import sys, torch
        import flexsn_nn, flexsn_hop
        assert "torch._dynamo" not in sys.modules and "torch._inductor" not in sys.modules
        """)
        + COMPILE_ONE_NODE
    )


def test_a_compiler_imported_first_is_registered_with_at_import() -> None:
    _run("import torch._dynamo, torch._inductor.config\n" + COMPILE_ONE_NODE)


def test_without_wrapt_the_registrations_run_at_import() -> None:
    _run(
        textwrap.dedent("""
        import sys
        sys.modules["wrapt"] = None  # import wrapt raises ImportError
        import flexsn_hop
        assert "torch._dynamo" in sys.modules
        """)
        + COMPILE_ONE_NODE
    )
