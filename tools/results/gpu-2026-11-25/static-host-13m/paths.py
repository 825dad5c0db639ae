"""Which launch path each call of a neuron takes on CUDA (#13 diagnostic): counts per 30 training steps of
the plans' builds and runs, the derived launches, and the cached launcher's hits and misses.
Usage: paths.py [T]
"""
import collections
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_static import module_train_step, overhead_neurons  # noqa: E402

from flexsn_runtime import launch_plan, op_autograd, scan_kernel  # noqa: E402

counts: collections.Counter = collections.Counter()


def counted(owner, name, label, result_label=None):
    real = getattr(owner, name)
    raw = real.__func__ if isinstance(real, classmethod) else real

    def wrapper(*a, **k):
        r = raw(*a, **k)
        counts[label] += 1
        if result_label is not None and r is None:
            counts[result_label] += 1
        return r

    setattr(owner, name, classmethod(wrapper) if isinstance(real, classmethod) else wrapper)


counted(launch_plan.LaunchPlan, "build", "LaunchPlan.build", "LaunchPlan.build->None")
counted(launch_plan.LaunchPlan, "run", "LaunchPlan.run", "LaunchPlan.run->None")
counted(launch_plan.BackwardPlan, "run", "BackwardPlan.run", "BackwardPlan.run->None")
counted(scan_kernel.ScanKernel, "prepared", "ScanKernel.prepared", "ScanKernel.prepared->None")
counted(scan_kernel.ScanKernel, "_launch_cuda", "ScanKernel._launch_cuda (derived launch)")
real_build = launch_plan.BackwardPlan.build.__func__


def bbuild(cls, *a, **k):
    r = real_build(cls, *a, **k)
    counts["BackwardPlan.build"] += 1
    if r is None:
        counts["BackwardPlan.build->None"] += 1
    return r


launch_plan.BackwardPlan.build = classmethod(bbuild)
real_launch_backward = op_autograd.launch_backward


def lb(*a, **k):
    counts["launch_backward (derived)"] += 1
    return real_launch_backward(*a, **k)


op_autograd.launch_backward = lb

dev = torch.device("cuda")
T = int(sys.argv[1]) if len(sys.argv) > 1 else 8
B, C, L = 16, 64, 4096
x = torch.randn(T, B, C, L, device=dev) + 0.5
g = torch.randn_like(x)
neurons = overhead_neurons(C, dev)
for name, m in neurons.items():
    step = module_train_step(m, x, g)
    for i in range(40):
        if i == 10:
            torch.cuda.synchronize()
            counts.clear()
        step()
    torch.cuda.synchronize()
    print(name, dict(sorted(counts.items())), flush=True)
