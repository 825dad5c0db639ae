"""GPU time of each training kernel, back to back, for tools/bench_static.py's overhead neurons (#13).

For LIF with constants, a per-channel learnable threshold, PLIF with a scalar and with a per-channel
decay: 40 training steps (reset() + forward + backward, [T, 16, 64, 4096] fp32) under torch.profiler,
after a warm-up; the mean CUDA time of each kernel name (microseconds). Question: does a static
input's backward still take longer than LIF's (~10 us at T = 8 before), and does issuing the first
step's loads before the per-program guard and prologue change that.
Usage: kernel_times.py OUT.json T [T ...]
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_static import module_train_step, overhead_neurons  # noqa: E402

dev = torch.device("cuda")
out: dict = {}
for T in [int(a) for a in sys.argv[2:]]:
    x = torch.randn(T, 16, 64, 4096, device=dev) + 0.5
    g = torch.randn_like(x)
    for name, m in overhead_neurons(64, dev).items():
        step = module_train_step(m, x, g)
        for _ in range(10):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(40):
                step()
            torch.cuda.synchronize()
        times = defaultdict(list)
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                times[e.name[:60]].append(e.time_range.end - e.time_range.start)
        row = {k: round(sum(v) / len(v), 2) for k, v in times.items() if len(v) >= 40}
        out[f"{name} T={T}"] = row
        print(name, T, json.dumps(row), flush=True)
Path(sys.argv[1]).write_text(json.dumps(out, indent=1))
