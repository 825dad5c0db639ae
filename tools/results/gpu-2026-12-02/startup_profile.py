"""One cold first training step of ParametricLIFNode under cProfile (main thread), FLEXSN_PREWARM from the environment.

Run in a fresh process with empty FLEXSN_CACHE_DIR and TRITON_CACHE_DIR; prints the step time and writes the
profile (cumulative, top 40) to argv[1]."""
import cProfile
import pstats
import sys
import time

import torch
import triton
import triton.language as tl

import flexsn_nn


@triton.jit
def noop(x):
    pass


x = torch.randn(8, 4096, device="cuda")
noop[(1,)](x)  # Triton's driver stubs and the CUDA context are not part of the measurement
torch.cuda.synchronize()
prof = cProfile.Profile()
t0 = time.perf_counter()
prof.enable()
m = flexsn_nn.ParametricLIFNode().cuda()
xr = x.clone().requires_grad_()
m(xr).sum().backward()
torch.cuda.synchronize()
prof.disable()
print({"training_s": time.perf_counter() - t0})
with open(sys.argv[1], "w") as f:
    pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(40)
