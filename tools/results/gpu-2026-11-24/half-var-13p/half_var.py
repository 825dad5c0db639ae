"""Why bf16 PLIF's back-to-back ratio moves between 0.19 and 0.265 from one module to the next (#13).

One process, T = 32, [32, 16, 64, 4096] bfloat16, ParametricLIFNode training (reset + forward +
backward), triton.testing.do_bench median. Two questions:
  1. the module or the process? four new modules, then the first one again;
  2. the memory placement? the first module again with the sequences allocated after a pad of
     0.5-8 MiB (the step's streams sit at other offsets from each other);
each row also records the backward kernel's GPU time (torch.profiler) and the input's address mod 2 MiB.
Usage: half_var.py OUT.json
"""
import json
import sys
from pathlib import Path

import torch
import triton.testing as tt
from torch.profiler import ProfilerActivity, profile

import flexsn_nn

dev = torch.device("cuda")
shape = (32, 16, 64, 4096)
x0 = torch.randn(shape, device=dev, dtype=torch.bfloat16)
g0 = torch.randn_like(x0)
t_clone = tt.do_bench(lambda: x0.clone(), warmup=25, rep=100, return_mode="median")
rows = []


def measure(label: str, m: torch.nn.Module, pad_mib: float = 0.0) -> None:
    pad = torch.empty(int(pad_mib * (1 << 20)), dtype=torch.uint8, device=dev) if pad_mib else None
    xr = x0.clone().requires_grad_()
    g = g0.clone()

    def step() -> None:
        m.reset()
        torch.autograd.backward(m(xr), g)

    ms = tt.do_bench(step, warmup=10, rep=100, grad_to_none=[xr, *m.parameters()], return_mode="median")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            step()
        torch.cuda.synchronize()
    k = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and e.name.startswith("flexsn"):
            k.setdefault(e.name, []).append(e.time_range.end - e.time_range.start)
    row = {"label": label, "pad_mib": pad_mib, "ratio": round(t_clone / ms, 4), "x_mod_2mib": xr.data_ptr() % (1 << 21),
           "kernels_us": {n: round(sum(v) / len(v), 1) for n, v in k.items()}}
    rows.append(row)
    print(json.dumps(row), flush=True)
    del pad


mods = [flexsn_nn.ParametricLIFNode().to(dev) for _ in range(4)]
for i, m in enumerate(mods):
    measure(f"module {i}", m)
measure("module 0 again", mods[0])
for pad in (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0):
    measure("module 0 padded", mods[0], pad)
lif = flexsn_nn.LIFNode()
measure("LIF", lif)
Path(sys.argv[1]).write_text(json.dumps(rows, indent=1))
