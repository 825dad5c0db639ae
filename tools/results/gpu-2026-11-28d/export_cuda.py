"""save_program / load_program on CUDA: saved in one process, loaded in others with an empty cache and with the cache off.

Usage (device): python3 tools/results/gpu-2026-11-28d/export_cuda.py OUT
Prints one JSON line per case; the parent compares outputs and input gradients with the saving process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve()
REPO = HERE.parents[3]

SAVE = r"""
import json, sys, warnings, torch
import flexsn_nn
from flexsn_nn import LIFNode, ParametricLIFNode, functional
class Net(torch.nn.Module):
    def __init__(self, neuron):
        super().__init__()
        self.fc = torch.nn.Linear(64, 64)
        self.sn = (LIFNode if neuron == "lif" else ParametricLIFNode)(step_mode="m", backend="triton")
    def forward(self, x):
        functional.reset_net(self.sn)
        return self.sn(3.0 * self.fc(x) + 1.0)
torch.manual_seed(0)
net = Net(sys.argv[2]).cuda()
x0 = torch.rand(8, 16, 64, device="cuda", generator=torch.Generator("cuda").manual_seed(0)) * 2.5
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    program = torch.export.export(net, (x0,))
flexsn_nn.save_program(program, sys.argv[1])
x = (torch.rand(8, 16, 64, device="cuda", generator=torch.Generator("cuda").manual_seed(1)) * 2.5).requires_grad_()
out = net(x)
(out * torch.linspace(0.5, 1.5, out.numel(), device="cuda").view(out.shape)).sum().backward()
print(json.dumps({"out": out.tolist(), "grad": x.grad.tolist()}))
"""

LOAD = r"""
import json, sys, torch
import flexsn_nn
program = flexsn_nn.load_program(sys.argv[1]).module()
x = (torch.rand(8, 16, 64, device="cuda", generator=torch.Generator("cuda").manual_seed(1)) * 2.5).requires_grad_()
out = program(x)
(out * torch.linspace(0.5, 1.5, out.numel(), device="cuda").view(out.shape)).sum().backward()
print(json.dumps({"out": out.tolist(), "grad": x.grad.tolist()}))
"""


def run(code: str, cache: Path, *args: str, **env: str) -> dict:
    e = dict(os.environ, FLEXSN_CACHE_DIR=str(cache), **env)
    e.pop("TRITON_INTERPRET", None)
    p = subprocess.run([sys.executable, "-c", code, *args], env=e, capture_output=True, text=True, timeout=240)
    if p.returncode:
        raise SystemExit(f"failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    out = Path(sys.argv[1])
    tmp = Path(tempfile.mkdtemp())  # programs and caches: only the results go to OUT
    results = {}
    for neuron in ("lif", "plif"):
        path = tmp / f"{neuron}.pt2"
        saved = run(SAVE, tmp / f"cache-save-{neuron}", str(path), neuron)
        spikes = float(torch.tensor(saved["out"]).mean())
        for case, env in (("empty", {}), ("off", {"FLEXSN_TRACE_CACHE": "0"})):
            loaded = run(LOAD, tmp / f"cache-{case}-{neuron}", str(path), **env)
            torch.testing.assert_close(torch.tensor(loaded["out"]), torch.tensor(saved["out"]))
            torch.testing.assert_close(torch.tensor(loaded["grad"]), torch.tensor(saved["grad"]))
            results[f"{neuron}/{case}"] = {"spike_rate": spikes, "matches": True}
    print(json.dumps(results, indent=1))
    (out / "export_cuda.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
