"""``torch.export`` of networks with FlexSN neurons: the exported program computes what the network does.

An exported program names FlexSN kernels by handle (a number the building process registers, made from
the traced core). In the same process it runs as the network does, on every backend; after
``torch.export.save`` it runs in a new process once that process has built the same neurons, or by itself
where FlexSN's trace cache holds the kernels (the same machine and versions), and
without either it raises an error that says so (before: "unknown FlexSN kernel handle N (released, or
never registered)" and nothing more). Reference: the network itself, eagerly, on fresh inputs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch

from flexsn_nn import LIFNode, ParametricLIFNode, functional

REPO = Path(__file__).resolve().parents[1]


class Net(torch.nn.Module):
    """linear -> neuron, resetting the neuron at every call (so an exported program and the network agree)."""

    def __init__(self, backend: str, neuron: str = "lif") -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.sn = (LIFNode if neuron == "lif" else ParametricLIFNode)(step_mode="m", backend=backend)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        functional.reset_net(self.sn)
        return self.sn(3.0 * self.fc(x) + 1.0)  # type: ignore[no-any-return]  # scaled: the neurons spike


def _x(seed: int) -> torch.Tensor:
    return torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(seed)) * 2.5


@pytest.mark.parametrize("neuron", ["lif", "plif"])
@pytest.mark.parametrize("backend", ["triton", "hop", "torch"])
def test_exported_program_matches_the_network(backend: str, neuron: str) -> None:
    torch.manual_seed(0)
    net = Net(backend, neuron)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.export's own deprecation notes
        program = torch.export.export(net, (_x(0),)).module()
    for seed in (1, 2):
        torch.testing.assert_close(program(_x(seed)), net(_x(seed)))


_SAVE = r'''
import json, sys, warnings, torch
sys.path.insert(0, sys.argv[1])
from test_export import Net, _x
for _ in range(3):
    Net("triton")  # neurons of the same fingerprint, dropped: the saved one's handle has a serial the loader never makes
torch.manual_seed(0)
net = Net("triton")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch.export's own deprecation notes
    torch.export.save(torch.export.export(net, (_x(0),)), sys.argv[2])
print(json.dumps({"out": net(_x(1)).tolist()}))
'''

_LOAD = r'''
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from test_export import Net, _x
if sys.argv[3] == "build":
    torch.manual_seed(1)
    net = Net("triton")  # the same neuron, built in this process and kept alive (its kernels live as long as it)
    net(_x(0))
try:
    program = torch.export.load(sys.argv[2]).module()
    if sys.argv[3] == "compiled":  # compiled before any eager call: the graph's fake calls look the handle up first
        program = torch.compile(program)
    out = program(_x(1))
    print(json.dumps({"out": out.tolist()}))
except RuntimeError as exc:
    print(json.dumps({"error": str(exc)}))
'''


def _in_a_new_process(tmp_path: Path, program: str, *args: str, cache: str = "flexsn") -> dict[str, Any]:
    env = dict(os.environ, TRITON_INTERPRET="1", FLEXSN_CACHE_DIR=str(tmp_path / cache))
    src = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]
    env["PYTHONPATH"] = os.pathsep.join(src + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-c", program, str(Path(__file__).parent), *args]
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the process failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_saved_program_runs_in_a_new_process_that_builds_the_neurons(tmp_path: Path) -> None:
    """Saved by one process (after more neurons of that fingerprint were built), loaded by another."""
    program = str(tmp_path / "net.pt2")
    saved = _in_a_new_process(tmp_path, _SAVE, program)
    assert torch.count_nonzero(torch.tensor(saved["out"])) > 0  # spikes: the comparisons below can tell kernels apart
    built = _in_a_new_process(tmp_path, _LOAD, program, "build")
    assert "out" in built, built
    torch.testing.assert_close(torch.tensor(built["out"]), torch.tensor(saved["out"]))
    # a process that builds nothing loads the kernels from the trace cache the saving process wrote
    bare = _in_a_new_process(tmp_path, _LOAD, program, "bare")
    assert "out" in bare, bare
    torch.testing.assert_close(torch.tensor(bare["out"]), torch.tensor(saved["out"]))
    compiled = _in_a_new_process(tmp_path, _LOAD, program, "compiled")
    assert "out" in compiled, compiled
    torch.testing.assert_close(torch.tensor(compiled["out"]), torch.tensor(saved["out"]))
    # with another (empty) cache it cannot, and says what to do
    elsewhere = _in_a_new_process(tmp_path, _LOAD, program, "bare", cache="other")
    assert "build the same neurons first" in elsewhere["error"] and "trace cache" in elsewhere["error"], elsewhere
