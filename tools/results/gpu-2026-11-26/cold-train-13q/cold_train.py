"""First training result in a fresh process (#13: "first result in a fresh process <= 1 s, cold disk cache").

One neuron per process, FlexSN's and Triton's caches empty (run.sh). Times, from before `import flexsn_nn`:
  import_s        importing flexsn_nn (torch already imported: a training script imports it first)
  first_forward_s construction, .cuda(), the first training forward (its result synchronised)
  first_backward_s the first backward after it
  check_s         the training trace's shape check (second AOT trace), inside first_forward_s
Second argument: "cold", or "aot-imported": torch's AOTAutograd machinery (functorch.compile, its
partitioners, networkx) imported before the clock starts, to show that import's share.
"""
import json, sys, time
import torch

if sys.argv[2] == "aot-imported":
    import functorch.compile  # noqa: F401
    import torch._functorch.partitioners  # noqa: F401
x = torch.randn(8, 4096, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
import flexsn_nn
from flexsn_runtime import builders

CHECK = []
_orig = builders._check_training_shape_free
def timed(*a, **k):
    t = time.perf_counter()
    try:
        return _orig(*a, **k)
    finally:
        CHECK.append(time.perf_counter() - t)
builders._check_training_shape_free = timed
t1 = time.perf_counter()
neuron = sys.argv[1]
m = (flexsn_nn.ParametricLIFNode() if neuron == "plif" else flexsn_nn.LIFNode()).cuda()
xr = x.clone().requires_grad_()
y = m(xr)
torch.cuda.synchronize()
t2 = time.perf_counter()
y.sum().backward()
torch.cuda.synchronize()
t3 = time.perf_counter()
assert xr.grad is not None and m.uses_kernels(x)
print(json.dumps({"neuron": neuron, "mode": sys.argv[2], "import_s": round(t1 - t0, 3),
                  "first_forward_s": round(t2 - t1, 3), "first_backward_s": round(t3 - t2, 3),
                  "total_s": round(t3 - t0, 3), "check_s": [round(c, 3) for c in CHECK]}))
