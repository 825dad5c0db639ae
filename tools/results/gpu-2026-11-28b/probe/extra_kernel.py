"""What does one small extra kernel per training step cost? LIF with constants, T = 8, NCL = 4,194,304, fp32.

Variants (same step, one more thing at its end): a torch kernel (tiny.add_), the same op on a
CPU tensor (host cost only), a Triton kernel of ours of one element, a torch kernel on the
autograd thread (a hook on the input's gradient), and the per-channel threshold LIF for reference.
Per call: CUDA events around one step after a synchronize (bench_static's timing), median of 41;
back to back: 40 steps, one synchronize. 4 rounds, order rotated each round.
"""
import statistics, sys
import torch, triton, triton.language as tl
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step

@triton.jit
def _one(p):
    tl.store(p, tl.load(p) + 1.0)

dev = torch.device("cuda")
x = torch.randn(8, 4, 64, (1 << 22) // 256, device=dev) + 0.5
g = torch.randn_like(x)
tiny, tiny_cpu = torch.zeros(1, device=dev), torch.zeros(1)
ns = overhead_neurons(64, dev)
lif = module_train_step(ns["lif_constants"], x, g)
m = ns["lif_constants"]
xl = x.clone().requires_grad_(True)
xl.register_hook(lambda gr: (tiny.add_(1), gr)[1])
def hooked():
    xl.grad = None; m.reset(); m(xl).backward(g)
cases = {
    "lif": lif,
    "lif+torch_kernel": lambda: (lif(), tiny.add_(1)),
    "lif+cpu_op": lambda: (lif(), tiny_cpu.add_(1)),
    "lif+triton_kernel": lambda: (lif(), _one[(1,)](tiny)),
    "lif+kernel_in_backward": hooked,
    "threshold_per_channel": module_train_step(ns["threshold_per_channel"], x, g),
}
def per_call(fn, rep=41):
    ts = []
    for _ in range(rep):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
def b2b(fn, n=40):
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(True), torch.cuda.Event(True)
    a.record()
    for _ in range(n): fn()
    b.record(); b.synchronize(); return a.elapsed_time(b) / n
for fn in cases.values():
    for _ in range(5): fn()
res = {k: ([], []) for k in cases}
names = list(cases)
for r in range(4):
    for k in names[r:] + names[:r]:
        res[k][0].append(per_call(cases[k])); res[k][1].append(b2b(cases[k]))
for k, (pc, bb) in res.items():
    print(f"{k:24s} per call {statistics.median(pc):.4f} ms {[round(v, 3) for v in pc]}  b2b {statistics.median(bb):.4f} {[round(v, 3) for v in bb]}", flush=True)
