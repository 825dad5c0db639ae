"""Is PLIF's backward slower than LIF's at T = 8 because of its registers (occupancy)? (#13)

Caps the registers of the backward kernels (Triton's ``maxnreg`` launch option, injected into
``JITFunction.run`` for kernels named flexsn_backward*), then times the training kernels as
kernel_times.py does (torch.profiler, 40 back-to-back steps) and reports each backward kernel's
registers and spills as Triton compiled it.
Usage: maxnreg_probe.py OUT.json MAXNREG|none T [T ...]
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
import triton.runtime.jit as tjit
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_static import module_train_step, overhead_neurons  # noqa: E402

cap = None if sys.argv[2] == "none" else int(sys.argv[2])
_run = tjit.JITFunction.run
compiled: dict = {}


def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    if cap is not None and self.fn.__name__.startswith("flexsn_backward"):
        kwargs["maxnreg"] = cap
    k = _run(self, *args, **kwargs)
    compiled[self.fn.__name__ + ":" + str(id(self))] = k
    return k


tjit.JITFunction.run = run
dev = torch.device("cuda")
out: dict = {"maxnreg": cap}
for T in [int(a) for a in sys.argv[3:]]:
    x = torch.randn(T, 16, 64, 4096, device=dev) + 0.5
    g = torch.randn_like(x)
    neurons = overhead_neurons(64, dev)
    for name in ("lif_constants", "plif_scalar", "plif_per_channel"):
        m = neurons[name]
        compiled.clear()
        step = module_train_step(m, x, g)
        for _ in range(10):
            step()
        torch.cuda.synchronize()
        regs = {k.split(":")[0]: (getattr(v, "n_regs", None), getattr(v, "n_spills", None)) for k, v in compiled.items()}
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(40):
                step()
            torch.cuda.synchronize()
        times = defaultdict(list)
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA and e.name.startswith("flexsn"):
                times[e.name].append(e.time_range.end - e.time_range.start)
        row = {"us": {k: round(sum(v) / len(v), 2) for k, v in times.items()}, "regs_spills": regs}
        out[f"{name} T={T}"] = row
        print(cap, name, T, json.dumps(row), flush=True)
Path(sys.argv[1]).write_text(json.dumps(out, indent=1))
