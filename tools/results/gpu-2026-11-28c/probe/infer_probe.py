"""Compiled convnet steps (default mode) on two trees: graph breaks, per-step host time, kernels (argv[3]: infer or train).

Run with PYTHONPATH over one tree's packages and that tree's tools/ on sys.path (argv[1] = tree root).
"""
import json, sys, time, warnings
sys.path.insert(0, sys.argv[1] + "/tools")
warnings.simplefilter("ignore")
import torch, torch._dynamo
from torch._dynamo.utils import counters
import bench_net
from bench_per_call import per_call

dev = torch.device("cuda")
make = bench_net.makers()
x = torch.randn(8, 64, 3, 32, 32, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
what = sys.argv[3] if len(sys.argv) > 3 else "infer"
out = {}
for impl in ("flexsn_compile_nofuse", "flexsn_compile"):
    counters.clear()
    net, fwd = bench_net.setup(impl, make, dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    def infer():
        bench_net.reset(net)
        if what == "train":
            loss = torch.nn.functional.cross_entropy(fwd(x), labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return
        with torch.no_grad():
            fwd(x)
    infer(); torch.cuda.synchronize()
    ms = per_call(infer, 5, 21)
    # host time of a step (no sync inside), median of 21
    hs = []
    for _ in range(21):
        torch.cuda.synchronize(); t0 = time.perf_counter(); infer(); hs.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize()
    hs.sort()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            infer()
        torch.cuda.synchronize()
    ka = prof.key_averages()
    rows = sorted(((e.key, round(e.device_time_total / 3, 1), round(e.cpu_time_total / 3, 1), e.count // 3) for e in ka), key=lambda r: -r[1])[:14]
    cpu_rows = sorted(((e.key, round(e.self_cpu_time_total / 3, 1), e.count // 3) for e in ka), key=lambda r: -r[1])[:14]
    out[impl] = {"ms": ms, "host_ms_median": hs[10], "graph_breaks": dict(counters["graph_break"]),
                 "stats": {k: dict(v) for k, v in counters.items() if k in ("stats", "inductor")}, "gpu_rows": rows, "cpu_rows": cpu_rows}
    print(sys.argv[1], what, impl, "ms", round(ms, 3), "host", round(hs[10], 3), "breaks", dict(counters["graph_break"]), flush=True)
    for r in rows[:10]:
        print("   gpu", r, flush=True)
    for r in cpu_rows[:10]:
        print("   cpu", r, flush=True)
json.dump(out, open(sys.argv[2], "w"), indent=1, default=str)
