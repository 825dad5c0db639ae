"""Where a learnable parameter's per-call cost at T = 8 goes (#13): constants against static inputs.

For each neuron of tools/bench_static.py's overhead part at T = 8 ([8, 16, 64, 4096] fp32, training,
reset() + forward + backward): the per-call median (tools/bench_per_call.per_call), the host time
of a step with no synchronize inside it (median), the host stamps of the two launches
(tools/host_probe._timeline), the GPU kernels of a step with their start times relative to the
first kernel (torch.profiler; gaps = GPU idle waiting for the host), and any synchronizing CUDA
call the step makes (torch.cuda.set_sync_debug_mode).
The neurons alternate in --rounds rounds (a shared host's speed moves 2x within a minute); each
round's per-call time of a neuron is also divided by LIF's of the same round (``over_constants``).
Usage: probe.py OUT.json [T] [rounds]
"""
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_per_call import per_call  # noqa: E402
from bench_static import module_train_step, overhead_neurons  # noqa: E402
from host_probe import _timeline  # noqa: E402


dev = torch.device("cuda")
T = int(sys.argv[2]) if len(sys.argv) > 2 else 8
B, C, L = 16, 64, 4096
x = torch.randn(T, B, C, L, device=dev) + 0.5
g = torch.randn_like(x)
neurons = overhead_neurons(C, dev)
t_copy = per_call(lambda: x.clone(), 20, 61)
result: dict = {"T": T, "copy_ms": t_copy}
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
for rnd in range(rounds):
    for name, m in neurons.items():
        step = module_train_step(m, x, g)
        ms = per_call(step, 10, 31)
        host = []
        for _ in range(21):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            step()
            host.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        row = result.setdefault(name, {"per_call_ms": [], "copy_ratio": [], "host_us": [], "over_constants": []})
        row["per_call_ms"].append(round(ms, 4))
        row["over_constants"].append(round(ms / result["lif_constants"]["per_call_ms"][rnd] - 1, 4))
        row["copy_ratio"].append(round(t_copy / ms, 4))
        row["host_us"].append(round(statistics.median(host), 1))
        if rnd == 0:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
                step()
                torch.cuda.set_sync_debug_mode(0)
            row["syncs"] = [str(c.message)[:160] for c in caught]
            row["timeline_us"] = _timeline(m, x.clone().requires_grad_(True), g, 40, None)
            with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
                for _ in range(5):
                    torch.cuda.synchronize()
                    step()
                torch.cuda.synchronize()
            ks = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                         and not e.name.startswith("ProfilerStep")), key=lambda e: e.time_range.start)
            n_per = len(ks) // 5
            last = ks[-n_per:]
            k0 = last[0].time_range.start
            row["kernels"] = [(k.name[:50], round(k.time_range.start - k0, 1), round(k.time_range.end - k.time_range.start, 1)) for k in last]
            ops = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
            row["cpu_ops"] = ops.splitlines()
        if rnd == 0:
            print(name, json.dumps({k: v for k, v in row.items() if k not in ("cpu_ops",)}), flush=True)
for name in neurons:
    row = result[name]
    row["median_over_constants"] = statistics.median(row["over_constants"])
    row["median_copy_ratio"] = statistics.median(row["copy_ratio"])
    print(f"{name:24s} per call median {statistics.median(row['per_call_ms']):.4f} ms, copy ratio {row['median_copy_ratio']:.3f}, "
          f"over constants median {row['median_over_constants']:+.3f} (rounds {row['over_constants']})", flush=True)
Path(sys.argv[1]).write_text(json.dumps(result, indent=1))
