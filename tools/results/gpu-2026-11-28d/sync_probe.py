"""Does a LIF training step synchronize or allocate device memory? (per-call regression hunt)"""
import traceback
import torch
from flexsn_nn import LIFNode
dev = torch.device("cuda")
m = LIFNode(backend="triton").to(dev)
x = (torch.randn(8, 1 << 22, device=dev) + 0.5).requires_grad_()
g = torch.randn_like(x)
def step():
    x.grad = None
    m.reset()
    torch.autograd.backward([m(x)], [g])
for _ in range(30):
    step()
torch.cuda.synchronize()
s0 = torch.cuda.memory_stats()
torch.cuda.set_sync_debug_mode("error")
try:
    for _ in range(20):
        step()
    print("no sync")
except RuntimeError:
    traceback.print_exc(limit=-12)
torch.cuda.set_sync_debug_mode(0)
torch.cuda.synchronize()
s1 = torch.cuda.memory_stats()
print("device allocs", s1["num_device_alloc"] - s0["num_device_alloc"], "frees", s1["num_device_free"] - s0["num_device_free"])
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
    for _ in range(5):
        step()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12, max_name_column_width=60))
