"""Which paths a steady-state LIF training call takes (T = 8, fp32, NCL = 4M), and its per-call time.

Run with PYTHONPATH on a tree's packages/*/src; counts the calls of each path over 40 timed calls.
"""
import collections
import json
import sys
import time

import torch

sys.path.insert(0, "tools")
from bench_per_call import per_call  # noqa: E402
from flexsn_runtime import launch_plan, op_autograd, scan_kernel  # noqa: E402
import flexsn_nn  # noqa: E402
from flexsn_nn.surrogate import Sigmoid  # noqa: E402

counts = collections.Counter()


def spy(owner, name, label, result=False):
    real = getattr(owner, name)

    def wrapped(*a, **k):
        r = real(*a, **k)
        counts[label + ("" if not result else ("=None" if r is None or r is False else "=ok"))] += 1
        return r

    setattr(owner, name, wrapped)


spy(launch_plan.LaunchPlan, "run", "LaunchPlan.run", True)
spy(launch_plan.BackwardPlan, "run", "BackwardPlan.run", True)
spy(op_autograd, "derived_backward", "derived_backward")
spy(op_autograd, "training_impl", "training_impl")
spy(scan_kernel.ScanKernel, "launch", "ScanKernel.launch")
spy(scan_kernel.ScanKernel, "prepared", "ScanKernel.prepared", True)

T = int(sys.argv[1]) if len(sys.argv) > 1 else 8
dtype = torch.float32 if (sys.argv[2] if len(sys.argv) > 2 else "fp32") == "fp32" else torch.bfloat16
spike = Sigmoid(4.0)


def lif(x, v):
    h = v + (x - v) / 2.0
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


m = flexsn_nn.FlexSN(lif, 1, 1, 1).cuda()
x = (torch.randn(T, 1 << 22, device="cuda") + 0.5).to(dtype).requires_grad_(True)
g = torch.ones_like(x)


def call():
    x.grad = None
    m.reset()
    out = m(x)
    torch.autograd.backward([out], [g])


for _ in range(30):
    call()
torch.cuda.synchronize()
counts.clear()
for _ in range(40):
    call()
torch.cuda.synchronize()
steady = dict(counts)
t_copy = per_call(lambda: x.detach().clone(), 10, 61)
ms = per_call(call, 10, 61)
t0 = time.perf_counter()
for _ in range(200):
    call()
torch.cuda.synchronize()
b2b = (time.perf_counter() - t0) / 200 * 1e3
print(json.dumps({"T": T, "dtype": str(dtype), "per_40_calls": steady, "per_call_ms": round(ms, 4),
                  "copy_ratio": round(t_copy / ms, 3), "back_to_back_ms": round(b2b, 4)}))
