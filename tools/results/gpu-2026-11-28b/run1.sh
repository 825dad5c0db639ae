#!/usr/bin/env bash
# Device call 1 of this stop: bench_static's overhead part with the new columns, then the packages suite.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
S=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
PYTHONPATH=$S timeout 150 python3 tools/bench_static.py --out "$OUT/static" --parts overhead --T 8 32 --warmup 10 --rep 31 --rounds 3 2>&1 \
  | python3 -c "import sys, json
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: print(l, end=''); continue
    print(r['impl'], r['T'], 'per call', round(r['ms'], 4), r['rounds_ms'], 'over', round(r['over_constants'], 3), 'b2b over', round(r['back_to_back_over_constants'], 3), 'kernels', round(r['kernel_us'], 1), 'over', round(r['kernel_over_constants'], 4))"
timeout 420 bash tools/results/gpu-2026-11-24/suite.sh packages -n 8
