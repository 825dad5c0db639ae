#!/usr/bin/env python3
"""Where the convnet's inference step spends its GPU time, with and without the template lowering (#16).

One variant per process (``--impl`` flexsn_compile: the neighbour pass on; flexsn_compile_nofuse: off; ``--template``:
FlexSN's inference scans lowered to Inductor templates). Inductor's and AOTAutograd's caches are off, so each
compile asks the lowering. Default mode (not CUDA graphs), so the profiler names every kernel: the CUDA time of
each kernel name summed over ``--steps`` profiled steps, divided by the steps; the back-to-back step time; the
Inductor output code of the step (the template's kernel source in it).
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch

torch._inductor.config.fx_graph_cache = False
torch._functorch.config.enable_autograd_cache = False
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_net import make_step, makers, setup  # noqa: E402
from bench_per_call import back_to_back  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--impl", default="flexsn_compile")
ap.add_argument("--template", action="store_true")
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--out", required=True)
args = ap.parse_args()
import flexsn_hop  # noqa: E402

if args.template:
    assert flexsn_hop.enable_template_lowering(True)
dev = torch.device("cuda")
net, fwd = setup(args.impl, makers(), dev)
x = torch.randn(8, 64, 3, 32, 32, device=dev)
step = make_step(net, fwd, x, torch.randint(0, 10, (64,), device=dev), "infer")
from torch._inductor.utils import run_and_get_code  # noqa: E402

_, codes = run_and_get_code(step)
name = f"{args.impl}{'_template' if args.template else ''}"
out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)
(out / f"{name}_code.py.txt").write_text("\n\n# ----\n\n".join(codes))
b2b = [back_to_back(step, 3, 50) for _ in range(3)]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
per: dict[str, float] = defaultdict(float)
count: dict[str, int] = defaultdict(int)
for e in prof.events():
    if e.device_type == torch.autograd.DeviceType.CUDA:
        per[e.name] += e.device_time_total / args.steps
        count[e.name] += 1
rows = sorted(({"kernel": k[:120], "us_per_step": round(v, 2), "calls_per_step": count[k] / args.steps} for k, v in per.items()),
              key=lambda r: -r["us_per_step"])
res = {"impl": args.impl, "template": args.template, "b2b_ms": b2b, "gpu_us_per_step": round(sum(per.values()), 1), "kernels": rows}
(out / f"{name}.json").write_text(json.dumps(res, indent=1))
print(name, "b2b", [round(b, 3) for b in b2b], "gpu us", res["gpu_us_per_step"])
for r in rows[:14]:
    print(f"  {r['us_per_step']:8.2f} {r['calls_per_step']:4.1f}  {r['kernel']}")
