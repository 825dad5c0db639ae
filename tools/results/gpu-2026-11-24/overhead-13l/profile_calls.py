"""Where a per-call training step of a learnable decay spends the time a constant one does not.

Per call as tools/bench_static.py's overhead part times it (reset() + forward + backward after a
synchronize, [32, 16, 64, 4096] fp32), under torch.profiler: for each neuron, the GPU kernels of
one step with their durations, and per step (median of 9): host lead (step start to the first
kernel's start), kernel time, GPU idle between kernels, and the span (step start to last kernel end).
Also the plain per-call median of 61 (tools/bench_per_call.per_call) outside the profiler.
"""
import json
import statistics
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_per_call import per_call  # noqa: E402
from bench_static import plif_static  # noqa: E402

import flexsn_nn  # noqa: E402

dev = torch.device("cuda")
T, B, C, L = 32, 16, 64, 4096
x = torch.randn(T, B, C, L, device=dev) + 0.5
g = torch.randn_like(x)
w = torch.nn.Parameter(torch.zeros(C, 1, device=dev))
neurons = {
    "lif_constants": flexsn_nn.LIFNode(tau=2.0),
    "plif_scalar": flexsn_nn.ParametricLIFNode().to(dev),
    "plif_per_channel": flexsn_nn.FlexSN(plif_static, 1, 1, 1, static_inputs={"w": w}),
    "threshold_per_channel": flexsn_nn.LearnableThresholdLIFNode(threshold_shape=(C, 1)).to(dev),
}
result = {}
for name, m in neurons.items():
    params = list(m.parameters())
    xl = x.clone().requires_grad_(True)

    def step() -> None:
        xl.grad = None
        for p in params:
            p.grad = None
        m.reset()
        m(xl).backward(g)

    ms = per_call(step, 20, 61)
    steps = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(9):
            torch.cuda.synchronize()
            with record_function(f"step{i}"):
                step()
            torch.cuda.synchronize()
    events = prof.events()
    kernels = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
    for i in range(9):
        st = next(e for e in events if e.name == f"step{i}" and e.device_type == torch.autograd.DeviceType.CPU)
        s0 = st.time_range.start
        nxt = [e for e in events if e.name == f"step{i + 1}" and e.device_type == torch.autograd.DeviceType.CPU]
        s1 = nxt[0].time_range.start if nxt else float("inf")
        ks = sorted((k for k in kernels if s0 <= k.time_range.start < s1), key=lambda k: k.time_range.start)
        busy = sum(k.time_range.end - k.time_range.start for k in ks)
        span = ks[-1].time_range.end - s0
        steps.append(dict(lead=ks[0].time_range.start - s0, busy=busy, idle=span - busy - (ks[0].time_range.start - s0),
                          span=span, kernels=[(k.name[:60], round(k.time_range.end - k.time_range.start, 1)) for k in ks]))
    med = {k: statistics.median(s[k] for s in steps) for k in ("lead", "busy", "idle", "span")}
    result[name] = dict(per_call_ms=ms, **{f"{k}_us": round(v, 1) for k, v in med.items()}, kernels=steps[4]["kernels"])
    print(name, f"per call {ms * 1e3:.1f} us;", ", ".join(f"{k} {v:.1f} us" for k, v in med.items()), flush=True)
    for kname, dur in steps[4]["kernels"]:
        print(f"    {dur:8.1f} us  {kname}")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(result, indent=1))
