#!/usr/bin/env python3
"""A fresh process's first training step of ``ParametricLIFNode`` (empty FlexSN and Triton caches, the compile
ahead on) per chunk length of the recomputing backward: its unrolled chunk compiles longer.

``--chunks 0 4 8``: 0 is ``FLEXSN_RECOMPUTE=0`` (the saved pair); others force that chunk length. Each
repeat runs every chunk once, in turn. Prints and writes ``startup_chunk.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """
import json, os, sys, time, torch, triton, triton.language as tl
import flexsn_trace.recompute as rc
K = int(sys.argv[1])
if K > 0:
    rc.chunk_length = lambda ni, ns: K
import flexsn_nn

@triton.jit
def noop(x):
    pass

x = torch.randn(8, 4096, device="cuda")
noop[(1,)](x)  # Triton's driver stubs and the CUDA context are not part of the measurement
torch.cuda.synchronize()
t0 = time.perf_counter()
m = flexsn_nn.ParametricLIFNode().cuda()
xr = x.clone().requires_grad_()
m(xr).sum().backward()
torch.cuda.synchronize()
print(json.dumps({"training_s": time.perf_counter() - t0}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunks", type=int, nargs="+", default=[0, 4, 8])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "first_step.py"  # a file: Triton's @jit reads the kernel's source
        script.write_text(SCRIPT)
        for i in range(args.repeats):
            for k in args.chunks:
                cache = Path(tmp) / f"{k}-{i}"
                env = {**os.environ, "FLEXSN_CACHE_DIR": str(cache / "flexsn"), "TRITON_CACHE_DIR": str(cache / "triton"),
                       "FLEXSN_RECOMPUTE": "0" if k == 0 else "1"}
                res = subprocess.run([sys.executable, str(script), str(k)], env=env, capture_output=True, text=True, timeout=120)
                row = {"chunk": k, "repeat": i, **(json.loads(res.stdout.strip().splitlines()[-1]) if res.returncode == 0 else {}),
                       "err": res.stderr[-300:] if res.returncode else None}
                rows.append(row)
                print(json.dumps(row), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "startup_chunk.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
