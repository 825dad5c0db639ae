"""Timeline of back-to-back training steps (torch.profiler): GPU kernels and host launch calls, µs from the first.

Cases: LIF with constants, the same plus one tiny torch kernel per step, and the per-channel
threshold LIF. Prints for 3 steps each kernel's GPU start/end and each launch call's host
start/end, so idle GPU gaps and blocking launches show.
"""
import sys
import torch
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step
from torch.profiler import profile, ProfilerActivity

dev = torch.device("cuda")
x = torch.randn(8, 4, 64, (1 << 22) // 256, device=dev) + 0.5
g = torch.randn_like(x)
tiny = torch.zeros(1, device=dev)
ns = overhead_neurons(64, dev)
lif = module_train_step(ns["lif_constants"], x, g)
cases = {"lif_constants": lif, "lif_plus_tiny": lambda: (lif(), tiny.add_(1)),
         "threshold_per_channel": module_train_step(ns["threshold_per_channel"], x, g)}
for name, step in cases.items():
    for _ in range(5): step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(4): step()
        torch.cuda.synchronize()
    ev = []
    for e in p.events():
        keep = e.device_type == torch.autograd.DeviceType.CUDA or e.name.startswith(("cuLaunch", "cudaLaunch", "cudaStreamWait", "cudaEvent", "cudaDeviceSync", "cudaStreamSync"))
        if keep:
            ev.append((e.time_range.start, e.time_range.end, "GPU" if e.device_type == torch.autograd.DeviceType.CUDA else f"cpu{e.thread}", e.name[:40]))
    ev.sort()
    t0 = ev[0][0]
    print("==", name)
    for s, en, where, n in ev:
        print(f"  {s - t0:9.1f} {en - t0:9.1f} {en - s:7.1f}  {where:10s} {n}")
