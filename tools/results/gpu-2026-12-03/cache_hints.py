"""Can cache hints or deeper prefetch lift a scan kernel's bandwidth toward a flat copy's (#14)?

write_mix.py (run1/) found a minimal Triton scan (one program per BLOCK neurons, a loop over T) at
0.93-0.97 of x.clone()'s bandwidth per byte where the same bytes as one flat elementwise kernel reach
0.98-1.05; FlexSN's kernels sit at the scan's level. This probe times the scan, fp32, NCL = 4,194,304,
T = 32 (H200, do_bench median), for read/write mixes of our kernels (LIF inference R1W1, LIF training
forward R1W2, 2x2 training forward R2W4, 2x2 training backward R5W2) with:

* ``plain``: as write_mix.py;
* ``ef``: loads with ``eviction_policy="evict_first"`` (streamed data, read once);
* ``cs``: stores with ``cache_modifier=".cs"`` (streaming stores);
* ``ef+cs``: both;
* ``pf``: the next step's loads issued before this step's stores (our kernels' prefetch);
* ``pf+ef+cs``: all three;
* ``u2``: two steps per iteration, all four loads first.

Each at BLOCK 1024 / 4 warps and 512 / 4 warps. Writes cache_hints.json to argv[1].
"""
import json
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

dev = "cuda" if torch.cuda.is_available() else "cpu"  # the CPU (TRITON_INTERPRET=1, tiny sizes) only checks the script
T, NCL = (32, 1 << 22) if dev == "cuda" else (4, 4096)


@triton.jit
def _ld(p, offs, mask, EF: tl.constexpr):
    if EF:
        return tl.load(p + offs, mask=mask, eviction_policy="evict_first")
    return tl.load(p + offs, mask=mask)


@triton.jit
def _st(p, offs, v, mask, CS: tl.constexpr):
    if CS:
        tl.store(p + offs, v, mask=mask, cache_modifier=".cs")
    else:
        tl.store(p + offs, v, mask=mask)


@triton.jit
def _sum_in(x0, x1, x2, x3, x4, offs, mask, R: tl.constexpr, EF: tl.constexpr):
    a = _ld(x0, offs, mask, EF)
    if R >= 2:
        a += _ld(x1, offs, mask, EF)
    if R >= 3:
        a += _ld(x2, offs, mask, EF)
    if R >= 4:
        a += _ld(x3, offs, mask, EF)
    if R >= 5:
        a += _ld(x4, offs, mask, EF)
    return a


@triton.jit
def _put(y0, y1, y2, y3, offs, a, mask, W: tl.constexpr, CS: tl.constexpr):
    _st(y0, offs, a, mask, CS)
    if W >= 2:
        _st(y1, offs, a * 2.0, mask, CS)
    if W >= 3:
        _st(y2, offs, a * 3.0, mask, CS)
    if W >= 4:
        _st(y3, offs, a * 4.0, mask, CS)


@triton.jit
def _scan(x0, x1, x2, x3, x4, y0, y1, y2, y3, T, NCL, R: tl.constexpr, W: tl.constexpr, EF: tl.constexpr,
          CS: tl.constexpr, PF: tl.constexpr, U2: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NCL
    state = tl.zeros([BLOCK], tl.float32)
    if PF:
        nxt = _sum_in(x0, x1, x2, x3, x4, offs, mask, R, EF)
        for t in range(T):
            base = tl.cast(t, tl.int64) * NCL
            a = nxt
            nmask = mask & ((offs * 0 + t + 1) < T)
            nxt = _sum_in(x0, x1, x2, x3, x4, base + NCL + offs, nmask, R, EF)
            state = state * 0.5 + a
            _put(y0, y1, y2, y3, base + offs, state, mask, W, CS)
    elif U2:
        for t2 in range(0, T, 2):
            base = tl.cast(t2, tl.int64) * NCL
            a = _sum_in(x0, x1, x2, x3, x4, base + offs, mask, R, EF)
            b = _sum_in(x0, x1, x2, x3, x4, base + NCL + offs, mask, R, EF)
            state = state * 0.5 + a
            _put(y0, y1, y2, y3, base + offs, state, mask, W, CS)
            state = state * 0.5 + b
            _put(y0, y1, y2, y3, base + NCL + offs, state, mask, W, CS)
    else:
        for t in range(T):
            base = tl.cast(t, tl.int64) * NCL
            a = _sum_in(x0, x1, x2, x3, x4, base + offs, mask, R, EF)
            state = state * 0.5 + a
            _put(y0, y1, y2, y3, base + offs, state, mask, W, CS)


def bench(fn):
    if dev == "cpu":
        fn()
        return 1.0
    return do_bench(fn, warmup=50, rep=300, return_mode="median") * 1e3


x = torch.randn(T, NCL, device=dev)
clone_us = bench(lambda: x.clone())
rows = []
VARIANTS = {"plain": (0, 0, 0, 0), "ef": (1, 0, 0, 0), "cs": (0, 1, 0, 0), "ef+cs": (1, 1, 0, 0), "pf": (0, 0, 1, 0),
            "pf+ef+cs": (1, 1, 1, 0), "u2": (0, 0, 0, 1), "u2+ef+cs": (1, 1, 0, 1)}
for R, W in ((1, 1), (1, 2), (2, 4), (5, 2)):
    xs = [torch.randn(T, NCL, device=dev) if k < R else x for k in range(5)]
    ys = [torch.empty(T, NCL, device=dev) if k < W else torch.empty(1, device=dev) for k in range(4)]
    for name, (ef, cs, pf, u2) in VARIANTS.items():
        for block in (1024, 512):
            us = bench(lambda: _scan[(NCL // block,)](*xs, *ys, T, NCL, R, W, ef, cs, pf, u2, block, num_warps=4))
            ratio = (R + W) / 2 * clone_us / us
            rows.append({"mix": f"R{R}W{W}", "variant": name, "block": block, "us": us, "ratio": ratio})
            print(f"R{R}W{W} {name:9s} b{block:5d} {us:8.1f} us  ratio {ratio:.3f}", flush=True)
    del xs, ys
    if dev == "cuda":
        torch.cuda.empty_cache()
json.dump({"clone_us": clone_us, "rows": rows, "T": T, "NCL": NCL}, open(sys.argv[1] + "/cache_hints.json", "w"), indent=1)
