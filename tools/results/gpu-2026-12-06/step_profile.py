"""Where a per-call training step's time goes on the GPU: LIF with constants against PLIF (T = 8, fp32, NCL = 4M).

Each step is timed alone (synchronize, then reset + forward + backward), as tools/bench_static.py's
overhead part does; torch.profiler records five steps per neuron after a warm-up. Printed per
step: every GPU kernel (start and duration, microseconds from the step's first host event) and
the host's FlexSN markers (record_function ranges around the step's phases).
"""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function

sys.path.insert(0, "tools")
from bench_per_call import per_call  # noqa: E402
from bench_static import overhead_neurons  # noqa: E402

import os
DEV = torch.device(os.environ.get("DEV", "cuda"))
T, B, C = 8, 16, 64
L = int(os.environ.get("L", (1 << 22) // (B * C)))
x = torch.randn(T, B, C, L, device=DEV) + 0.5
g = torch.randn_like(x)
t_copy = per_call(lambda: x.clone(), 10, 61)
out = {}
for name, m in overhead_neurons(C, DEV).items():
    params = list(m.parameters())
    xl = x.clone().requires_grad_(True)

    def step():
        xl.grad = None
        for p in params:
            p.grad = None
        with record_function("fwd"):
            m.reset()
            y = m(xl)
        with record_function("bwd"):
            torch.autograd.backward([y], [g])

    ms = per_call(step, 20, 61)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            torch.cuda.synchronize()
            with record_function("step"):
                step()
            torch.cuda.synchronize()
    evs = [e for e in prof.events() if e.name in ("step", "fwd", "bwd") or e.device_type == torch.autograd.DeviceType.CUDA]
    steps = sorted([e for e in evs if e.name == "step"], key=lambda e: e.time_range.start)
    rows = []
    for s in steps[1:]:
        t0, t1 = s.time_range.start, s.time_range.end
        inside = [e for e in evs if e is not s and t0 <= e.time_range.start <= t1 + 400]
        rows.append([(e.name[:40], "gpu" if e.device_type == torch.autograd.DeviceType.CUDA else "cpu",
                      round(e.time_range.start - t0, 1), round(e.time_range.end - e.time_range.start, 1))
                     for e in sorted(inside, key=lambda e: e.time_range.start)])
    out[name] = {"per_call_us": round(ms * 1e3, 1), "copy_ratio": round(t_copy / ms, 3), "steps": rows[:2]}
    print(name, out[name]["per_call_us"], out[name]["copy_ratio"])
    for r in rows[:2]:
        print("   ", r)
json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/step_profile.json", "w"), indent=1)
