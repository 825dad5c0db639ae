"""Which launches of a LIF training step come from plans (LaunchPlan.run / BackwardPlan.run answers), and per-call ms."""
import torch
from flexsn_runtime import launch_plan as lp
from flexsn_nn import LIFNode
counts = {}
def wrap(cls, name):
    real = getattr(cls, name)
    def run(self, *a, **k):
        r = real(self, *a, **k)
        key = f"{cls.__name__}.{name}:{'plan' if r is not None else 'None'}"
        counts[key] = counts.get(key, 0) + 1
        return r
    setattr(cls, name, run)
wrap(lp.LaunchPlan, "run"); wrap(lp.BackwardPlan, "run")
dev = torch.device("cuda")
m = LIFNode(backend="triton").to(dev)
x = (torch.randn(8, 1 << 22, device=dev) + 0.5).requires_grad_()
g = torch.randn_like(x)
def step():
    x.grad = None
    m.reset()
    torch.autograd.backward([m(x)], [g])
for _ in range(20):
    step()
print("after warm-up", counts); counts.clear()
ts = []
for _ in range(41):
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); step(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
print("timed", counts, "median ms", sorted(ts)[20])
