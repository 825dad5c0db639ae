"""Where the first training result's time goes in a fresh process (#13, first result <= 1 s).

One neuron per process, FlexSN's and Triton's caches empty (run.sh). torch and (mode "aot-imported")
AOTAutograd are imported before the clock. cProfile covers `import flexsn_nn`, construction, `.cuda()`,
the first training forward and backward; the top entries by cumulative time are printed, then one JSON
line with the wall times and whether torch's compiler was imported by the call.
"""
import cProfile, io, json, pstats, sys, time
import torch

mode = sys.argv[2]
if mode == "aot-imported":
    import functorch.compile  # noqa: F401
    import torch._functorch.partitioners  # noqa: F401
x = torch.randn(8, 4096, device="cuda")
torch.cuda.synchronize()
pr = cProfile.Profile()
t0 = time.perf_counter()
pr.enable()
import flexsn_nn
m = (flexsn_nn.ParametricLIFNode() if sys.argv[1] == "plif" else flexsn_nn.LIFNode()).cuda()
xr = x.clone().requires_grad_()
y = m(xr)
torch.cuda.synchronize()
t1 = time.perf_counter()
y.sum().backward()
torch.cuda.synchronize()
pr.disable()
t2 = time.perf_counter()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(70)
print(s.getvalue())
print(json.dumps({"neuron": sys.argv[1], "mode": mode, "forward_s": round(t1 - t0, 3),
                  "backward_s": round(t2 - t1, 3), "dynamo_imported": "torch._dynamo" in sys.modules,
                  "inductor_imported": "torch._inductor" in sys.modules}))
