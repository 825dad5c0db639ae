#!/usr/bin/env bash
# run1 showed the recomputing backward slower than the saved pair at 8 elements per thread (spills at K 8 and 16):
# the chunk's loads now all issue first, and the sweep varies elements per thread with the chunk length.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
for v in saved K8p1 K8p2 K4p1 K4p2 K4p4 saved; do
    timeout 100 python3 tools/results/gpu-2026-12-04/chunk_sweep.py --variant $v --out "$OUT/$v" 2>&1 > "$OUT/sweep_$v.log"
    python3 - "$OUT/$v/sweep_$v.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['variant']:>6} {r['case']:>4} {r['dtype']:>8} T={r['T']:>2}  b2b {r['back_to_back']:.3f}  per call {r['per_call']:.3f}  err {r['grad_err_vs_loop']:.1e}")
PY
done
