"""Why do learnable-parameter neurons run slower back to back than their kernels? Look for syncs and allocations.

For each of bench_static's overhead neurons (T = 8, [8, 4, 64, 16384] fp32, training step as bench_static):
(1) one step under torch.cuda.set_sync_debug_mode("error"): the first synchronizing call's traceback;
(2) the caching allocator's device allocations (cudaMalloc) and frees over 20 back-to-back steps;
(3) the CUDA runtime/driver calls of 3 back-to-back steps (torch.profiler CPU side), by total host time.
"""
import collections, sys, traceback
import torch
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step

dev = torch.device("cuda")
x = torch.randn(8, 4, 64, (1 << 22) // 256, device=dev) + 0.5
g = torch.randn_like(x)
for name, m in overhead_neurons(64, dev).items():
    step = module_train_step(m, x, g)
    for _ in range(5): step()
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        step(); print(name, "sync check: no synchronizing call")
    except RuntimeError as e:
        print(name, "sync check: SYNC", str(e)[:200]); traceback.print_exc(limit=-12)
    finally:
        torch.cuda.set_sync_debug_mode(0)
    torch.cuda.synchronize()
    s0 = torch.cuda.memory_stats()
    for _ in range(20): step()
    torch.cuda.synchronize()
    s1 = torch.cuda.memory_stats()
    d = {k: s1.get(k, 0) - s0.get(k, 0) for k in ("num_device_alloc", "num_device_free", "num_alloc_retries", "num_sync_all_streams")}
    print(name, "allocator over 20 steps:", d)
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(3): step()
        torch.cuda.synchronize()
    agg = collections.defaultdict(lambda: [0, 0.0])
    for e in p.events():
        n = e.name
        if n.startswith(("cuda", "cu")) and e.device_type == torch.autograd.DeviceType.CPU:
            agg[n][0] += 1; agg[n][1] += e.cpu_time_total
    print(name, "runtime calls (3 steps):", sorted(((k, v[0], round(v[1], 1)) for k, v in agg.items()), key=lambda r: -r[2])[:10], flush=True)
