"""Where a learnable parameter's training cost over LIF with constants goes (CUDA), T = 8 and 32.

For bench_static's overhead neurons on [T, 4, 64, L] (NCL = 4,194,304 fp32): per call (alone, after a
synchronize; median of 41, 3 rounds in rotating order), back to back (40 steps, one synchronize:
GPU-bound), and each CUDA kernel of one step with its GPU time (torch.profiler).
"""
import json, os, statistics, sys
from pathlib import Path
import torch
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step

def per_call(fn, rep=41):
    for _ in range(5): fn()
    ts = []
    for _ in range(rep):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)

def b2b(fn, n=40):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(True), torch.cuda.Event(True)
    a.record()
    for _ in range(n): fn()
    b.record(); b.synchronize()
    return a.elapsed_time(b) / n

def kernels(fn):
    from torch.profiler import profile, ProfilerActivity
    for _ in range(3): fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn(); torch.cuda.synchronize()
    rows = []
    for e in p.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            rows.append((e.name[:70], round(e.device_time_total, 1)))
    return rows

out = Path(os.environ.get("OUT", "/tmp")) / "static_breakdown.json"
res = []
dev = torch.device("cuda")
for T in (8, 32):
    x = torch.randn(T, 4, 64, (1 << 22) // 256, device=dev) + 0.5
    g = torch.randn_like(x)
    ns = overhead_neurons(64, dev)
    steps = {k: module_train_step(m, x, g) for k, m in ns.items()}
    copy = per_call(lambda: x.clone())
    pc = {k: [] for k in steps}
    names = list(steps)
    for r in range(3):
        for k in names[r % len(names):] + names[: r % len(names)]:
            pc[k].append(per_call(steps[k]))
    for k, fn in steps.items():
        row = {"T": T, "neuron": k, "per_call_ms": [round(v, 4) for v in pc[k]], "b2b_ms": round(b2b(fn), 4),
               "copy_ms": round(copy, 4), "kernels_us": kernels(fn)}
        res.append(row)
        print(T, k, "per call", row["per_call_ms"], "b2b", row["b2b_ms"], "kernels", row["kernels_us"], flush=True)
out.write_text(json.dumps(res, indent=1))
