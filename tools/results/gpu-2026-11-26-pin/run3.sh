#!/usr/bin/env bash
# Device call 3: the issue's own yardstick at T = 32 (../shared/bench/bench_anchors.py, copied to
# .ab/sharedbench; run1's T = 8 part ran, its T = 32 part met the call's time limit), then
# tools/bench_per_call.py (LIF and 2x2, fp32, T = 8 and 32) in the same session.
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())" | tee "$OUT/host.txt"
timeout 150 python3 tools/bench_per_call.py --out "$OUT/per_call" --warmup 20 --rep 61 2>&1 | tail -9 | tee "$OUT/per_call.txt"
TS=32 timeout 400 python3 .ab/sharedbench/bench_anchors.py > "$OUT/anchors32.log" 2>&1
grep -E '"case": "(inference|train)"' "$OUT/anchors32.log" | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(f\"{r['core']:>5} {r['case']:>9} T={r['T']:>2} {r['impl']:>10} {r['copy_ratio']:.3f}\")"
