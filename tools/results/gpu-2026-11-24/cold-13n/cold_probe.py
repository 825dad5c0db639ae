"""Where the first training step's time goes in a fresh process with cold caches (#13), and whether
Triton compiles run in parallel on threads.

Run one mode per fresh process, caches empty (FLEXSN_CACHE_DIR, TRITON_CACHE_DIR set by run.sh):
  profile   ParametricLIFNode: construction, first inference, then the first training step under
            cProfile; every triton compile timed (kernel name, seconds); prints JSON + profile text
  seq / par two neurons (ParametricLIFNode with Sigmoid and with ATan): inference, training traces
            built (ensure_training_kernels, no compile), then the first training step of each,
            one after the other (seq) or on two threads (par): compile + launch only
"""
import cProfile, io, json, os, pstats, sys, threading, time
import torch, triton, triton.language as tl
import flexsn_nn
from flexsn_nn import surrogate
from flexsn_runtime import ensure_training_kernels

COMPILES = []
import triton.compiler.compiler as tcc
_orig = tcc.compile
def timed_compile(src, *a, **k):
    t = time.perf_counter(); r = _orig(src, *a, **k)
    COMPILES.append({"name": getattr(getattr(src, "fn", None), "__name__", "?"), "s": round(time.perf_counter() - t, 3),
                     "thread": threading.current_thread().name})
    return r
tcc.compile = timed_compile
import triton.compiler as tc
tc.compile = timed_compile

@triton.jit
def noop(x):
    pass

mode = sys.argv[1]
x = torch.randn(8, 4096, device="cuda")
noop[(1,)](x)
torch.cuda.synchronize()
res = {"mode": mode}
t0 = time.perf_counter()
if mode == "profile":
    m = flexsn_nn.ParametricLIFNode().cuda()
    with torch.no_grad():
        float(m(x).sum())
    t1 = time.perf_counter()
    m.reset()
    xr = x.clone().requires_grad_()
    pr = cProfile.Profile(); pr.enable()
    y = m(xr); torch.cuda.synchronize(); t2 = time.perf_counter()
    y.sum().backward(); torch.cuda.synchronize()
    pr.disable()
    t3 = time.perf_counter()
    res.update(inference_s=t1 - t0, training_forward_s=t2 - t1, training_backward_s=t3 - t2, compiles=COMPILES)
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(70)
    s2 = io.StringIO(); pstats.Stats(pr, stream=s2).sort_stats("tottime").print_stats(25)
    open(os.path.join(os.environ["OUT"], "profile.txt"), "w").write(s.getvalue() + "\n\n" + s2.getvalue())
else:
    ms = [flexsn_nn.ParametricLIFNode(surrogate_function=sg).cuda() for sg in (surrogate.Sigmoid(), surrogate.ATan())]
    with torch.no_grad():
        for m in ms:
            float(m(x).sum())
    for m in ms:
        ensure_training_kernels(m.kernel.handle)
    t1 = time.perf_counter()
    def step(m):
        m.reset(); m(x.clone().requires_grad_()).sum().backward(); torch.cuda.synchronize()
    if mode == "seq":
        for m in ms:
            step(m)
    else:
        th = [threading.Thread(target=step, args=(m,), name=f"t{i}") for i, m in enumerate(ms)]
        for t in th: t.start()
        for t in th: t.join()
    t2 = time.perf_counter()
    res.update(setup_s=t1 - t0, first_training_steps_s=t2 - t1, compiles=COMPILES)
print(json.dumps(res))
