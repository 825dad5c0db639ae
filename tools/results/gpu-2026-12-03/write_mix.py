"""Why the 2x2 training forward runs at ~76% of copy bandwidth per byte while its backward runs at ~98% (#14).

gaps.json (gpu-2026-12-02) timed the 2x2 (adaptive LIF) training call at T = 32: forward kernel 836 us for
5 [T, NCL] passes (reads x, g; writes s, h, a), backward 907 us for 7 (reads ds, dh, g, a, h; writes dx, dg);
x.clone() 255 us for 2. This probe separates the causes, H200, fp32, NCL = 4,194,304, T = 32, do_bench:

* ``stream``: a minimal Triton scan of our kernels' shape (one program per BLOCK neurons, a loop over T,
  R loads and W stores per step) for several (R, W) mixes; ``flat``: the same bytes as one elementwise
  kernel over [T * NCL] (no time loop); ``shifted``: the scan with every tensor offset inside one buffer
  (rules out the tensors' equal alignment);
* ``fwd``/``inf``: the 2x2 training forward and inference kernels through FlexSN, at BLOCK_NCL / num_warps
  settings (``ScanKernel.persist_config``) around the default 1024 / 4.

Each row: microseconds, passes, and the ratio of (passes / 2) * clone time to its time (1.0 = clone's
bandwidth per byte). Writes write_mix.json to argv[1].
"""
import json
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

dev = "cuda" if torch.cuda.is_available() else "cpu"  # the CPU (TRITON_INTERPRET=1, tiny sizes) only checks the script
T, NCL = (32, 1 << 22) if dev == "cuda" else (3, 4096)


@triton.jit
def _stream(x0, x1, x2, y0, y1, y2, T, NCL, R: tl.constexpr, W: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NCL
    for t in range(T):
        base = tl.cast(t, tl.int64) * NCL
        a = tl.load(x0 + base + offs, mask=mask)
        if R >= 2:
            a += tl.load(x1 + base + offs, mask=mask)
        if R >= 3:
            a += tl.load(x2 + base + offs, mask=mask)
        tl.store(y0 + base + offs, a, mask=mask)
        if W >= 2:
            tl.store(y1 + base + offs, a * 2.0, mask=mask)
        if W >= 3:
            tl.store(y2 + base + offs, a * 3.0, mask=mask)


@triton.jit
def _flat(x0, x1, x2, y0, y1, y2, N, R: tl.constexpr, W: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.cast(tl.program_id(0), tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(x0 + offs, mask=mask)
    if R >= 2:
        a += tl.load(x1 + offs, mask=mask)
    if R >= 3:
        a += tl.load(x2 + offs, mask=mask)
    tl.store(y0 + offs, a, mask=mask)
    if W >= 2:
        tl.store(y1 + offs, a * 2.0, mask=mask)
    if W >= 3:
        tl.store(y2 + offs, a * 3.0, mask=mask)


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


def bench(fn):
    if dev == "cpu":
        fn()
        return 1.0
    return do_bench(fn, warmup=50, rep=300, return_mode="median") * 1e3


rows = []
x = torch.randn(T, NCL, device=dev)
clone_us = bench(lambda: x.clone())
rows.append(("clone", 2, clone_us))


def add(name, passes, us):
    rows.append((name, passes, us))
    print(f"{name:32s} {us:8.1f} us  passes {passes}  ratio {(passes / 2) * clone_us / us:.3f}", flush=True)


n = T * NCL
for R, W in ((1, 1), (2, 2), (2, 3), (1, 2), (1, 3), (3, 2), (3, 1)):
    xs = [torch.randn(T, NCL, device=dev) if k < R else x for k in range(3)]
    ys = [torch.empty(T, NCL, device=dev) if k < W else torch.empty(1, device=dev) for k in range(3)]
    for block, warps in ((1024, 4), (512, 4), (2048, 8)):
        add(f"stream R{R}W{W} b{block}w{warps}", R + W, bench(lambda: _stream[(NCL // block,)](*xs, *ys, T, NCL, R, W, block, num_warps=warps)))
    add(f"flat R{R}W{W}", R + W, bench(lambda: _flat[(n // 1024,)](*xs, *ys, n, R, W, 1024, num_warps=4)))
    if (R, W) == (2, 3):
        pad = 4096 + 1024 * 37  # every tensor at a different offset (mod 2 MiB) within one buffer
        buf = torch.empty(5 * (n + pad), device=dev)
        parts = [buf[k * (n + pad) + k * 1024 : k * (n + pad) + k * 1024 + n].view(T, NCL) for k in range(5)]
        add("shifted stream R2W3 b1024w4", 5, bench(lambda: _stream[(NCL // 1024,)](parts[0], parts[1], x, parts[2], parts[3], parts[4], T, NCL, 2, 3, 1024, num_warps=4)))
    del xs, ys
    torch.cuda.empty_cache()

sys.path.insert(0, "tools")
from bench import alif_core  # noqa: E402
from flexsn_nn import FlexSN  # noqa: E402

m = FlexSN(alif_core, 2, 2, 2, backend="triton", store_state_seqs=False).to(dev)
xi = [(torch.randn(T, NCL, device=dev) + 0.5).requires_grad_() for _ in range(2)]


def fwd():
    m.reset()
    m(*xi)


def inf():
    with torch.no_grad():
        m.reset()
        m(*xi)


fwd(); inf(); sync()
plan = m.kernel.plan(True, torch.float32)
fk = plan.forward
ik = None
from flexsn_runtime.op_impls import inference_kernel  # noqa: E402
from flexsn_runtime.registry import lookup_flexsn_kernel_handle  # noqa: E402

ik = inference_kernel(lookup_flexsn_kernel_handle(m.kernel.handle), True)[0]
for block, warps in ((1024, 4), (512, 4), (512, 2), (1024, 8), (2048, 8), (256, 2)):
    for kern, fn, name, passes in ((fk, fwd, "fwd", 5), (ik, inf, "inf", 4)):
        if dev == "cuda":  # the interpreter's launch configuration is its own
            kern.persist_config(xi[0], NCL, {"BLOCK_NCL": block, "num_warps": warps})
        fn(); sync()
        add(f"{name} 2x2 b{block}w{warps}", passes, bench(fn))
if dev == "cuda":
    fk.persist_config(xi[0], NCL, {"BLOCK_NCL": 1024, "num_warps": 4})
    ik.persist_config(xi[0], NCL, {"BLOCK_NCL": 1024, "num_warps": 4})
json.dump({"clone_us": clone_us, "rows": rows, "device": torch.cuda.get_device_name() if dev == "cuda" else "cpu"}, open(sys.argv[1] + "/write_mix.json", "w"), indent=1)
