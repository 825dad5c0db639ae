"""cProfile of per-call training steps on CUDA: each neuron's own time per function, minus LIF's (#13 diagnostic).
Steps as tools/bench_static.py's overhead part ([T, 16, 64, 4096] fp32, reset + forward + backward), a
synchronize after each (outside the step's functions). Also single host operations timed alone (min of 5 x 2000).
Usage: diffprof.py [T]
"""
import cProfile
import pstats
import sys
import timeit
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tools/
from bench_static import module_train_step, overhead_neurons  # noqa: E402


dev = torch.device("cuda")
T = int(sys.argv[1]) if len(sys.argv) > 1 else 8
B, C, L = 16, 64, 4096
x = torch.randn(T, B, C, L, device=dev) + 0.5
g = torch.randn_like(x)
neurons = overhead_neurons(C, dev)
res = {}
N = 300
for name, m in neurons.items():
    step = module_train_step(m, x, g)
    for _ in range(30):
        step()
    torch.cuda.synchronize()
    pr = cProfile.Profile()
    for _ in range(N):
        pr.enable()
        step()
        pr.disable()
        torch.cuda.synchronize()
    st = pstats.Stats(pr).stats
    res[name] = {f"{k[0].split('/')[-1]}:{k[1]}:{k[2]}": (v[1], v[2], v[3]) for k, v in st.items()}
    total = sum(v[2] for v in st.values()) / N * 1e6
    print(f"{name}: {total:.1f} us own time per step (profiled)", flush=True)
base = res["lif_constants"]
for name in list(neurons)[1:]:
    b = res[name]
    rows = []
    for k in set(base) | set(b):
        ca, cb = base.get(k, (0, 0, 0)), b.get(k, (0, 0, 0))
        rows.append(((cb[1] - ca[1]) / N * 1e6, k, ca[0] / N, cb[0] / N, (cb[2] - ca[2]) / N * 1e6))
    rows.sort(reverse=True)
    print(f"\n== {name} minus lif_constants: d own us/step, calls/step lif -> this, d cumulative us/step, function")
    for d, k, na, nb, dc in rows[:22]:
        print(f"{d:8.2f} {na:5.1f} -> {nb:5.1f} {dc:8.2f}  {k}")
buf = torch.empty(1024, device=dev)
zd = torch.zeros((), device=dev, requires_grad=True)
ops = {
    "torch.empty(1024) cuda": lambda: torch.empty(1024, dtype=torch.float32, device=dev),
    "buf.sum()": lambda: buf.sum(),
    "buf.view(16,64,1).sum((0,2))": lambda: buf.view(16, 64, 1).sum((0, 2)),
    "torch.empty_like(x)": lambda: torch.empty_like(x),
    "x.is_contiguous()": lambda: x.is_contiguous(),
}
print()
for k, f in ops.items():
    for _ in range(200):
        f()
    torch.cuda.synchronize()
    print(f"{k:34s} {min(timeit.repeat(f, number=2000, repeat=5)) / 2000 * 1e6:7.2f} us", flush=True)
    torch.cuda.synchronize()
