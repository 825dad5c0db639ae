"""bench_per_call's LIF call at T = 8 (FlexSN over its core, inference then training in one process),
with what each timed call does: plan answers, device allocations, host time, and a profile.

python per_call_probe.py TREE OUT_JSON [--train-only] [--threads-off]
TREE is the root whose packages/*/src and tools/ are imported (this tree or .ab/base).
"""
import json, sys, time
from pathlib import Path
tree = Path(sys.argv[1]).resolve()
sys.path[:0] = [str(p) for p in sorted((tree / "packages").glob("*/src"))] + [str(tree / "tools")]
import torch
import flexsn_nn
from flexsn_nn.surrogate import Sigmoid
from flexsn_runtime import launch_plan as lp
import bench_per_call as bpc

counts: dict = {}
def wrap(cls, name):
    real = getattr(cls, name)
    def run(self, *a, **k):
        r = real(self, *a, **k)
        key = f"{cls.__name__}.{name}:{'plan' if r is not None else 'None'}"
        counts[key] = counts.get(key, 0) + 1
        return r
    setattr(cls, name, run)
wrap(lp.LaunchPlan, "run"); wrap(lp.BackwardPlan, "run")

train_only = "--train-only" in sys.argv
if "--threads-off" in sys.argv:  # the backward on the calling thread (PyTorch API), as bench_per_call --autograd-threads off
    torch.autograd.set_multithreading_enabled(False)
T, ncl = 8, 1 << 22
xs = [torch.randn(T, ncl, device="cuda") + 0.5 for _ in range(2)]
t_copy = bpc.per_call(lambda: xs[0].clone(), 20, 61)
core, ni, ns, no = bpc.cores(Sigmoid(4.0))["lif"]
m = flexsn_nn.FlexSN(core, ni, ns, no).cuda()
fn = lambda *a: (m.reset(), m(*a))[1]
grads = [torch.ones_like(xs[0])]
rows = {"tree": str(tree), "train_only": train_only, "threads_off": "--threads-off" in sys.argv, "copy_ms": t_copy}
for mode in (("training",) if train_only else ("inference", "training")):
    leaves = [x.clone().requires_grad_(mode == "training") for x in xs[:ni]]
    def call():
        if mode == "inference":
            fn(*leaves); return
        for leaf in leaves:
            leaf.grad = None
        out = fn(*leaves)
        torch.autograd.backward([out], grads)
    with torch.set_grad_enabled(mode == "training"):
        call(); torch.cuda.synchronize()
        counts.clear()
        a0 = torch.cuda.memory_stats().get("num_device_alloc", 0)
        ms = bpc.per_call(call, 20, 61)
        a1 = torch.cuda.memory_stats().get("num_device_alloc", 0)
        plans = dict(counts)
        host = []
        for _ in range(41):
            torch.cuda.synchronize(); t0 = time.perf_counter(); call(); host.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        host.sort()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                call(); torch.cuda.synchronize()
        table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=12)
        ctable = prof.key_averages().table(sort_by="cpu_time_total", row_limit=12)
    rows[mode] = dict(ms=ms, copy_ratio=t_copy / ms, device_allocs_during_timing=a1 - a0, plans=plans,
                      host_us_median=host[20], host_us_p10=host[4], host_us_p90=host[36])
    print(mode, json.dumps(rows[mode]), flush=True)
    print(table); print(ctable)
Path(sys.argv[2]).write_text(json.dumps(rows, indent=1))
