#!/usr/bin/env bash
# Device call 7: #13's own yardstick (../shared/bench/bench_plif.py, copied to .ab/sharedbench) with its peers,
# then the anchors at T = 32 only (run6's run ended inside that part at its time limit).
set -uo pipefail
cd "$(dirname "$0")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
python3 -c "import time,os; t=time.perf_counter(); sum(range(100000)); print('sum_range_us', round((time.perf_counter()-t)*1e6), os.getloadavg())"
timeout 240 python3 .ab/sharedbench/bench_plif.py > "$OUT/plif.log" 2>&1
grep -h '"ms"\|copy_ratio\|err' "$OUT/plif.log" | grep -v "^W1" | cut -c1-200
TS=32 timeout 300 python3 .ab/sharedbench/bench_anchors.py > "$OUT/anchors32.log" 2>&1
grep '"impl": "flexsn"\|"impl": "sj' "$OUT/anchors32.log" | cut -c1-160
