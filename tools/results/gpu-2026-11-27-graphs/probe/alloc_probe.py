import sys, time, json, statistics, os
sys.path.insert(0, "tools")
import torch
from per_call_floor import _variants
from bench_per_call import per_call

def host_us(fn, n=2000):
    best = 1e9
    for _ in range(3):
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(n): fn()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best

res = {}
for T in (8, 32):
    v = _variants(T, 1 << 22, torch.float32)
    x = torch.randn(T, 1 << 22, device="cuda")
    step = x.shape[1:]
    launch = v["launch"]
    ptrs = set()
    def alloc_then_launch():
        a = torch.empty_like(x); b = x.new_empty(*step)
        ptrs.add(a.data_ptr())
        launch()
    def alloc_keep_launch():  # allocate, launch into fixed buffers; allocation alive until return
        a = torch.empty_like(x); b = x.new_empty(*step)
        launch(); return a, b
    rows = {}
    for name, fn in [("clone", v["clone"]), ("launch", launch), ("alloc_then_launch", alloc_then_launch),
                     ("alloc_keep_launch", alloc_keep_launch), ("plan", v["plan"]), ("alloc_raw", v["alloc_raw"]), ("raw", v["raw"])]:
        rows[name] = statistics.median([per_call(fn, 10, 51) * 1e3 for _ in range(5)])
    rows["n_distinct_ptrs_alloc_then_launch"] = len(ptrs)
    rows["host_empty_like_us"] = host_us(lambda: torch.empty_like(x))
    rows["host_new_empty_step_us"] = host_us(lambda: x.new_empty(*step))
    rows["host_launch_us"] = host_us(launch, 200)
    res[T] = rows
    print(T, json.dumps(rows), flush=True)
print(torch.cuda.memory_stats().get("num_alloc_retries"), torch.cuda.memory_stats().get("segment.all.allocated"), torch.cuda.memory_stats().get("num_device_alloc"))
os.environ.get("OUT") and json.dump(res, open(os.environ["OUT"] + "/alloc_probe.json", "w"), indent=1)
