#!/usr/bin/env bash
# Device call 6: the issue's own yardstick (../shared/bench/bench_anchors.py, copied to .ab/sharedbench)
# on this stop's tree with SpikingJelly 2.0's peers; then autograd's device thread on and off (mt_probe.py).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())"
timeout 150 python3 tools/results/gpu-2026-12-06/mt_probe.py "$OUT/mt_probe.json" 2>&1 | grep -v "^W1\|warn"
timeout 400 python3 .ab/sharedbench/bench_anchors.py > "$OUT/anchors.log" 2>&1
python3 - "$OUT/anchors.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    if r.get("case") in ("inference", "train"):
        print(f"{r['core']:>5} {r['case']:>9} T={r['T']:>2} {r['impl']:>10} {r['copy_ratio']:.3f}")
    elif "error" in r.get("case", ""):
        print(r)
PY
