"""Where a per-call PLIF training step spends GPU time: torch.profiler over 5 calls (after warm-up).

Each call as tools/bench_static.py times it: reset() + forward + backward with a random output gradient,
grads set to None. Prints the kernel table and the per-call GPU-idle gaps (kernel start minus previous end).
"""
import json
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import flexsn_nn

T = int(sys.argv[1]) if len(sys.argv) > 1 else 32
ncl = 1 << 22
dev = torch.device("cuda")
m = flexsn_nn.ParametricLIFNode(init_tau=2.0).to(dev)
x = (torch.randn(T, ncl, device=dev) + 0.5).requires_grad_()
g = torch.randn(T, ncl, device=dev)


def step() -> None:
    x.grad = None
    m.w.grad = None
    m.reset()
    m(x).backward(g)


for _ in range(20):
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        torch.cuda.synchronize()
        step()
        torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=15, max_name_column_width=60))
events = [e for e in prof.events() if e.device_type.name == "CUDA"]
rows = [{"name": e.name[:80], "start_us": e.time_range.start, "dur_us": e.time_range.elapsed_us()} for e in events]
rows.sort(key=lambda r: r["start_us"])
out = os.environ.get("OUT", ".")
with open(os.path.join(out, f"plif_profile_T{T}.json"), "w") as f:
    json.dump(rows, f, indent=1)
for r in rows[-12:]:
    print(f"{r['start_us'] - rows[0]['start_us']:12.1f} us  {r['dur_us']:9.1f} us  {r['name']}")
