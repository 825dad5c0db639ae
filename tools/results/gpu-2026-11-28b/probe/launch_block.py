"""Host time of each Triton launch back to back (no profiler): does cuLaunchKernelEx block, and when?

Wraps the launch plans' launchers (ScanKernel.prepared) to time each call with perf_counter, and
records each compiled kernel's registers, spills and shared memory. Steps: bench_static's
training step, 30 back to back after a warm-up; also LIF with constants plus one tiny torch
kernel per step (does a foreign kernel between ours make our launches block?).
"""
import statistics, sys, time
import torch
sys.path.insert(0, "tools")
from bench_static import overhead_neurons, module_train_step
from flexsn_runtime import scan_kernel

TIMES: list[tuple[str, float]] = []
real_prepared = scan_kernel.ScanKernel.prepared
def prepared(self, *a, **k):
    run = real_prepared(self, *a, **k)
    if run is None: return None
    def timed(tensors):
        t0 = time.perf_counter(); ok = run(tensors); TIMES.append((self.name if hasattr(self, "name") else "k", (time.perf_counter() - t0) * 1e6)); return ok
    return timed
scan_kernel.ScanKernel.prepared = prepared
real_direct = scan_kernel._direct_launcher
def direct(compiled, *a, **k):
    md = compiled.metadata
    print("  compiled", md.name, "regs", compiled.n_regs, "spills", compiled.n_spills, "shared", md.shared, "warps", md.num_warps, flush=True)
    return real_direct(compiled, *a, **k)
scan_kernel._direct_launcher = direct

dev = torch.device("cuda")
x = torch.randn(8, 4, 64, (1 << 22) // 256, device=dev) + 0.5
g = torch.randn_like(x)
tiny = torch.zeros(1, device=dev)
ns = overhead_neurons(64, dev)
cases = {k: module_train_step(m, x, g) for k, m in ns.items()}
lif = cases["lif_constants"]
cases["lif_plus_tiny_kernel"] = lambda: (lif(), tiny.add_(1))
for name, step in cases.items():
    print(name, flush=True)
    for _ in range(5): step()
    for mode in ("b2b", "per_call"):
        torch.cuda.synchronize(); TIMES.clear()
        t0 = time.perf_counter()
        for _ in range(30):
            if mode == "per_call": torch.cuda.synchronize()
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) / 30 * 1e3
        fw = [t for i, (_, t) in enumerate(TIMES) if i % 2 == 0]; bw = [t for i, (_, t) in enumerate(TIMES) if i % 2 == 1]
        print(f"  {mode}: {wall:.3f} ms/step; launch host µs fwd median {statistics.median(fw):.1f} max {max(fw):.1f}; bwd median {statistics.median(bw):.1f} max {max(bw):.1f}", flush=True)
