#!/usr/bin/env bash
# Device call 8: both GPU suites on the stop's final tree (after the review mends), then bench_per_call twice (fp32).
set -uo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT/suite"
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh packages -n 8 2>&1 | tail -2
OUT=$OUT/suite bash tools/results/gpu-2026-11-24/suite.sh integration -n 8 2>&1 | tail -2
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1 PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -)
for i in 1 2; do
    python3 -c "import time; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6))"
    timeout 60 python3 tools/bench_per_call.py --out "$OUT/pc-$i" --impls flexsn --rep 61 --warmup 20 --T 8 32 2>&1 \
        | grep -v "^W1\|warn" | tail -8
done
