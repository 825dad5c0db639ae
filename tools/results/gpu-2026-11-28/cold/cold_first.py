"""First training result in a fresh process (#13: "first result in a fresh process <= 1 s, cold disk cache").

One neuron per process (argv[1]: plif or lif), torch imported and CUDA initialised before the clock (a
training script has done both before it builds a layer). Times from before `import flexsn_nn`:
  import_s         importing flexsn_nn
  first_forward_s  construction, .cuda(), the first training forward, synchronised
  first_backward_s the first backward after it
argv[2] is a label for the cache state run.sh set up; argv[3] == "profile" adds a cProfile (top 45 by
cumulative time) before the JSON line. Also records which heavy modules the call imported.
"""
import cProfile, io, json, pstats, sys, time
import torch

x = torch.randn(8, 4096, device="cuda")
torch.cuda.synchronize()
before = set(sys.modules)
pr = cProfile.Profile() if sys.argv[3:] == ["profile"] else None
t0 = time.perf_counter()
if pr:
    pr.enable()
import flexsn_nn
t1 = time.perf_counter()
m = (flexsn_nn.ParametricLIFNode() if sys.argv[1] == "plif" else flexsn_nn.LIFNode()).cuda()
xr = x.clone().requires_grad_()
y = m(xr)
torch.cuda.synchronize()
t2 = time.perf_counter()
y.sum().backward()
torch.cuda.synchronize()
t3 = time.perf_counter()
if pr:
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(45)
    print(s.getvalue())
assert xr.grad is not None and m.uses_kernels(x)
heavy = sorted(n for n in ("sympy", "networkx", "torch._dynamo", "torch._inductor") if n in sys.modules and n not in before)
print(json.dumps({"neuron": sys.argv[1], "caches": sys.argv[2], "import_s": round(t1 - t0, 3),
                  "first_forward_s": round(t2 - t1, 3), "first_backward_s": round(t3 - t2, 3),
                  "total_s": round(t3 - t0, 3), "imported": heavy}))
