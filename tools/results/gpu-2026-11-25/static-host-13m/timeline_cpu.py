"""Host time of a training step on the CPU with kernel launches stubbed out (#13): exact stage stamps, no GPU noise.

Median microseconds from step start to the forward launch, the autograd forward, the module return,
the autograd backward, the backward launch and the step end, for LIF with constants and three
neurons with static inputs ([8, 2, 64, 4] fp32; launches do nothing). Run with TRITON_INTERPRET=1:
    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) TRITON_INTERPRET=1 python timeline_cpu.py [neuron ...]
"""
import time, sys, statistics
import torch
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # tools/
from flexsn_runtime import scan_kernel, op_autograd
from bench_static import overhead_neurons
stamps = []
now = time.perf_counter_ns
cnt = {"n": 0}
def stamp_launch():
    stamps.append(("fwd_launch" if cnt["n"] % 2 == 0 else "bwd_launch", now())); cnt["n"] += 1
def noop_launch(self, *a, **k):
    stamp_launch()
scan_kernel.ScanKernel.launch = noop_launch
def prepared(self, *a, **k):
    def l(tensors):
        stamp_launch(); return True
    return l
scan_kernel.ScanKernel.prepared = prepared
cls = op_autograd.EagerTraining
rf, rb = cls.forward, cls.backward
def fwd(ctx, *a):
    stamps.append(("autograd_fwd", now())); r = rf(ctx, *a); stamps.append(("autograd_fwd_done", now())); return r
def bwd(ctx, *a):
    stamps.append(("autograd_bwd", now())); r = rb(ctx, *a); stamps.append(("autograd_bwd_done", now())); return r
cls.forward, cls.backward = staticmethod(fwd), staticmethod(bwd)
T, B, C, L = 8, 2, 64, 4
x = torch.randn(T, B, C, L) + 0.5
g = torch.randn_like(x)
neurons = overhead_neurons(C, torch.device("cpu"))
only = sys.argv[1:]
for name, m in neurons.items():
    if only and name not in only: continue
    params = list(m.parameters())
    xl = x.clone().requires_grad_(True)
    rows = []
    for i in range(2000):
        stamps.clear(); cnt["n"] = 0
        t0 = now()
        xl.grad = None
        for p in params: p.grad = None
        m.reset()
        out = m(xl)
        stamps.append(("module_done", now()))
        out.backward(g)
        stamps.append(("step_done", now()))
        if i >= 200:
            rows.append({k: (t - t0) / 1e3 for k, t in stamps})
    keys = list(rows[0])
    print(f"{name:24s}", "  ".join(f"{k} {statistics.median(r[k] for r in rows):6.1f}" for k in keys))
