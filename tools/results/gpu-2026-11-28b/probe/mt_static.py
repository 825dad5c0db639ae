"""Back to back and per call, autograd's device thread on (PyTorch's default) and off, LIF with constants against
the learnable neurons (bench_static's overhead set, T = 8): is the learnable neurons' extra host time in the hand-off?"""
import statistics, sys
import torch
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step, back_to_back
from bench_per_call import per_call

dev = torch.device("cuda")
x = torch.randn(8, 16, 64, (1 << 22) // (16 * 64), device=dev) + 0.5
g = torch.randn_like(x)
steps = {k: module_train_step(m, x, g) for k, m in overhead_neurons(64, dev).items()}
names = list(steps)
res = {(k, mt): ([], []) for k in names for mt in (True, False)}
for r in range(4):
    for mt in (True, False) if r % 2 == 0 else (False, True):
        torch.autograd.set_multithreading_enabled(mt)
        for k in names[r % 4:] + names[: r % 4]:
            res[(k, mt)][0].append(per_call(steps[k], 5, 21))
            res[(k, mt)][1].append(back_to_back(steps[k], 5, 60))
torch.autograd.set_multithreading_enabled(True)
for (k, mt), (pc, bb) in res.items():
    print(f"{k:22s} mt={'on ' if mt else 'off'} per call {statistics.median(pc):.4f} {[round(v, 3) for v in pc]} b2b {statistics.median(bb):.4f} {[round(v, 3) for v in bb]}", flush=True)
