"""Where a per-call step's GPU time goes (#14): the GPU timeline of calls timed as tools/bench_per_call.py times them.

For each case, 15 calls (after warm-up) under torch.profiler; per call: from the start event's record on
the GPU to the first kernel, each kernel's duration, the gaps between kernels, and to the end event.
Writes gaps.json to argv[1]."""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import flexsn_nn
from flexsn_nn.surrogate import Sigmoid

sys.path.insert(0, "tools")
from bench_per_call import cores  # noqa: E402

NCL = 1 << 22
out = {}
spike = Sigmoid(4.0)
for case, T, mode in (("lif", 8, "inference"), ("lif", 32, "inference"), ("2x2", 32, "training"), ("lif", 8, "training")):
    core, ni, ns, no = cores(spike)[case]
    m = flexsn_nn.FlexSN(core, ni, ns, no).cuda()
    xs = [(torch.randn(T, NCL, device="cuda") + 0.5).requires_grad_(mode == "training") for _ in range(ni)]
    grads = [torch.ones_like(xs[0]) for _ in range(no)]

    def call():
        if mode == "inference":
            with torch.no_grad():
                m.reset(); m(*xs)
            return
        for x in xs:
            x.grad = None
        m.reset()
        o = m(*xs)
        o = o if isinstance(o, tuple) else (o,)
        torch.autograd.backward(list(o[:no]), grads)

    def clone():
        xs[0].detach().clone()

    for fn, label in ((call, f"{case}-{mode}-T{T}"), (clone, f"clone-T{T}")):
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for i in range(15):
                with torch.profiler.record_function(f"call{i}"):
                    fn()
                torch.cuda.synchronize()
        evs = [e for e in prof.events() if e.device_type.name == "CUDA"]
        cpu = {e.name: e for e in prof.events() if e.name.startswith("call")}
        rows = []
        for i in range(15):
            c = cpu[f"call{i}"]
            t0, t1 = c.time_range.start, c.time_range.end
            ks = sorted([e for e in evs if t0 <= e.time_range.start <= t1 + 5000], key=lambda e: e.time_range.start)
            if not ks:
                continue
            k_rows = [(e.name[:40], e.time_range.start - t0, e.time_range.end - e.time_range.start) for e in ks]
            rows.append(dict(cpu_us=t1 - t0, first_kernel_at_us=k_rows[0][1], kernels=k_rows,
                             gpu_end_us=max(e.time_range.end for e in ks) - t0))
        rows.sort(key=lambda r: r["gpu_end_us"])
        out[label] = rows[len(rows) // 2]
        print(label, json.dumps(out[label]), flush=True)
open(sys.argv[1], "w").write(json.dumps(out, indent=1))
